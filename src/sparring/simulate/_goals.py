"""Goals of the agenda user, tracked by evidence.

A goal is met when the chatbot answers or confirms after the user gave its values (the
agenda-based user simulation of Schatzmann et al., NAACL 2007, §3: a goal constraint is
popped once the system has it): a goal with variables is met once every one of its
variables has been given and a later reply that asks for none of them informs, confirms or
closes — "The price would be around 1200.0$" answers a price request without repeating
the request's values — unless that reply's confirmation contradicts one of its values
(``sparring.confirmation``; then the goal waits, and the reason is kept). A goal without
variables (a question) is met by a reply that is not the fallback and does not ask for one
of the user's values first. Each
goal counts the fallbacks it received; after ``GIVE_UP`` of them, or ``MAX_GOAL_TURNS``
user turns without evidence, the user moves on and the goal records why it failed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from sparring.dialogue_acts import DialogueAct

GIVE_UP = 3
"""Fallbacks on one goal after which the user moves on (the SENSEI paper, §4)."""
MAX_GOAL_TURNS = 6
"""User turns spent on one goal without evidence after which the user moves on."""

GoalStatus = Literal["pending", "active", "done", "failed"]
_ANSWERS = frozenset(
    {DialogueAct.INFORM, DialogueAct.OFFER, DialogueAct.CLOSING, DialogueAct.CLOSING_QUESTION}
)
_SETTLES = frozenset(
    {
        DialogueAct.INFORM,
        DialogueAct.CLOSING,
        DialogueAct.CONFIRMATION,
        DialogueAct.CLOSING_QUESTION,
    }
)


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
    """The variables whose values the chatbot's last statement contradicted, and that reply."""

    def fail(self, reason: str) -> None:
        self.status, self.reason = "failed", reason

    def observe(self, act: DialogueAct, reply: str, asked: str | None) -> None:
        """Update the goal from one chatbot reply: its act, its text and the variable it
        asks for (if any). A goal a confirmation contradicted (``unconfirmed``, set by the
        simulator) waits for a confirmation that states the user's values."""
        if self.status != "active" or act is DialogueAct.FALLBACK:
            return
        if not self.variables or self.question:  # answered unless it asks for a value first
            if act in _ANSWERS or asked is None:
                self._met(reply)
            return
        if asked in self.variables or not self.variables <= self.given:
            return
        if self.unconfirmed is None and act in _SETTLES:
            self._met(reply)  # it answers or confirms after the user gave every value

    def contradicted(self, names: list[str], reply: str) -> None:
        """A confirmation stated another value than the user's for ``names``: a goal that
        carries one of them is not met (a met one is reopened) until a confirmation states
        the user's values."""
        self.unconfirmed = (names, reply[:200])
        if self.status == "done":
            self.status = "pending"

    def confirmed(self, reply: str) -> None:
        """A confirmation stated the user's values for the contradicted ones: met."""
        self.unconfirmed = None
        if self.status in ("pending", "active"):
            self._met(reply)

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
            return f"the chatbot stated another {', '.join(names)} than the user's: {reply!r}"
        missing = sorted(self.variables - self.given)
        if missing:
            return f"the chatbot never took {', '.join(missing)}"
        return "the chatbot's replies never showed it done"
