"""A chatbot's confirmation read back against the values the user gave, offline.

A task bot that confirms or summarises ("Your booking is confirmed: a double room for Alice
Smith, checking in on 12/03/2027", "So a large pepperoni, is that right?") states values
the user gave earlier, one per slot. ``compare_confirmation(text, given)`` finds, for each
slot, what the turn states and compares it *typed*, never as raw strings:

- money by amount (and currency when both sides state one): ``$80`` = ``80 USD``;
- numbers by value, digits or words (``2`` = ``two``), only beside the slot's own name
  ("2 guests", "guests: 2"), since a lone number may be any figure (a reference, a price);
- durations ("30 minutes") only with durations, clock times only with clock times;
- dates by day and month (and year when both state one; a numeric date whose day and month
  can be read either way matches either reading): ``12/03/2027`` = ``12 March 2027``;
  relative dates ("tomorrow") against ``reference``, only when a stated date lies within
  a week of it (else the chatbot's clock is not the conversation's: cannot tell);
- times across 12/24-hour clocks (``5 PM`` = ``17:00``; a bare ``5:00`` is 5:00 or 17:00);
- options and other text by normalised text (case, accents, punctuation, a plural ``s``).

Each slot gets one ``SlotOutcome``: ``agrees``; ``differs`` (the turn states another value
of the slot: one of the slot's other ``options``, or the one value of its kind in a sentence
that reads values back, or a ``label: value`` pair); ``empty`` (the turn states it as
``None``/``null``/``undefined``/``N/A``, an empty ``label:``, or a template left unfilled,
``{name}``, ``{{name}}``, ``${name}``); ``not_stated``; and ``cannot_tell`` when several
candidates could be the slot's and nothing says which: the comparison abstains rather than
guesses which value belongs to which slot. Candidates count only in *read-back sentences*
(a sentence with a confirmation cue, a ``label:`` or one of the user's values), so a
question or an offer after the summary ("Would you like cola, water or beer?") states none.

``is_confirmation(text, act)`` says whether a chatbot turn confirms or summarises: its
dialogue act is ``confirmation`` (``sparring.dialogue_acts``) or a sentence carries a
generic confirmation cue ("confirmed", "your order:", "you have booked", "summary").
Over a whole conversation, ``given_values(turns, variables, until=)`` says which of a
profile's values the user actually said (and the options the chatbot offered for each),
and ``check_conversation(turns, variables)`` compares every confirmation with them.

Source: the user's check of the system's ``confirm`` act against its goal constraints in
agenda-based user simulation (Schatzmann et al., NAACL 2007, §3: a wrong confirmation is
negated), and SENSEI-check's confirmation rules (Gómez-Abajo et al., 2025, §4), here
without a rule per bot. Used by the confirmation oracle (``check``'s
``confirmation_mismatches``), the agenda user simulator and breakdown detection.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any, Protocol

from sparring._readback import (
    SENTENCE,
    ConfirmationCheck,
    GivenValue,
    SlotOutcome,
    SlotReading,
    as_value,
    compare_confirmation,
    is_confirmation,
    texts,
)
from sparring._typed_text import fold, phrase
from sparring.dialogue_acts import DialogueAct, classify_dialogue_act, offered_options
from sparring.similarity import indel_similarity, normalize_text
from sparring.values import Synonyms

__all__ = [
    "ConfirmationCheck",
    "GivenValue",
    "SlotOutcome",
    "SlotReading",
    "TurnLike",
    "check_conversation",
    "compare_confirmation",
    "given_values",
    "is_confirmation",
]


class TurnLike(Protocol):
    """A conversation turn as ``check_conversation`` reads it: ``role`` (``user`` or
    ``assistant``) and ``text``; ``buttons`` (objects with a ``text``) and ``dialogue_act``
    are read when the object has them (``sparring.conversations.Turn`` does)."""

    @property
    def role(self) -> str: ...

    @property
    def text(self) -> str: ...


def given_values(
    turns: Sequence[TurnLike],
    variables: Mapping[str, Any],
    *,
    until: int | None = None,
    refused: bool = False,
) -> list[GivenValue]:
    """The values among ``variables`` (slot → value; a list for several) that the user
    said in ``turns[:until]``, in ``variables``' order: each with the 0-based turn that
    first said it and, when the value is one of them, the options the chatbot offered in
    the turn before when it asked (``sparring.dialogue_acts.offered_options``: its buttons
    or a written list). A value the user never said is left out; of a list, the items the
    user's last turn naming any of them names (a user may drop an item). A value the
    chatbot refused (its next reply a fallback, or the same question again) is not given
    (the user's next answer to that question is) unless ``refused``. Never raises."""
    out = []
    for slot, value in variables.items():
        items = texts(as_value(value))
        first = [_said_at(turns[:until], item, refused) for item in items]
        if not items or None in first:
            continue
        turn = min(i for i in first if i is not None)
        options = _options(turns, turn, items)
        said = as_value(value) if isinstance(value, str) else _latest(turns[:until], items)
        out.append(GivenValue(str(slot), said, None, options, turn))
    return out


def check_conversation(
    turns: Sequence[TurnLike],
    variables: Mapping[str, Any],
    *,
    reference: date | None = None,
    synonyms: Synonyms | None = None,
) -> list[ConfirmationCheck]:
    """Every chatbot turn that confirms or summarises compared with the values the user
    gave before it (``given_values``): a turn with a confirmation cue (``is_confirmation``;
    the turn's ``dialogue_act``, else classified from its text), or one that neither asks
    for nor offers a value and states ``_READ_BACK_VALUES`` of the user's values as given
    (a summary without a cue); turns before any value are skipped. ``reference`` as in
    ``compare_confirmation``. Never raises."""
    checks = []
    for index, turn in enumerate(turns):
        if turn.role != "assistant":
            continue
        act = getattr(turn, "dialogue_act", None) or classify_dialogue_act(turn.text)
        cued = is_confirmation(turn.text, act)
        if not cued and act in _NO_SUMMARY:
            continue
        given = given_values(turns, variables, until=index)
        if not given:
            continue
        check = compare_confirmation(
            turn.text, given, turn=index, reference=reference, synonyms=synonyms
        )
        agreed = [r for r in check.readings if r.outcome is SlotOutcome.AGREES]
        if cued or len(agreed) >= _READ_BACK_VALUES:
            checks.append(check)
    return checks


_NO_SUMMARY = frozenset({DialogueAct.REQUEST, DialogueAct.OFFER, DialogueAct.FALLBACK})
"""Acts of a turn that is no summary unless a confirmation cue says so: it asks for or
offers the next value."""
_READ_BACK_VALUES = 2
"""The user's values a turn without a confirmation cue must state to be a summary read
back ("London → York on 1 March, departing 06:45, first class, 2 passengers.")."""


def _said_at(turns: Sequence[TurnLike], item: str, refused: bool) -> int | None:
    """The first user turn that says ``item`` and (unless ``refused``) whose value the
    chatbot took."""
    pattern = phrase(item)
    if pattern is None:
        return None
    return next(
        (
            i
            for i, t in enumerate(turns)
            if t.role == "user" and pattern.search(fold(t.text)) and (refused or _taken(turns, i))
        ),
        None,
    )


def _taken(turns: Sequence[TurnLike], index: int) -> bool:
    """Whether the chatbot took what user turn ``index`` said: its next reply is no
    fallback and does not ask the question before it again ("What time would you
    prefer?" after "6 pm" refuses it); no reply yet counts as taken."""
    reply = next((t for t in turns[index + 1 :] if t.role == "assistant"), None)
    if reply is None:
        return True
    if (getattr(reply, "dialogue_act", None) or classify_dialogue_act(reply.text)) == "fallback":
        return False
    asked = next((t for t in reversed(turns[:index]) if t.role == "assistant"), None)
    again, before = (_last_question(t.text) if t else "" for t in (reply, asked))
    return not (again and before and indel_similarity(again, before) >= _SAME_QUESTION)


_SAME_QUESTION = 0.8
"""Indel similarity at which a chatbot's question is the one it asked before (a re-ask)."""


def _last_question(text: str) -> str:
    questions = [m.group().strip() for m in SENTENCE.finditer(text) if "?" in m.group()]
    return normalize_text(questions[-1]) if questions else ""


def _latest(turns: Sequence[TurnLike], items: list[str]) -> list[str]:
    """The items the user's last turn naming any of them names: what the user asked for
    last ("keep the pizza with pepperoni and mushrooms" drops the peppers)."""
    patterns = [(item, phrase(item)) for item in items]
    for turn in reversed(turns):
        named = [i for i, p in patterns if turn.role == "user" and p and p.search(fold(turn.text))]
        if named:
            return named
    return items


def _options(turns: Sequence[TurnLike], said: int, items: list[str]) -> list[str]:
    """The options of the chatbot turn before turn ``said`` when it asked (an offer or a
    request) and an item is one of them."""
    before = next((t for t in reversed(turns[:said]) if t.role == "assistant"), None)
    if before is None:
        return []
    buttons = [str(getattr(b, "text", b)) for b in getattr(before, "buttons", ()) or ()]
    act = getattr(before, "dialogue_act", None) or classify_dialogue_act(before.text, buttons)
    if act not in (DialogueAct.OFFER, DialogueAct.REQUEST):
        return []  # a list in an answer ("we have branches at A, B or C.") is no offer
    options = offered_options(before.text, buttons)
    folded = {fold(o).strip() for o in options}
    return options if any(fold(i).strip() in folded for i in items) else []
