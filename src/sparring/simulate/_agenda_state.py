"""The agenda user's state: its goals, the values it wants, the values it gave, and what
the chatbot's confirmations said about them.

After Schatzmann et al., "Agenda-Based User Simulation for Bootstrapping a POMDP Dialogue
System" (NAACL 2007), §3: the user state is a goal (constraints and requests, here the
profile's goal variables and goals) and an agenda of pending user acts (here the goals in
order, one active at a time). The state changes only through these methods: a goal
becomes active (``activate``/``start``), its values are given (``mark_given``), goals whose
values the chatbot took or stated are met (``settle``, ``confirmed_ahead``), and a
confirmation read back against the user's values (``read_back``, ``sparring.confirmation``)
reopens the goals it contradicts (``check_read_back``). Which act the user says next is the
policy's (``_agenda``); the words are the realisation's (``_phrasing``, ``_styles``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sparring.confirmation import (
    GivenValue,
    SlotOutcome,
    SlotReading,
    compare_confirmation,
    is_confirmation,
)
from sparring.dialogue_acts import DialogueAct
from sparring.profiles import is_placeholder
from sparring.simulate._goals import Goal
from sparring.simulate._matching import any_mentioned, values_mentioned
from sparring.simulate._spec import render_value
from sparring.values import Synonyms, states_value

__all__ = ["CONFIRMING", "AgendaMemory", "AgendaState", "flat_values", "norm"]

CONFIRMING = frozenset(
    {
        DialogueAct.CONFIRMATION,
        DialogueAct.CLOSING,
        DialogueAct.INFORM,
        DialogueAct.CLOSING_QUESTION,
    }
)
"""Acts whose text may read the user's values back."""
_CLOSINGS = frozenset({DialogueAct.CLOSING, DialogueAct.CLOSING_QUESTION})
"""Acts that close a task ("Booked: … departing 06:45 … Anything else?"): what they state
is what the chatbot did, read back like a confirmation."""


@dataclass
class AgendaState:
    """The user's goals (in agenda order), the values it wants now (``values``; a persona
    that changes its mind changes one), each variable's ``alternatives`` (the profile's
    other options), the variables given when the chatbot asked (``answered``) and those
    already contradicted once (``corrected``)."""

    goals: list[Goal]
    values: dict[str, Any]
    alternatives: Mapping[str, Sequence[Any]]
    answered: set[str] = field(default_factory=set)
    corrected: set[str] = field(default_factory=set)
    offered: dict[str, list[str]] = field(default_factory=dict)
    """Variable → the options the chatbot offered when it asked for it ("Trains leave at
    06:45, 09:10 and 12:35"): the user's value is one of them, so a confirmation stating
    another of them contradicts it as an option of the profile would."""
    synonyms: Synonyms = field(default_factory=Synonyms)
    """The chatbot's words for one value (the profile's ``chatbot.synonyms``): a
    confirmation stating "physical examination" for the user's "check-up" agrees."""

    def active(self) -> Goal | None:
        """The goal the user is pursuing now, if any."""
        return next((g for g in self.goals if g.status == "active"), None)

    def pending(self) -> list[Goal]:
        """The goals not yet started, in agenda order."""
        return [g for g in self.goals if g.status == "pending"]

    def given(self, *, questions: bool = True) -> set[str]:
        """The variables the user gave: asked for, or said in a goal (``questions``:
        also those said in a question goal)."""
        said = (g.given for g in self.goals if questions or not g.question)
        return set(self.answered).union(*said)

    def mark_given(self, name: str) -> None:
        for goal in self.goals:
            if name in goal.variables:
                goal.given.add(name)

    def settle(self) -> None:
        """Goals whose every value the chatbot asked for and took are met (their values
        need not be said again), unless a confirmation contradicted one of them."""
        for goal in self.goals:
            open_ = goal.status in ("pending", "active") and goal.unconfirmed is None
            if open_ and goal.variables and goal.variables <= self.answered:
                goal.given |= goal.variables
                goal.status = "done"
                goal.evidence = "its values were taken when the chatbot asked for them"

    def confirmed_ahead(self, text: str) -> None:
        """Pending goals whose every value the chatbot's statement gives are met: the user
        said them earlier in one breath ("tomorrow 6 pm Physical examination") and the
        confirmation shows them ("… for 26-11-2026 at 18:00 …"); asking again would start
        the task over."""
        for goal in self.goals:
            if goal.status != "pending" or not goal.variables or goal.question:
                continue
            values = [self.values.get(v) for v in goal.variables]
            if all(v is not None for v in values) and all(
                values_mentioned(v, text, self.synonyms) for v in values
            ):
                goal.given |= goal.variables
                goal.status, goal.evidence = "done", text[:200]

    def activate(self, goal: Goal) -> str:
        """Make ``goal`` the active one and return its first phrasing; the goal active so
        far is met if all its values were given (the chatbot moved on), else pending."""
        active = self.active()
        if active is not None:
            moved_on = active.variables <= active.given
            active.status = "done" if moved_on else "pending"
        self.start(goal)
        return goal.utterances[0]

    def start(self, goal: Goal) -> None:
        """``goal`` becomes active; the values its utterance says count as given."""
        goal.status = "active"
        goal.given |= {v for v in goal.variables if values_mentioned(self.values[v], goal.text)}

    def others(self, name: str) -> list[Any]:
        """The options of variable ``name`` other than the value the user wants now."""
        chosen = {norm(v) for v in flat_values({name: self.values[name]})}
        return [v for v in self.alternatives.get(name, []) if norm(v) not in chosen]

    # --- confirmations read back ---------------------------------------------------------

    def check_read_back(self, text: str, act: DialogueAct) -> None:
        """Goals whose values a confirmation contradicts wait (reopened if met); goals
        contradicted before whose values it now states as given are met."""
        wrong, agreed = self.read_back(text, act)
        for goal in self.goals:
            if goal.status == "failed":
                continue
            names = sorted(goal.variables & set(wrong))
            if names:
                goal.contradicted(names, text)
            elif goal.unconfirmed is not None and set(goal.unconfirmed[0]) <= agreed:
                goal.confirmed(text)

    def read_back(self, text: str, act: DialogueAct) -> tuple[list[str], frozenset[str]]:
        """The variables the user gave whose value a confirmation or summary in ``text``
        contradicts, and those it states as given (``sparring.confirmation``: typed
        comparison, abstaining when it cannot tell which stated value is a variable's);
        nothing for a turn that confirms nothing. A turn that closes the task is read
        back whatever its cue words."""
        if act not in CONFIRMING:
            return [], frozenset()
        if not is_confirmation(text, act):
            if act not in _CLOSINGS:
                return [], frozenset()
            text = _statements(text)  # "… something else today?" states no date
        values = [
            GivenValue(
                name,
                _as_given(self.values[name]),
                options=self.options(name),
            )
            for name in sorted(self.given(questions=False))
            if self.values.get(name) is not None and not is_placeholder(self.values[name])
        ]
        if not values:
            return [], frozenset()
        check = compare_confirmation(text, values, synonyms=self.synonyms)
        wrong = [r.slot for r in check.mismatches]
        unread = [r.slot for r in check.readings if r.outcome is SlotOutcome.NOT_STATED]
        agreed = frozenset(r.slot for r in check.readings if r.outcome is SlotOutcome.AGREES)
        # "A small pizza then. Is that correct?": the one other option of a variable stated
        # and not the user's value, where no sentence reads values back by its own cues —
        # looked for outside the spans the turn states as other variables' values (an
        # option of one variable inside another's stated value is that value's word)
        rest = _without(text, [r for r in check.readings if r.outcome is SlotOutcome.AGREES])
        return wrong + [n for n in unread if self._other_option_instead(n, rest)], agreed

    def options(self, name: str) -> list[str]:
        """The options of variable ``name``: the profile's, then those the chatbot offered
        for it (``offered``), each once."""
        out: list[str] = []
        for option in [*self.alternatives.get(name, []), *self.offered.get(name, [])]:
            said = render_value(option)
            if norm(said) not in {norm(o) for o in out}:
                out.append(said)
        return out

    def _other_option_instead(self, name: str, text: str) -> bool:
        value = self.values[name]
        chosen = {norm(v) for v in flat_values({name: value})}
        flat = flat_values({name: value})
        same = {norm(w) for v in flat for w in self.synonyms.named_in(v)}
        named = {norm(o) for o in self.options(name) if any(states_value(o, str(v)) for v in flat)}
        others = [o for o in self.options(name) if norm(o) not in chosen | same | named]
        return (
            not values_mentioned(value, text, self.synonyms)
            and len(any_mentioned(others, text)) == 1
        )


def _without(text: str, agreed: Sequence[SlotReading]) -> str:
    """``text`` with the values ``agreed`` readings state (``SlotReading.stated``, and the
    user's ``given`` value) blanked out, longest first: what is left may state another
    variable's option."""
    spans = {str(v) for r in agreed for v in (r.stated, r.given) if v and str(v).strip()}
    for span in sorted(spans, key=len, reverse=True):
        text = re.sub(re.escape(span), " ", text, flags=re.IGNORECASE)
    return text


@dataclass
class AgendaMemory:
    """What the user remembers of the conversation beyond its goals: the policy's
    bookkeeping from one turn to the next (Schatzmann et al., 2007, §3: the agenda's
    state between system acts). One per conversation; the policy's modules read and
    update it."""

    protected: list[str]
    """Values the text styles must not garble (the user's values, as said)."""
    said: list[str] = field(default_factory=list)
    """A persona playing alone: what it said so far."""
    last_utterance: str | None = None
    last_value: str | None = None
    """The value the user gave last (said again in other words after a fallback)."""
    value_tries: int = 0
    mind_changed: bool = False
    goodbye: bool = False
    asked_options: set[str] = field(default_factory=set)
    """Placeholder variables whose options the user asked for."""
    improvised: dict[frozenset[str], str] = field(default_factory=dict)
    """Question kinds → the plausible value improvised for them."""
    refused: set[str] = field(default_factory=set)
    """Variables whose value the chatbot refused (given another once)."""
    questions: list[str] = field(default_factory=list)
    """The question of each chatbot reply so far (its last asking sentence)."""
    picked_any: dict[str, list[str]] = field(default_factory=dict)
    """Question → the options the user picked for it (from the bot's own words)."""
    detoured: dict[str, str] = field(default_factory=dict)
    """Question → the goal said instead of answering it (``off topic when asked``)."""
    vague_asked: set[str] = field(default_factory=set)
    vague_pending: str | None = None
    repeated: bool = False


def flat_values(variables: dict[str, Any]) -> list[Any]:
    """The values of ``variables``, lists flattened, ``None`` left out."""
    out: list[Any] = []
    for value in variables.values():
        if isinstance(value, list | tuple):
            out.extend(value)
        elif value is not None:
            out.append(value)
    return out


def norm(value: Any) -> str:
    """``value`` as lower-case text with single spaces."""
    return re.sub(r"\s+", " ", str(value)).strip().lower()


_SENTENCE = re.compile(r"(?:[^.?!\n]|\.(?=\w))*(?:[.?!]+|\n|$)")


def _statements(text: str) -> str:
    """``text`` without its questions (the sentences ending in "?")."""
    return "".join(s for s in _SENTENCE.findall(text) if not s.rstrip().endswith("?"))


def _as_given(value: Any) -> str | list[str]:
    return [str(v) for v in value] if isinstance(value, list | tuple) else str(value)
