"""Text helpers for ``sparring.confirmation``: folding, word patterns, the kind of a
user's value and how a found value is quoted. The readings of a value and whether two
agree are ``sparring.values``' (``readings``, ``agree``: what ``same_value`` compares), one
typed comparison for the oracle, the rules and the user simulator. Private to the neutral
modules."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from datetime import date, time
from typing import Any

from sparring.values import DATE_STOP, find_values

_NUMBER_WORDS = re.findall(
    r"\w+", "zero one two three four five six seven eight nine ten eleven twelve"
)
_KINDS = {"int": "number", "float": "number", "number": "number", "money": "money"}
_KINDS |= {"date": "date", "time": "time", "text": "text"}


def fold(text: str) -> str:
    """``text`` lower-cased and without accents, of the same length (offsets hold)."""
    out = []
    for char in text.lower():
        base = "".join(
            c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c)
        )
        out.append(base if len(base) == 1 else char)
    return "".join(out)


def phrase(value: str) -> re.Pattern[str] | None:
    """A pattern for ``value``'s words in folded text: any punctuation between them, a
    plural ``s``/``es`` on each; ``None`` for a value without words."""
    words = re.findall(r"\w+", fold(value))
    if not words:
        return None
    body = r"\W+".join(re.escape(w.removesuffix("s")) + r"(?:e?s)?" for w in words)
    return re.compile(rf"(?<!\w){body}(?!\w)")


def kind_of(value: str | Sequence[str], declared: str | None, reference: date) -> str:
    """The kind of the user's value: the declared one, else told from the value (money,
    date, time, number, else text); a list's items are text."""
    known = _KINDS.get((declared or "").lower())
    if known:
        return known
    if not isinstance(value, str):
        return "text"
    said = value.strip()
    if find_values("money", said, reference):
        return "money"
    if find_values("date", DATE_STOP.sub(" ", said), reference):
        return "date"
    if find_values("time", said, reference) and re.search(r"\d|noon|midnight", said, re.I):
        return "time"
    if re.fullmatch(r"[-+]?\d+(?:[.,]\d+)?", said) or said.lower() in _NUMBER_WORDS:
        return "number"
    return "text"


def show(value: Any) -> Any:
    """A found value as a reading quotes it: ISO dates and times, whole numbers bare."""
    if isinstance(value, date | time):
        return value.isoformat()
    return int(value) if isinstance(value, float) and value.is_integer() else value
