"""The bot's dialogue acts in the relations that compare replies across contexts.

MORTAR's relations (Guo et al., arXiv 2412.15557, §3.4) compare reply texts and take the
context to be the user's earlier rounds. A task bot's reply also depends on what *it* was
doing: the fallback says it did not understand the utterance in that state, and a pending
question (the system act it last performed — request, offer, confirmation, yes/no
question, in the terms of agenda-based user simulation, Schatzmann et al., NAACL 2007,
§3) is part of the context the next utterance is read in. ``ActGuard`` reads both from
the replies themselves (``sparring.fallback``, ``sparring.dialogue_acts``), with no
per-bot wording:

- **Both replies are the fallback** (``fallbacks``). The bot understood the utterance in
  neither context, so the context cannot have shaped the reply: MR2 and MR4 (the reply
  must change with the context) are not asserted, and MR1 and MR3 (the reply must stay)
  pass as the same act even where the texts differ ("Sorry, I didn't understand that.
  Say 'help'…" and "Sorry, I didn't catch that. Which room type…?").
- **One reply is the fallback, in another context than the other's** (``fallbacks``), to
  an utterance the bot does not understand on its own (asked alone by the context probe
  it also gets the fallback, or nothing is known of it alone): whether it is understood
  depends on the context (a stray "single", or "single" after "which room type?"), so no
  relation comparing the two contexts is asserted, EX included (a value never taken in
  cannot be computed). Where the utterance *is* understood alone ("What are your
  prices?"), a bare fallback in another context stays a bug, and with the same rounds
  before it (text noise) a fallback on one side is a robustness bug (METAL).
- **Another pending question** (``states``). MR1, MR3 and EX on a round whose earlier
  rounds changed are asserted only where the bot was in the same state before it: no
  pending question on either side, or similar ones. After "When should it go out?" the
  utterance "Yes, confirm" rightly gets another reply than after "Shall I send it?"; and
  where both replies are the bot's own next question ("What's the account number?" /
  "When should it go out?"), what it asks depends on what it already has. A reply that
  repeats the bot's previous reply word for word is read as that state still pending (a
  re-prompt written as an offer without a question mark). And
  MR2 and MR4, which compare answers, are not asserted where both replies are the bot's
  own questions (a slot asked again in both contexts): neither answers from the context.
  Nor are MR2 and MR4 asserted where the bot asked the same question just before the round
  in both contexts (a short answer, "Grace Kim", continues the question the bot asked,
  "May I have the patient's full name?", whatever rounds were removed: answerable there as
  in the source).
- **A round the bot answers alike with no context** (``context_free``: its reply asked alone
  by the context probe is similar to its source reply). MR2 and MR4 are not asserted where
  such a round, answerable in the source, loses its context (the reply must change when
  the context goes): the bot gave that reply with no context at
  all ("I'd like to pick it up at the Central Station branch" → "You can pick up at our
  Airport, Central Station or Downtown branch."), so the context did not shape it, and the
  only evidence left that the round needs context is the offline reading of its words.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Literal

from sparring.dialogue_acts import DialogueAct, classify_dialogue_act
from sparring.fallback import FallbackConfig, is_fallback
from sparring.metamorphic._volatile import mask_volatile

Decision = Literal["judge", "pass", "skip"]
_REFERS_BACK = re.compile(r"\b(?:it|its|he|him|his|she|her|hers|they|them|their)\b", re.I)
"""Third-person pronouns: a reply that uses one refers to something said before it."""
SAME_REPLY = ("MR1", "MR3", "EX")
"""Relations that want the same reply (values); MR2 and MR4 want another one."""
_PENDING = (
    DialogueAct.REQUEST,
    DialogueAct.OFFER,
    DialogueAct.CONFIRMATION,
    DialogueAct.YES_NO_QUESTION,
)


def is_fallback_act(text: str, config: FallbackConfig) -> bool:
    """Whether the chatbot reply ``text`` is the fallback act (the configured phrase or a
    generic "did not understand" one, ``sparring.fallback``)."""
    match = is_fallback(text, config)
    return classify_dialogue_act(text, fallback=match is not None) == DialogueAct.FALLBACK


def pending_question(text: str | None, config: FallbackConfig) -> bool:
    """Whether the chatbot reply ``text`` leaves a question pending: a request, offer,
    confirmation or yes/no question, or a fallback that asks again (``reprompt``)."""
    if not text:
        return False
    match = is_fallback(text, config)
    if match is not None:
        return match.reprompt
    return classify_dialogue_act(text) in _PENDING


@dataclass
class ActGuard:
    """How the relations read the bot's acts for one seed (see the module docstring).

    ``config``: the chatbot's fallback (chatbot.yaml's ``info.fallback``, the seed's
    profile override); ``understood_alone``: the source rounds whose reply asked alone (or
    as the first round) is no fallback, ``None`` when nothing was asked alone (no context
    probe); ``context_free``: the source rounds whose reply asked alone is similar to the
    source reply (read with ``states``); ``similar``: the similarity test of two replies;
    ``fallbacks`` and ``states`` switch the two readings; ``counts`` what was decided, for
    the follow-up's note.
    """

    config: FallbackConfig
    similar: Callable[[str, str], bool]
    understood_alone: Collection[int] | None = None
    context_free: Collection[int] = ()
    fallbacks: bool = True
    states: bool = True
    counts: Counter[str] = field(default_factory=Counter)

    def decide(
        self,
        relation: str,
        source_round: int,
        replies: tuple[str, str],
        before: tuple[str | None, str | None] | None,
        had_context: bool = False,
    ) -> tuple[Decision, str]:
        """``judge`` (compare as usual), ``pass`` or ``skip`` (not asserted), and why, for
        the ``replies`` (reference, reply) of ``relation`` on ``source_round``; ``before``
        holds the bot's replies just before each (``None`` for a reply that opened the
        conversation) when the earlier rounds differ, ``None`` when they are the same;
        ``had_context``: the round is answerable in the source (MR2, MR4: one side lost the
        context it needs)."""
        if self.fallbacks:
            decision = self._not_understood(relation, source_round, replies, before is not None)
            if decision[0] != "judge":
                self.counts[decision[1]] += 1
                return decision
        if self.states and relation not in SAME_REPLY:
            reason = self._answerable_here(source_round, replies, before, had_context)
            if reason:
                self.counts[reason] += 1
                return "skip", reason
        if self.states and before is not None and relation in SAME_REPLY:
            if all(pending_question(r, self.config) for r in replies):
                reason = "both replies ask the bot's next question: it lacks other things there"
                self.counts[reason] += 1
                return "skip", reason
            first, second = (
                pending_question(b, self.config) or _repeated(b, r)
                for b, r in zip(before, replies, strict=True)
            )
            same = first == second and (not first or self.similar(str(before[0]), str(before[1])))
            if not same:
                reason = "answered in another state of the bot (another pending question)"
                self.counts[reason] += 1
                return "skip", reason
        return "judge", ""

    def _answerable_here(
        self,
        source_round: int,
        replies: tuple[str, str],
        before: tuple[str | None, str | None] | None,
        had_context: bool,
    ) -> str:
        """Why MR2 or MR4 (another reply wanted) is not asserted on ``replies``, or ''."""
        if all(pending_question(r, self.config) for r in replies):
            return "both replies are the bot's own questions: neither answers from context"
        if had_context and source_round in self.context_free:
            return "the bot gives this reply asked alone too: the context did not shape it"
        asked = before is not None and all(pending_question(b, self.config) for b in before)
        if asked and before is not None and self.similar(str(before[0]), str(before[1])):
            return "the bot asked the same question before it: answerable as in the source"
        return ""

    def _not_understood(
        self, relation: str, source_round: int, replies: tuple[str, str], moved: bool
    ) -> tuple[Decision, str]:
        reference_fb, reply_fb = (is_fallback_act(r, self.config) for r in replies)
        if reference_fb and reply_fb:
            if relation in ("MR1", "MR3"):
                return "pass", "both replies are the bot's fallback: the same dialogue act"
            return "skip", "both replies are the fallback: the context shaped neither"
        if not (reference_fb or reply_fb) or not moved:
            return "judge", ""
        alone = self.understood_alone
        if alone is not None and source_round in alone:
            return "judge", ""
        return "skip", "a fallback to an utterance the bot does not understand alone"

    def note(self) -> str:
        """What the guard decided on the follow-up judged last ('' when nothing); resets."""
        parts = [f"{n} × {reason}" for reason, n in sorted(self.counts.items())]
        self.counts.clear()
        return f"bot acts: {'; '.join(parts)}" if parts else ""


def _repeated(before: str | None, reply: str) -> bool:
    """Whether ``reply`` repeats the bot's previous reply ``before`` word for word
    (identifiers and timestamps masked): the bot says again what it said, still waiting
    in the state that reply left (a re-prompt written as an offer without a question mark:
    "I can tell you the price of tune-up, new tire and new seat")."""
    if not before:
        return False
    return _plain(before) == _plain(reply)


def _plain(text: str) -> str:
    return " ".join(mask_volatile(text).casefold().split())


def context_free(
    source: list[str | None], alone: dict[int, str | None], similar: Callable[[str, str], bool]
) -> set[int]:
    """The source rounds the bot answers alike with no context: those whose reply asked
    alone (the context probe) is similar to their source reply, save a reply that itself
    refers back with a third-person pronoun ("It is red.", "She rides it to school."): it
    presupposes a referent, so a bot giving it with no context answers as if it knew one
    (MORTAR's MR2 bug, kept)."""
    out = set()
    for index, reply in alone.items():
        reference = source[index] if index < len(source) else None
        if reply is None or reference is None or _REFERS_BACK.search(reference):
            continue
        if similar(reply, reference):
            out.add(index)
    return out


def understood_alone(
    source: list[str | None], alone: dict[int, str | None], config: FallbackConfig
) -> set[int]:
    """The source rounds the bot understands with no context: round 0 by its source reply,
    the others by their reply asked alone (the context probe), when that is no fallback."""
    out = set()
    first = source[0] if source else None
    if first is not None and not is_fallback_act(first, config):
        out.add(0)
    for index, reply in alone.items():
        if reply is not None and not is_fallback_act(reply, config):
            out.add(index)
    return out
