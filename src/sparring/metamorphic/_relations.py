"""The metamorphic relations, checked on one replayed follow-up.

After MORTAR (Guo et al., arXiv 2412.15557, §3.4), with the answerability of every round
(``DialogueAnalysis.follow_up``) of the source and of the follow-up:

- **MR1 context-preserving**: a round whose answerability is the same as in the source
  gets a reply similar to the source reply (similarity ≥ threshold);
- **MR2 context-altering**: a round whose answerability changed (typically: the rounds it
  needs were removed or moved after it) gets a reply that differs from the source reply;
- **MR3 inner-group consistency**: the occurrences of a duplicated question with the same
  answerability get similar replies;
- **MR4 inter-group divergence**: occurrences of a duplicated question, one answerable
  and one not, get different replies;
- **EX exact values** (ours): a round asked after exactly the same set of source rounds
  as in the source (reordered or not) must give the same typed values a task bot computes
  — amounts of money, e-mail addresses, phone numbers, times (``sparring.values``) — save
  the kinds whose values already differ between the replays of the source (``varying``).

The bot's acts are read, not only its words (``_acts``): where both replies are its
fallback, MR1/MR3 pass and MR2/MR4 are not asserted; where one is, in another context than
the other's, to an utterance the bot does not understand alone, none is; and MR1, MR3 and
EX on a round whose earlier rounds changed need the bot in the same state before it (the
same pending question, or none).

A round whose question is only a social act (a greeting, thanks, a farewell: "Hello",
"Thanks!", "Bye") asks for nothing: any polite reply is right, so no relation is checked
on it (ALICE answers a second "Hello" with "How are you?", which is no bug).

Values a correct bot may change, identifiers, random ids and timestamps (``_volatile``),
are masked in every comparison and never compared by EX: a new order's new number is no
bug. The severity of a bug says why (``severity_reason``).

MR2 is asserted only where a round the question needed is missing before it (removed, or
moved after it): when every round before it in the source still comes before it, with
others in between, a bot that keeps its state (a task bot's pending order) may still
answer it, and a different reply is not required. MR4 likewise.

A round whose reply changes when it is asked alone depends on its context for this bot
(``dependent``: a task bot's state, "how much will it cost" before and after the order):
MR1 is not asserted on it where the rounds before it are not the source's, nor MR3
between its occurrences (each has other rounds before it). Text-level follow-ups (METAL)
keep their rounds in order, so MR1 applies to every round.
With gold answers each bug gets a level: L1 the source reply matched the gold answer and
the follow-up's did not, L2 the reverse, L3 neither.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from datetime import date

from sparring.metamorphic._acts import ActGuard
from sparring.metamorphic._answerability import DialogueAnalysis, RoundAnswerability
from sparring.metamorphic._perturb import FollowUp
from sparring.metamorphic._result import Level, RelationCheck, Severity
from sparring.metamorphic._volatile import mask_volatile
from sparring.similarity import similarities
from sparring.values import find_values

_VALUE_KINDS = ("money", "email", "phone", "time")
_SOCIAL = re.compile(
    r"^\W*(?:(?:hi|hello|hey|hiya|howdy|greetings|good (?:morning|afternoon|evening|day|night)"
    r"|thanks?(?: you)?(?: (?:very|so) much| a lot)?|thx|cheers|bye(?: bye)?|goodbye|good bye"
    r"|see (?:you|ya)(?: later| soon)?|farewell|ciao|ok(?:ay)?|cool|great|nice)\b[\s,]*"
    r"(?:there|again|everyone|all|friend|bot|buddy|mate)?\W*)+$",
    re.IGNORECASE,
)


def is_social(question: str) -> bool:
    """Whether ``question`` is only a greeting, thanks or a farewell ("Hello!", "Thanks a
    lot", "Bye"): a social act that asks for nothing."""
    return _SOCIAL.match(question.strip()) is not None


class Similarity:
    """The similarity method (``embeddings`` or ``tf-idf``) and its threshold; texts are
    compared with their identifiers, random ids and timestamps masked."""

    def __init__(self, method: str, threshold: float) -> None:
        self.method = method
        self.threshold = threshold

    def similar(self, a: str, b: str) -> bool:
        """Whether ``a`` and ``b`` are similar (at or above the threshold)."""
        return self(a, b) >= self.threshold

    def __call__(self, a: str, b: str) -> float:
        a, b = mask_volatile(a).strip(), mask_volatile(b).strip()
        if a == b:
            return 1.0
        return round(similarities(a, [b], self.method)[0], 4)


def severity(similarity: float, threshold: float, must_match: bool) -> tuple[Severity, str]:
    """How badly a similarity misses, and why: the distance past the threshold as a share
    of the room on that side (``high`` ≥ 2/3, ``medium`` ≥ 1/3, else ``low``)."""
    if must_match:
        gap = (threshold - similarity) / threshold if threshold else 0.0
        side = f"below the threshold {threshold} toward 0 (nothing in common)"
    else:
        gap = (similarity - threshold) / (1 - threshold) if threshold < 1 else 0.0
        side = f"above the threshold {threshold} toward 1 (the same reply)"
    level: Severity = "high" if gap >= 2 / 3 else "medium" if gap >= 1 / 3 else "low"
    return level, f"{level}: similarity {similarity:.2f} is {gap:.0%} of the way {side}"


def _level(source_ok: bool, follow_ok: bool) -> Level | None:
    if source_ok and not follow_ok:
        return "L1"
    if follow_ok and not source_ok:
        return "L2"
    return None if source_ok else "L3"


def check_follow_up(
    follow_up: FollowUp,
    analysis: DialogueAnalysis,
    source_replies: Sequence[str | None],
    replies: Sequence[str | None],
    similarity: Similarity,
    gold: Sequence[str] | None = None,
    reference_date: date | None = None,
    unstable: Collection[int] = (),
    dependent: Collection[int] = (),
    varying: Mapping[int, Collection[str]] | None = None,
    guard: ActGuard | None = None,
) -> list[RelationCheck]:
    """Every relation check on one follow-up (passed and violated). ``source_replies``
    holds the source reply per source round, ``replies`` the follow-up's per round
    (``None`` where the chatbot gave none: not checked); rounds from the ``unstable``
    source rounds (replies that vary between replays of the source) are not checked;
    ``varying`` gives, per source round, the value kinds EX leaves out (they differ
    between the source replays); ``guard`` reads the bot's acts (``None``: replies compared
    as text, MORTAR's way)."""
    source = analysis.follow_up(range(len(analysis.rounds)))
    rounds = analysis.follow_up(follow_up.order)
    out: list[RelationCheck] = []
    for position, verdict in enumerate(rounds):
        index = follow_up.order[position]
        reference, reply = source_replies[index], replies[position]
        if reference is None or reply is None or index in unstable or is_social(verdict.question):
            continue
        base = _base(follow_up, position, verdict, source[index], reference, reply, gold)
        same = verdict.answerable == source[index].answerable
        moved = list(follow_up.order[:position]) != list(range(index))
        context_kept = set(follow_up.order[:position]) >= set(range(index))
        before = (
            (
                source_replies[index - 1] if index else None,
                replies[position - 1] if position else None,
            )
            if moved
            else None
        )
        if not (same and index in dependent and moved) and (same or not context_kept):
            relation = "MR1" if same else "MR2"
            had = source[index].answerable
            decision = _decide(guard, relation, index, (reference, reply), before, had)
            if decision[0] != "skip":
                out.append(_similar_check(base, relation, same, similarity, gold, decision[1]))
        if follow_up.order[:position].count(index) == 0:
            skip = (varying or {}).get(index, ())
            exact = _exact_check(base, follow_up.order, position, reference_date, skip)
            if (
                exact is not None
                and _decide(guard, "EX", index, (reference, reply), before)[0] == "judge"
            ):
                out.append(exact)
    kept = [
        None if i in unstable or is_social(rounds[position].question) else r
        for position, (i, r) in enumerate(zip(follow_up.order, replies, strict=False))
    ]
    had_context = {i for i, r in enumerate(source) if r.answerable}
    out.extend(
        _group_checks(follow_up, rounds, kept, similarity, gold, dependent, guard, had_context)
    )
    return out


def _decide(
    guard: ActGuard | None,
    relation: str,
    source_round: int,
    replies: tuple[str, str],
    before: tuple[str | None, str | None] | None,
    had_context: bool = False,
) -> tuple[str, str]:
    """The guard's decision (``judge``/``pass``/``skip``, and why) on ``replies``
    (reference, reply), ``before`` them the bot's replies where the earlier rounds differ;
    ``had_context``: the round is answerable in the source."""
    if guard is None:
        return "judge", ""
    return guard.decide(relation, source_round, replies, before, had_context)


def _base(
    follow_up: FollowUp,
    position: int,
    verdict: RoundAnswerability,
    source: RoundAnswerability,
    reference: str,
    reply: str,
    gold: Sequence[str] | None,
) -> dict[str, object]:
    return {
        "follow_up": follow_up.id,
        "seed": follow_up.seed,
        "perturbation": follow_up.perturbation,
        "position": position,
        "source_round": verdict.source_round,
        "question": source.question,
        "follow_up_question": follow_up.questions[position],
        "reference": reference,
        "reply": reply,
        "gold": gold[verdict.source_round] if gold else None,
        "source_answerable": source.answerable,
        "answerable": verdict.answerable,
        "answerability_strategy": verdict.strategy,
        "answerability_reason": verdict.reason,
    }


def _similar_check(
    base: dict[str, object],
    relation: str,
    must_match: bool,
    similarity: Similarity,
    gold: Sequence[str] | None,
    as_fallback: str = "",
) -> RelationCheck:
    """The similarity check; ``as_fallback`` (the guard's reason) passes it as one act."""
    reference, reply = str(base["reference"]), str(base["reply"])
    score = similarity(reference, reply)
    passed = score >= similarity.threshold if must_match else score < similarity.threshold
    passed = passed or bool(as_fallback)
    wanted = "similar to" if must_match else "different from"
    reason = (
        f"answerability {'kept' if base['source_answerable'] == base['answerable'] else 'changed'}"
        f" ({base['answerability_reason']}): reply must be {wanted} the reference; "
        f"{similarity.method} similarity {score:.2f} vs threshold {similarity.threshold}"
        + (f"; {as_fallback}" if as_fallback else "")
    )
    level = None
    graded = None if passed else severity(score, similarity.threshold, must_match)
    if not passed and base.get("gold"):
        gold_text = str(base["gold"])
        level = _level(
            similarity(reference, gold_text) >= similarity.threshold,
            similarity(reply, gold_text) >= similarity.threshold,
        )
    return RelationCheck(
        relation=relation,
        similarity=score,
        method=similarity.method,
        threshold=similarity.threshold,
        passed=passed,
        severity=None if graded is None else graded[0],
        severity_reason=None if graded is None else graded[1],
        level=level,
        reason=reason,
        **base,
    )


def typed_values(text: str, reference: date) -> dict[str, list[str]]:
    """The typed values of ``text`` a task bot computes: money, e-mail, phone, time (as
    strings), read with identifiers, random ids and timestamps masked (never compared)."""
    masked = mask_volatile(text)
    found = {
        kind: [str(c.value) for c in find_values(kind, masked, reference)] for kind in _VALUE_KINDS
    }
    return {kind: values for kind, values in found.items() if values}


def _exact_check(
    base: dict[str, object],
    order: Sequence[int],
    position: int,
    reference_date: date | None,
    varying: Collection[str] = (),
) -> RelationCheck | None:
    index = order[position]
    if set(order[:position]) != set(range(index)):
        return None
    day = reference_date or date.today()
    expected = _kept(typed_values(str(base["reference"]), day), varying)
    if not expected:
        return None
    got = _kept(typed_values(str(base["reply"]), day), varying)
    differing = {kind for kind in set(expected) | set(got) if expected.get(kind) != got.get(kind)}
    reason = "asked after the same source rounds: the computed values must not change; " + (
        "; ".join(f"{k}: {expected.get(k, [])} → {got.get(k, [])}" for k in sorted(differing))
        if differing
        else f"same {', '.join(sorted(expected))}"
    )
    if varying:
        reason += f" (left out, they vary between source replays: {', '.join(sorted(varying))})"
    why = (
        f"high: a computed value ({', '.join(sorted(differing))}) changed after the same rounds "
        "although it did not vary between the source replays"
    )
    return RelationCheck(
        relation="EX",
        passed=not differing,
        severity="high" if differing else None,
        severity_reason=why if differing else None,
        reason=reason,
        **base,
    )


def _kept(values: dict[str, list[str]], varying: Collection[str]) -> dict[str, list[str]]:
    return {kind: found for kind, found in values.items() if kind not in varying}


def _group_checks(
    follow_up: FollowUp,
    rounds: Sequence[RoundAnswerability],
    replies: Sequence[str | None],
    similarity: Similarity,
    gold: Sequence[str] | None,
    dependent: Collection[int] = (),
    guard: ActGuard | None = None,
    had_context: Collection[int] = (),
) -> list[RelationCheck]:
    """MR3 and MR4 over the occurrences of each duplicated source round (MR3 not for a
    ``dependent`` one: each occurrence has other rounds before it); ``guard`` reads the
    bot's acts (the occurrences always have other rounds before them); ``had_context``: the
    source rounds answerable in the source."""

    def pair(reference_position: int, position: int, relation: str) -> RelationCheck | None:
        decision = _decide(
            guard,
            relation,
            follow_up.order[position],
            (str(replies[reference_position]), str(replies[position])),
            (
                replies[reference_position - 1] if reference_position else None,
                replies[position - 1] if position else None,
            ),
            follow_up.order[position] in had_context,
        )
        if decision[0] == "skip":
            return None
        return _pair(
            follow_up,
            rounds,
            replies,
            (reference_position, position),
            relation,
            similarity,
            gold,
            decision[1],
        )

    out: list[RelationCheck | None] = []
    positions: dict[int, list[int]] = {}
    for position, index in enumerate(follow_up.order):
        if replies[position] is not None:
            positions.setdefault(index, []).append(position)
    for occurrences in positions.values():
        if len(occurrences) < 2:
            continue
        first = occurrences[0]
        first_of: dict[bool, int] = {}
        for position in occurrences:
            answerable = rounds[position].answerable
            if answerable not in first_of:
                first_of[answerable] = position
                no = position if not answerable else first  # the unanswerable occurrence
                index = follow_up.order[no]
                kept = set(follow_up.order[:no]) >= set(range(index))
                if len(first_of) == 2 and not kept:  # the other group's first: MR4 with the first
                    out.append(pair(first, position, "MR4"))
                continue
            if follow_up.order[position] in dependent:
                continue
            out.append(pair(first_of[answerable], position, "MR3"))
    return [check for check in out if check is not None]


def _pair(
    follow_up: FollowUp,
    rounds: Sequence[RoundAnswerability],
    replies: Sequence[str | None],
    positions: tuple[int, int],
    relation: str,
    similarity: Similarity,
    gold: Sequence[str] | None,
    as_fallback: str = "",
) -> RelationCheck:
    """MR3 or MR4 between the occurrences at ``positions`` (the reference's first);
    ``as_fallback`` (the guard's reason) passes it as one act."""
    reference_position, position = positions
    verdict, other = rounds[position], rounds[reference_position]
    reference, reply = str(replies[reference_position]), str(replies[position])
    must_match = relation == "MR3"
    score = similarity(reference, reply)
    passed = score >= similarity.threshold if must_match else score < similarity.threshold
    passed = passed or bool(as_fallback)
    graded = None if passed else severity(score, similarity.threshold, must_match)
    wanted = "similar to" if must_match else "different from"
    reason = (
        f"the same question asked again, answerable {other.answerable} then {verdict.answerable}:"
        f" reply must be {wanted} the one at round {reference_position}; "
        f"{similarity.method} similarity {score:.2f} vs threshold {similarity.threshold}"
        + (f"; {as_fallback}" if as_fallback else "")
    )
    return RelationCheck(
        relation=relation,
        follow_up=follow_up.id,
        seed=follow_up.seed,
        perturbation=follow_up.perturbation,
        position=position,
        source_round=verdict.source_round,
        reference_position=reference_position,
        question=verdict.question,
        follow_up_question=follow_up.questions[position],
        reference=reference,
        reply=reply,
        gold=gold[verdict.source_round] if gold else None,
        source_answerable=other.answerable,
        answerable=verdict.answerable,
        answerability_strategy=verdict.strategy,
        answerability_reason=verdict.reason,
        similarity=score,
        method=similarity.method,
        threshold=similarity.threshold,
        passed=passed,
        severity=None if graded is None else graded[0],
        severity_reason=None if graded is None else graded[1],
        reason=reason,
    )
