"""Matching the chatbot's words to the profile's variables and values, tolerant of
inflection ("photograph" ↔ "Photography", "topping" ↔ "toppings", "examination" ↔
"examinations").

Two words match when they are equal after case folding, or when one is the other plus an
inflectional or derivational suffix (``SUFFIXES``: "-s", "-y", "-ing", "-ed", …) and the
shorter has at least ``MIN_STEM`` letters ("pepper" and "pepperoni" do not match: "-oni"
is not a suffix). A stemmer would not do:
Snowball gives "photograph" and "photographi". Multi-word values match when each of their
content words matches a word of the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import date
from typing import Any

from sparring.values import find_values, states_value

MIN_STEM = 4
"""Letters the shorter of two prefix-matched words must have."""
SUFFIXES = frozenset(
    [
        "s",
        "es",
        "y",
        "e",
        "ed",
        "d",
        "ing",
        "er",
        "ers",
        "ies",
        "ic",
        "ics",
        "al",
        "ly",
        "ion",
        "ions",
        "ation",
        "ations",
        "ist",
        "ists",
        "ful",
        "ness",
    ]
)
"""Endings that make two words one up to inflection."""
_WORD = re.compile(r"[\w$€£:/.'’-]*\w", re.UNICODE)
_WEEKDAYS = frozenset(
    ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
)
_POSSESSIVE = re.compile(r"['’]s$")
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "for",
        "to",
        "and",
        "or",
        "with",
        "in",
        "on",
        "at",
        "by",
        "my",
        "your",
        "our",
        "is",
        "are",
        "be",
        "do",
        "i",
        "you",
        "it",
        "this",
        "that",
        "some",
        "any",
        "please",
        "me",
        "we",
    ]
)


def words(text: str) -> list[str]:
    """The case-folded words of ``text`` (times such as ``13:00`` and dates stay whole)."""
    return [_POSSESSIVE.sub("", w.casefold()) for w in _WORD.findall(text)]


def content_words(text: str) -> list[str]:
    """``words`` without function words (articles, pronouns, prepositions)."""
    return [w for w in words(text) if w not in _STOP]


def word_match(a: str, b: str) -> bool:
    """Whether two case-folded words are the same word up to inflection (module docstring)."""
    if a == b:
        return True
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    if len(short) < MIN_STEM:
        return False
    if long_.startswith(short) and long_[len(short) :] in SUFFIXES:
        return True
    # "battery" ↔ "batteries", "make" ↔ "making": the short word's last "y"/"e" replaced
    stem = short[:-1]
    return short[-1] in "ye" and long_.startswith(stem) and long_[len(stem) :] in SUFFIXES


def mentions(phrase: str, text: str) -> bool:
    """Whether every content word of ``phrase`` matches a word of ``text``."""
    wanted = content_words(phrase) or words(phrase)
    have = words(text)
    return bool(wanted) and all(any(word_match(w, h) for h in have) for w in wanted)


def overlap(a: str, b: str) -> float:
    """Share of ``a``'s content words that match a word of ``b`` (0 when ``a`` has none)."""
    wanted = content_words(a)
    if not wanted:
        return 0.0
    have = words(b)
    return sum(1 for w in wanted if any(word_match(w, h) for h in have)) / len(wanted)


def best_option(value: Any, options: Sequence[str]) -> str | None:
    """The offered option that names ``value`` (a goal value, or each item of a list):
    equal text first, then every content word of the value matching one of the option's
    (or the other way round), the closest overlap winning. ``None`` when none does."""
    wanted = _flat(value)
    for option in options:
        if any(_norm(option) == _norm(v) for v in wanted):
            return option
    best: tuple[float, str] | None = None
    for option in options:
        for v in wanted:
            score = min(overlap(v, option), 1.0) + overlap(option, v)
            if (mentions(v, option) or mentions(option, v)) and (best is None or score > best[0]):
                best = (score, option)
    return best[1] if best else None


def values_mentioned(value: Any, text: str) -> bool:
    """Whether ``text`` mentions ``value`` (every item of a list): by its words, or as the
    same value in another surface form — a date or a time written another way
    ("tomorrow" ↔ "26-11-2026", "13:00" ↔ "1 pm"), a number in words, an option with
    other hyphens, spaces, case or plural ("check-up" ↔ "checkup"; one comparison,
    ``sparring.values.states_value``)."""
    return all(
        mentions(v, text) or _same_when(v, text) or states_value(v, text) for v in _flat(value)
    )


def _same_when(value: str, text: str) -> bool:
    today = date.today()
    for kind in ("time", "date"):
        wanted = _when(kind, value, today)
        if wanted and wanted & _when(kind, text, today):
            return True
    return False


def _when(kind: str, text: str, today: date) -> set[Any]:
    """The dates or times in ``text``; a numeric date whose day and month could be read
    either way ("08-07-2025") counts under both readings."""
    if kind == "date" and text.strip().lower() in _WEEKDAYS:
        text = f"on {text}"  # a bare weekday is the coming one
    found = {c.value for c in find_values(kind, text, today)}
    if kind == "date":
        for value in list(found):
            if value.day <= 12 and value.day != value.month:
                found.add(value.replace(month=value.day, day=value.month))
    return found


_WHEN_WORDS = re.compile(
    r"^(?:\d[\d:./-]*(?:st|nd|rd|th|am|pm|h)?|today|tomorrow|tonight|noon|midnight|morning|"
    r"afternoon|evening|am|pm|a\.m\.|p\.m\.|at|on|in|the|of|next|this|o'clock|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|"
    r"apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:tember)?|oct(?:ober)?|nov(?:ember)?|"
    r"dec(?:ember)?)[,.]?$",
    re.IGNORECASE,
)


def only_when_besides(value: Any, option: str) -> bool:
    """Whether ``value`` is ``option`` plus only a date or a time ("tomorrow 6 pm Physical
    examination" for the option "Physical examination"): an answer to several questions
    at once, of which the option answers the one asked (unlike "2 bottles of water" for
    "Water", where the other words qualify the option)."""
    text = " ".join(_flat(value))
    at = text.lower().find(option.lower())
    if at < 0 or not option.strip():
        return False
    rest = f"{text[:at]} {text[at + len(option) :]}"
    words_left = rest.split()
    return (
        bool(words_left)
        and value_kind_of(rest) is not None
        and all(_WHEN_WORDS.match(w) for w in words_left)
    )


def when_part_mentioned(value: Any, text: str) -> bool:
    """Whether ``value`` holds a date or a time besides other words ("Monday check-up")
    and ``text`` states that same date or time ("… for 30-11-2026 …")."""
    today = date.today()
    said = " ".join(_flat(value))
    for kind in ("date", "time"):
        wanted = _when(kind, said, today) or _when(kind, f"on {said}", today)
        if wanted and wanted & _when(kind, text, today):
            return True
    return False


def value_kind_of(value: Any) -> str | None:
    """``time`` or ``date`` when a goal value reads as one ("10:00", "tomorrow"), else
    ``None``."""
    text = str(value)
    for kind in ("time", "date"):
        if find_values(kind, text, date.today()):
            return kind
    return None


def _flat(value: Any) -> list[str]:
    if isinstance(value, list | tuple):
        return [str(v) for v in value if v is not None]
    return [] if value is None else [str(value)]


def _norm(text: str) -> str:
    return " ".join(words(text))


def any_mentioned(candidates: Iterable[Any], text: str) -> list[str]:
    """The candidates (rendered) that ``text`` mentions, in order."""
    return [str(c) for c in candidates if c is not None and mentions(str(c), text)]
