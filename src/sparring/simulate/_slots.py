"""Which kind of value a chatbot's question asks for, and which kind a user's value is.

The agenda user answers the slot that was requested with a value of that slot's type:
"What's your name?" is never answered with a phone number, "How many guests?" never with a
date. A question's kinds come from its words (``name``, ``phone``, ``email``, ``date``,
``time``, ``number``, ``amount`` for "how much"); a value's kind from its form (an e-mail
address, a phone number, a date or a time ``sparring.values`` reads, a bare number). A
value whose kind cannot be told (free text: a name, an option) fits any question. This is
the typing of user-goal constraints in agenda-based user simulation (Schatzmann et al.,
NAACL 2007, §3: the user answers ``request(slot)`` with the constraint on that slot), read
from the words of a black-box chatbot instead of a shared ontology.
"""

from __future__ import annotations

import random
import re
from datetime import date
from typing import Any

from sparring.values import find_values

__all__ = ["fits", "form_of", "plausible_value", "question_kinds"]

_ASKS = {
    "name": re.compile(
        r"\b(?:(?:your|the|guest'?s?|patient'?s?|driver'?s?|full|first|last) name|"
        r"who (?:is|will|should)|under (?:what|which|whose) name|name (?:should|for|under|on))\b",
        re.I,
    ),
    "phone": re.compile(r"\b(?:phone|telephone|mobile|cell|contact number)\b", re.I),
    "email": re.compile(r"\be-?mail\b", re.I),
    "date": re.compile(r"\b(?:date|day|when)\b", re.I),
    "time": re.compile(r"\b(?:time|hour|o'clock|when)\b", re.I),
    "number": re.compile(r"\b(?:how many|number of|quantity|amount of)\b", re.I),
    "amount": re.compile(r"\bhow much\b(?! (?:is|are|does|do|did|will|would it)\b)", re.I),
}
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_PHONE = re.compile(r"\+?[\d ().-]{7,}")
_NUMBER = re.compile(r"[-+]?\d+(?:[.,]\d+)?")
_WHEN = frozenset({"date", "time"})
_PLAUSIBLE = {
    "name": ("Alex Morgan", "Sam Taylor", "Jordan Lee"),
    "phone": ("555-0142", "555-0187", "555-0113"),
    "email": ("alex.morgan@example.com", "sam.taylor@example.com", "jordan.lee@example.com"),
    "date": ("next Monday", "next Tuesday", "next Thursday"),
    "time": ("10:00", "11:00", "14:00"),
    "number": ("2", "1", "3"),
    "amount": ("50", "20", "100"),
}
"""Values of each kind a person with no stated preference gives (the first without a
seeded generator): a weekday, an hour inside common opening hours, a small quantity, a
reserved (555-01xx, example.com) contact."""


def question_kinds(question: str) -> frozenset[str]:
    """The kinds of value ``question`` asks for (empty when its words name none)."""
    return frozenset(kind for kind, pattern in _ASKS.items() if pattern.search(question))


def form_of(value: Any) -> str | None:
    """The kind of a user's value by its form (module docstring), ``None`` for free text
    or a list."""
    if isinstance(value, bool | list | tuple) or value is None:
        return None
    if isinstance(value, int | float):
        return "number"
    text = str(value).strip()
    if _EMAIL.fullmatch(text):
        return "email"
    if _NUMBER.fullmatch(text):
        return "number"
    today = date.today()
    for kind in ("date", "time"):  # "2027-04-02" is a date before it is digits
        if find_values(kind, text, today):
            return kind
    if _PHONE.fullmatch(text) and sum(c.isdigit() for c in text) >= 7:
        return "phone"
    return None


def fits(value: Any, kinds: frozenset[str]) -> bool:
    """Whether ``value`` can answer a question asking for ``kinds``: any value when the
    question names no kind, a value of one of them, a date for a time or the other way
    round ("when"), and free text for a name."""
    kind = form_of(value)
    if not kinds or kind is None or kind in kinds:
        return True
    if kind == "number" and "amount" in kinds:
        return True  # "How much would you like to send?": 1200
    return kind in _WHEN and bool(kinds & _WHEN) and "name" not in kinds


def plausible_value(kinds: frozenset[str], rng: random.Random | None = None) -> str | None:
    """A plausible value for a question asking for ``kinds`` that the user's profile has
    no value for ("What time?" when the profile names only a day): the user answers the
    requested slot with a value of its type rather than leave an open question (Schatzmann
    et al., 2007, §3). A date and a time asked together ("when") get both; ``None`` when
    the question names no kind. With ``rng``, one of a few values of the kind, drawn by
    the user's seed."""

    def pick(kind: str) -> str:
        return rng.choice(_PLAUSIBLE[kind]) if rng is not None else _PLAUSIBLE[kind][0]

    if kinds == _WHEN:
        return f"{pick('date')} at {pick('time')}"
    for kind in ("name", "phone", "email", "number", "amount", "date", "time"):
        if kind in kinds:
            return pick(kind)
    return None
