"""Goals of the agenda user, tracked by evidence.

A goal is met when the chatbot's replies show it, not when any reply that is not the
fallback arrives: a goal with variables is met once every one of its variables has been
given and a later reply that asks for none of them mentions every one of its values
(dates and times in any writing); a goal without variables (a question) is met by a
reply that is not the fallback and does not ask for one of the user's values first. Each
goal counts the fallbacks it received; after ``GIVE_UP`` of them, or ``MAX_GOAL_TURNS``
user turns without evidence, the user moves on and the goal records why it failed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from sparring.dialogue_acts import DialogueAct
from sparring.simulate._matching import values_mentioned, when_part_mentioned

GIVE_UP = 3
"""Fallbacks on one goal after which the user moves on (the SENSEI paper, §4)."""
MAX_GOAL_TURNS = 6
"""User turns spent on one goal without evidence after which the user moves on."""

GoalStatus = Literal["pending", "active", "done", "failed"]
_ANSWERS = frozenset({DialogueAct.INFORM, DialogueAct.OFFER, DialogueAct.CLOSING})
_SETTLES = frozenset({DialogueAct.INFORM, DialogueAct.CLOSING, DialogueAct.CONFIRMATION})


@dataclass
class Goal:
    """One goal of the agenda: its rendered ``text``, the ``variables`` it carries, the
    ``utterances`` that say it, and what happened to it."""

    text: str
    variables: frozenset[str]
    utterances: list[str]
    status: GoalStatus = "pending"
    fallbacks: int = 0
    turns: int = 0
    phrasing: int = 0
    reason: str | None = None
    evidence: str | None = None
    given: set[str] = field(default_factory=set)
    question: bool = False
    verbatim: bool = False
    """The goal is a profile value said as written ("{{mumble}}"): not rephrased."""
    """The goal is a question ("Do you like {{hobby}}?"): an answer meets it, whether or
    not the answer repeats the goal's values."""
    last_reply: str | None = None
    """The chatbot's last reply while this goal was active."""
    unconfirmed: tuple[list[str], str] | None = None
    """The variables the chatbot's last statement of this goal left out, and that reply."""

    def fail(self, reason: str) -> None:
        self.status, self.reason = "failed", reason

    def observe(self, act: DialogueAct, reply: str, values: dict[str, Any],
                asked: str | None) -> None:  # fmt: skip
        """Update the goal from one chatbot reply (its act, text, the user's values and the
        variable the reply asks for, if any)."""
        if self.status != "active" or act is DialogueAct.FALLBACK:
            return
        if not self.variables or self.question:  # answered unless it asks for a value first
            if act in _ANSWERS or asked is None:
                self._met(reply)
            return
        if asked in self.variables or not self.variables <= self.given:
            return
        known = [v for v in sorted(self.variables) if values.get(v) is not None]
        missing = [v for v in known if not values_mentioned(values[v], reply)]
        if known and not missing:  # it states every value of this goal
            self._met(reply)
        elif (
            known
            and act is DialogueAct.CLOSING
            and all(when_part_mentioned(values[v], reply) for v in missing)
        ):  # it closes the task with the date or time of a value said in one breath
            self._met(reply)  # ("Monday check-up" → "… for 30-11-2026 for physical examination")
        elif act in _SETTLES and len(missing) < len(known):  # a statement that drops one
            if self.unconfirmed is not None and self.unconfirmed[0] == missing:
                self._met(reply)  # said twice in its own words (synonyms): taken as met
            else:
                self.unconfirmed = (missing, reply[:200])

    def _met(self, reply: str) -> None:
        self.status, self.evidence = "done", reply[:200]

    def why_not(self) -> str:
        """Why this goal is not met (for ``goal_not_completed``)."""
        if self.reason is not None:
            return self.reason
        if self.status == "pending":
            return "never reached within the turn limit"
        if self.unconfirmed is not None:
            names, reply = self.unconfirmed
            return f"the chatbot confirmed it without {', '.join(names)}: {reply!r}"
        missing = sorted(self.variables - self.given)
        if missing:
            return f"the chatbot never took {', '.join(missing)}"
        return "the chatbot's replies never showed it done"
