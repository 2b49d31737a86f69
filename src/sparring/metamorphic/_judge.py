"""Judging follow-ups as their records arrive: the source replays first (a round whose
replies vary between them is nondeterministic and not checked; a value kind that differs
between them, such as a ready-at time, is left out of EX for that round) and the source
rounds asked alone (a round whose reply then changes depends on its context), then every
relation on each follow-up, ``metamorphic.json`` rewritten as it goes.

The bot's variance keeps being learned after the source replays. Each round that got a
similarity violation (MR1, MR3) is replayed again in its source context (``confirm``
records, run after the follow-ups): a reply there that is not similar to the source reply
makes the round unstable and withdraws its violations. The follow-ups teach it too: one
that begins with the same questions as its source, in the same order and words, replays
the source that far, and a reply there that is not similar to the source reply means the
bot answers that round at random (ALICE's templates: "Hi there John." / "Nice to meet
you, John."). The round joins the unstable ones and the relation violations already
reported on it are withdrawn (EX keeps its own, value-by-value, variance)."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import date

from sparring.conversations import ConversationRecord, RunStore
from sparring.fallback import FallbackConfig
from sparring.metamorphic._acts import ActGuard, context_free, understood_alone
from sparring.metamorphic._answerability import DialogueAnalysis
from sparring.metamorphic._perturb import FollowUp
from sparring.metamorphic._relations import Similarity, check_follow_up, typed_values
from sparring.metamorphic._replay import link_of, replies_of
from sparring.metamorphic._result import FollowUpSummary, MetamorphicResult, RelationCheck
from sparring.metamorphic._seeds import Seed


class Judge:
    """Judges follow-ups as their records arrive (a follow-up of a question-answering
    seed waits for the seed's own replay) and rewrites ``metamorphic.json`` at most
    twice a second."""

    def __init__(
        self,
        result: MetamorphicResult,
        seeds: dict[str, Seed],
        analyses: dict[str, DialogueAnalysis],
        similarity: Similarity,
        store: RunStore,
        source_replays: int = 1,
        isolated: dict[str, int] | None = None,
        acts: tuple[bool, bool] = (False, False),
        fallback: str | None = None,
    ) -> None:
        """``acts``: read the bot's fallbacks and pending questions (``_acts.ActGuard``),
        the chatbot's ``fallback`` phrase (chatbot.yaml's ``info.fallback``) read with each
        seed's profile override; ``(False, False)`` compares replies as text (MORTAR's)."""
        self.result = result
        self.acts = acts
        self.fallback = fallback
        self.guards: dict[str, ActGuard] = {}
        self.source_replays = source_replays
        self.sources: dict[str, dict[str, list[str | None]]] = {}
        self.unstable: dict[str, set[int]] = {}
        self.varying: dict[str, dict[int, set[str]]] = {}
        self.isolated_expected = isolated or {}
        self.isolated: dict[str, dict[int, str | None]] = {}
        self.dependent: dict[str, set[int]] = {}
        self.seeds = seeds
        self.analyses = analyses
        self.similarity = similarity
        self.store = store
        self.follow_ups: dict[str, FollowUp] = {}
        self.on_follow_up: Callable[[FollowUpSummary], None] | None = None
        self.source_replies: dict[str, list[str | None]] = {}
        self.waiting: dict[str, list[ConversationRecord]] = {}
        self.confirmations: dict[str, list[ConversationRecord]] = {}
        self.alternatives: dict[str, dict[int, list[str]]] = {}
        """Per seed and source round, the other replies the bot gave in the source's own
        context (the other source replays, the confirmation replays)."""
        self.checks = 0
        self.checked: dict[str, list[tuple[int, bool]]] = {}
        """Per follow-up, ``(source round, is EX)`` of each relation check."""
        self.written = 0.0

    def add(self, record: ConversationRecord) -> None:
        link = link_of(record)
        if link is None or link.seed not in self.seeds:
            return
        if link.role == "source":
            self.sources.setdefault(link.seed, {})[record.id] = replies_of(record)
            self._ready(link.seed)
        elif link.role == "confirm":
            self.confirmations.setdefault(link.seed, []).append(record)
            if link.seed in self.source_replies:
                self._confirm(link.seed)
        elif link.role == "isolated":
            replies = replies_of(record)
            if link.order:
                self.isolated.setdefault(link.seed, {})[link.order[0]] = (
                    replies[0] if replies else None
                )
            self._ready(link.seed)
        elif link.seed in self.source_replies:
            self._judge(record, link.seed)
        else:
            self.waiting.setdefault(link.seed, []).append(record)
        self.flush()

    def _ready(self, seed: str) -> None:
        """Once every source replay and every isolated round of ``seed`` is in: the source
        replies, the unstable and the context-dependent rounds, then the waiting
        follow-ups."""
        replays = self.sources.get(seed, {})
        isolated = self.isolated.get(seed, {})
        if seed in self.source_replies or len(replays) < self.source_replays:
            return
        if len(isolated) < self.isolated_expected.get(seed, 0):
            return
        first, *others = (replays[k] for k in sorted(replays))
        self.source_replies[seed] = first
        self.unstable[seed] = self._unstable(first, others)
        self.varying[seed] = _varying_kinds([first, *others])
        for other in others:
            for index, reply in enumerate(other):
                if reply is not None:
                    self.alternatives.setdefault(seed, {}).setdefault(index, []).append(reply)
        self.dependent[seed] = self._dependent(first, isolated)
        if any(self.acts):
            record = self.seeds[seed].record
            override = record.fallback if record is not None else None
            config = FallbackConfig.of(self.fallback, override)
            probed = self.isolated_expected.get(seed, 0) > 0
            alone = understood_alone(first, isolated, config) if probed else None
            similar = self.similarity.similar
            free = context_free(first, isolated, similar)
            fallbacks, states = self.acts
            self.guards[seed] = ActGuard(config, similar, alone, free, fallbacks, states)
        for waiting in self.waiting.pop(seed, []):
            self._judge(waiting, seed)
        self._confirm(seed)

    def to_confirm(self) -> list[tuple[str, int]]:
        """``(seed, source round)`` of each similarity violation (MR1, MR3) reported on a
        round not known to be unstable, in order."""
        found = {
            (b.seed, b.source_round)
            for b in self.result.bugs
            if b.relation in ("MR1", "MR3") and b.source_round not in self.unstable.get(b.seed, ())
        }
        return sorted(found)

    def _confirm(self, seed: str) -> None:
        """Withdraw the violations on each round a ``confirm`` replay answered otherwise."""
        source = self.source_replies[seed]
        for record in self.confirmations.pop(seed, []):
            link = link_of(record)
            replies = replies_of(record)
            if link is None or not link.order or len(replies) < len(link.order):
                continue
            index = link.order[-1]
            reference, reply = source[index] if index < len(source) else None, replies[-1]
            if reference is None or reply is None:
                continue
            if self.similarity(reference, reply) < self.similarity.threshold:
                self._withdraw(seed, index)
            else:
                self.alternatives.setdefault(seed, {}).setdefault(index, []).append(reply)
                self._drop_explained(seed)

    def _dependent(self, source: list[str | None], alone: dict[int, str | None]) -> set[int]:
        """Source rounds whose reply asked alone is not similar to their source reply."""
        out = set()
        for index, reply in alone.items():
            reference = source[index] if index < len(source) else None
            if reply is None or reference is None:
                continue
            if self.similarity(reply, reference) < self.similarity.threshold:
                out.add(index)
        return out

    def _unstable(self, first: list[str | None], others: list[list[str | None]]) -> set[int]:
        """Source rounds whose replies differ between the replays of the source."""
        out = set()
        for index, reply in enumerate(first):
            for other in others:
                again = other[index] if index < len(other) else None
                if reply is None or again is None:
                    continue
                if self.similarity(reply, again) < self.similarity.threshold:
                    out.add(index)
        return out

    def _judge(self, record: ConversationRecord, seed_id: str) -> None:
        link = link_of(record)
        assert link is not None
        follow_up = self.follow_ups.get(record.id)
        summary = FollowUpSummary(
            id=record.id, seed=seed_id, perturbation=link.perturbation or "", order=link.order
        )
        analysis = self.analyses.get(seed_id)
        seed = self.seeds[seed_id]
        if follow_up is None:
            summary.note = "a user transformation: judged by its rule (sparring check)"
        elif analysis is None:
            summary.note = "no answerability analysis of its seed"
        else:
            checks = check_follow_up(
                follow_up,
                analysis,
                self.source_replies[seed_id],
                replies_of(record),
                self.similarity,
                seed.gold,
                record.started_at.date() if record.started_at else None,
                self.unstable.get(seed_id, set()),
                self.dependent.get(seed_id, set()),
                self.varying.get(seed_id, {}),
                self.guards.get(seed_id),
            )
            guard = self.guards.get(seed_id)
            guarded = guard.note() if guard is not None else ""
            bugs = [c for c in checks if not c.passed and not self._explained(c)]
            summary.checks, summary.bugs = len(checks), len(bugs)
            self.checked[record.id] = [(c.source_round, c.relation == "EX") for c in checks]
            skipped = sorted(self.unstable.get(seed_id, set()) & set(follow_up.order))
            if skipped:
                summary.note = f"source rounds {skipped} not checked: their replies vary"
            dependent = sorted(self.dependent.get(seed_id, set()) & set(follow_up.order))
            if dependent:
                note = (
                    f"source rounds {dependent} depend on their context for this bot: held "
                    "to MR1 only after the same rounds as in the source"
                )
                summary.note = f"{summary.note}; {note}" if summary.note else note
            if guarded:
                summary.note = f"{summary.note}; {guarded}" if summary.note else guarded
            if not checks:
                summary.note = summary.note or (
                    "no round got replies on both sides" if record.errors else "no relation applied"
                )
            self.checks += len(checks)
            self.result.bugs.extend(bugs)
        self.result.follow_ups.append(summary)
        if follow_up is not None and analysis is not None:
            source = [r.question for r in analysis.rounds]
            for index in _varied_rounds(
                follow_up, source, self.source_replies[seed_id], replies_of(record), self.similarity
            ):
                self._withdraw(seed_id, index)
        if self.on_follow_up is not None:
            self.on_follow_up(summary)

    def _explained(self, check: RelationCheck) -> bool:
        """Whether a similarity violation compares replies the bot also gave in the
        source's own context (the source reply, the other source replays, the confirmation
        replays): an MR1 reply similar to one of them, or MR3 replies each similar to one
        of them, are the bot's own answers to that round, no bug."""
        if check.relation not in ("MR1", "MR3"):
            return False
        alternatives = self.alternatives.get(check.seed, {}).get(check.source_round, [])
        if not alternatives:
            return False
        source = self.source_replies.get(check.seed, [])
        first = source[check.source_round] if check.source_round < len(source) else None
        known = [*alternatives, *([first] if first is not None else [])]
        threshold = self.similarity.threshold

        def seen(reply: str) -> bool:
            return any(self.similarity(reply, other) >= threshold for other in known)

        return seen(check.reply) and (check.relation == "MR1" or seen(check.reference))

    def _drop_explained(self, seed: str) -> None:
        """Drop the violations of ``seed`` that ``_explained`` now accounts for."""
        dropped = {b.follow_up for b in self.result.bugs if b.seed == seed and self._explained(b)}
        if not dropped:
            return
        self.result.bugs = [b for b in self.result.bugs if b.seed != seed or not self._explained(b)]
        note = "a reply the bot also gave in the source's context is no bug"
        for summary in self.result.follow_ups:
            if summary.id in dropped:
                summary.bugs = sum(1 for b in self.result.bugs if b.follow_up == summary.id)
                summary.note = f"{summary.note}; {note}" if summary.note else note

    def _withdraw(self, seed: str, index: int) -> None:
        """Mark source round ``index`` of ``seed`` unstable and withdraw the relation checks
        (save EX) already made on it."""
        unstable = self.unstable.setdefault(seed, set())
        if index in unstable:
            return
        unstable.add(index)
        self.result.bugs = [
            b
            for b in self.result.bugs
            if not (b.seed == seed and b.source_round == index and b.relation != "EX")
        ]
        note = f"source round {index} withdrawn: its reply varies in the same context"
        for summary in self.result.follow_ups:
            checked = self.checked.get(summary.id)
            if summary.seed != seed or not checked:
                continue
            kept = [(r, ex) for r, ex in checked if ex or r != index]
            if len(kept) == len(checked):
                continue
            self.checks -= len(checked) - len(kept)
            self.checked[summary.id] = kept
            summary.checks = len(kept)
            summary.bugs = sum(1 for b in self.result.bugs if b.follow_up == summary.id)
            summary.note = f"{summary.note}; {note}" if summary.note else note

    def flush(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.written < 0.5:
            return
        self.result.follow_ups.sort(key=lambda f: f.id)
        self.result.recount(self.checks)
        self.result.write(self.store)
        self.written = now


def _varying_kinds(replays: list[list[str | None]]) -> dict[int, set[str]]:
    """Per source round, the typed value kinds whose values differ between ``replays``."""
    today = date.today()
    out: dict[int, set[str]] = {}
    for index in range(max((len(r) for r in replays), default=0)):
        texts = [r[index] for r in replays if index < len(r)]
        found = [typed_values(text, today) for text in texts if text]
        kinds = {kind for values in found for kind in values}
        differ = {k for k in kinds if len({tuple(v.get(k, [])) for v in found}) > 1}
        if differ:
            out[index] = differ
    return out


def _varied_rounds(
    follow_up: FollowUp,
    source_questions: list[str],
    source_replies: list[str | None],
    replies: list[str | None],
    similarity: Similarity,
) -> list[int]:
    """Source rounds that ``follow_up`` asks exactly as the source did (same questions
    before them, same words) and that got a reply not similar to the source reply."""
    out = []
    for position, index in enumerate(follow_up.order):
        if index != position or follow_up.questions[position] != source_questions[index]:
            break
        reference = source_replies[index] if index < len(source_replies) else None
        reply = replies[position] if position < len(replies) else None
        if reference is None or reply is None:
            continue
        if similarity(reference, reply) < similarity.threshold:
            out.append(index)
    return out
