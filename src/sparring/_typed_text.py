"""Typed values read from text for ``sparring.confirmation``: folding, word patterns, the
kind of a value and its readings (a date both ways when day and month can swap, a bare
``H:MM`` on both clocks), and whether two readings agree. Private to the neutral modules."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from datetime import date, time, timedelta
from typing import Any

from sparring.values import Money, find_values

_NUMBER_WORDS = re.findall(
    r"\w+", "zero one two three four five six seven eight nine ten eleven twelve"
)
DATE_STOP = re.compile(r"(?<=\d)\.(?=\s|$)")
_NUMERIC_DATE = re.compile(r"\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}")
_YEAR = re.compile(r"^[^.?!\n]{0,16}?(?:\b(?:19|20)\d{2}\b|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4})")
_RELATIVE_DAY = re.compile(
    r"\b(?:today|tomorrow|yesterday|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b",
    re.IGNORECASE,
)
_NEXT_WEEKDAY = re.compile(
    r"\bnext\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b", re.IGNORECASE
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


def readings(kind: str, said: str, reference: date) -> set[Any]:
    """The readings of the user's value of ``kind`` (several for an ambiguous date/time:
    "next Monday" is the coming Monday or the one a week later, as people say both)."""
    if kind not in ("money", "number", "date", "time"):
        return set()
    source = DATE_STOP.sub(" ", said) if kind == "date" else said
    found = find_values({"number": "float"}.get(kind, kind), source, reference)
    if not found:
        return set()
    value, written = found[0].value, said[found[0].start :]
    out = readings_of(kind, value, written, reference)
    if kind == "date" and isinstance(value, date) and _RELATIVE_DAY.search(said):
        out = {(value.year, value.month, value.day)}  # resolved: its year is known
        if _NEXT_WEEKDAY.search(said):  # "next Monday": the coming one or the one after
            later = value + timedelta(days=7)
            out.add((later.year, later.month, later.day))
    return out


def readings_of(kind: str, value: Any, written: str, reference: date) -> set[Any]:
    """A found value's readings: a date as ``(year or None, month, day)`` both ways when
    its day and month can swap; a bare ``H:MM`` time as ``H`` and ``H+12``; money as
    ``(amount in cents, currency)`` and ``(amount in cents, None)``."""
    if kind == "date" and isinstance(value, date):
        year = value.year if _YEAR.match(written) else None
        out = {(year, value.month, value.day)}
        if _NUMERIC_DATE.match(written) and value.day <= 12:
            out.add((year, value.day, value.month))
        return out
    if kind == "time" and isinstance(value, time):
        clock = re.match(r"\s*\d{1,2}:\d{2}(?!:?\d*\s*[ap]\.?\s?m)", written, re.I)
        hours = {value.hour} | ({(value.hour + 12) % 24} if clock and value.hour <= 12 else set())
        return {(h, value.minute) for h in hours}
    if kind == "money" and isinstance(value, Money):
        return {(round(value.amount * 100), value.currency)}
    if kind == "number" and isinstance(value, int | float):
        return {round(float(value), 6)}
    return set()


def agree(kind: str, wanted: set[Any], stated: set[Any]) -> bool:
    """Whether a reading of the user's value and one of the stated value are the same: a
    year or currency that one side does not state is not compared."""
    if kind not in ("date", "money"):
        return bool(wanted & stated)
    same, loose = (slice(1, 3), 0) if kind == "date" else (slice(0, 1), 1)
    return any(
        a[same] == b[same] and (a[loose] is None or b[loose] is None or a[loose] == b[loose])
        for a in wanted
        for b in stated
    )


def show(value: Any) -> Any:
    """A found value as a reading quotes it: ISO dates and times, whole numbers bare."""
    if isinstance(value, date | time):
        return value.isoformat()
    return int(value) if isinstance(value, float) and value.is_integer() else value
