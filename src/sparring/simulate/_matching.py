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

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from sparring.values import Synonyms, find_values, states_value

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
    wanted = _wanted(phrase)
    forms = _matching_forms(text)
    return bool(wanted) and all(w in forms for w in wanted)


def overlap(a: str, b: str) -> float:
    """Share of ``a``'s content words that match a word of ``b`` (0 when ``a`` has none)."""
    wanted = content_words(a)
    if not wanted:
        return 0.0
    forms = _matching_forms(b)
    return sum(1 for w in wanted if w in forms) / len(wanted)


@functools.lru_cache(maxsize=8192)
def matched_by(word: str) -> frozenset[str]:
    """Every word ``w`` with ``word_match(w, word)``, generated from ``word``'s endings (a
    few dozen): matching a text's words is then one set lookup per wanted word, whatever
    the number of words or values it is matched against (issue 36: a variable of 2,000
    values tested on every turn). Exactly ``word_match`` (``tests/simulate``)."""
    forms = {word}
    if len(word) >= MIN_STEM:  # ``word`` is the shorter: ``w`` is it plus an ending
        forms.update(word + s for s in SUFFIXES)
        if word[-1] in "ye":
            forms.update(word[:-1] + s for s in SUFFIXES if len(s) > 1)
        if word[-1] in SUFFIXES:  # as long: "make" for "maks" (the y/e rule on ``w``)
            forms.update(word[:-1] + x for x in "ye")
    for s in SUFFIXES:  # ``w`` is the shorter: ``word`` is it plus an ending
        stem = word[: -len(s)]
        if not word.endswith(s) or len(stem) + 1 < MIN_STEM:
            continue
        if len(stem) >= MIN_STEM:
            forms.add(stem)
        if len(s) > 1:  # "battery" for "batteries": ``w``'s last y/e replaced
            forms.update(stem + x for x in "ye")
    return frozenset(forms)


@functools.lru_cache(maxsize=16)
def _matching_forms(text: str) -> frozenset[str]:
    """Every word that matches one of ``text``'s words (``matched_by``)."""
    forms: set[str] = set()
    for word in set(words(text)):
        forms.update(matched_by(word))
    return frozenset(forms)


@functools.lru_cache(maxsize=8192)
def _wanted(phrase: str) -> tuple[str, ...]:
    """The words of ``phrase`` that ``mentions`` looks for: its content words, else all."""
    return tuple(content_words(phrase) or words(phrase))


@dataclass(frozen=True)
class _MentionIndex:
    """The candidates of ``any_mentioned`` by the words they need: ``needs[i]`` distinct
    words for candidate ``i``, ``by_word[w]`` the candidates that need ``w``."""

    needs: tuple[int, ...]
    by_word: dict[str, tuple[int, ...]]


@functools.lru_cache(maxsize=64)
def _mention_index(candidates: tuple[str, ...]) -> _MentionIndex:
    by_word: dict[str, list[int]] = {}
    needs = []
    for i, candidate in enumerate(candidates):
        wanted = set(_wanted(candidate))
        needs.append(len(wanted))
        for word in wanted:
            by_word.setdefault(word, []).append(i)
    return _MentionIndex(tuple(needs), {w: tuple(i) for w, i in by_word.items()})


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


def values_mentioned(value: Any, text: str, synonyms: Synonyms | None = None) -> bool:
    """Whether ``text`` mentions ``value`` (every item of a list): by its words, or as the
    same value in another surface form — a date or a time written another way
    ("tomorrow" ↔ "26-11-2026", "13:00" ↔ "1 pm"), a number in words, an option with
    other hyphens, spaces, case or plural ("check-up" ↔ "checkup"; one comparison,
    ``sparring.values.states_value``), or in a word the chatbot takes for it
    (``synonyms``: "physical examination" for "check-up")."""
    return all(
        mentions(v, text) or _same_when(v, text) or states_value(v, text, synonyms=synonyms)
        for v in _flat(value)
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
    """The candidates (rendered) that ``text`` mentions (``mentions``), in order. The
    candidates are indexed by their words once (``_mention_index``, cached): each call
    costs lookups of ``text``'s words, not a comparison per candidate."""
    rendered = tuple(str(c) for c in candidates if c is not None)
    index = _mention_index(rendered)
    found: dict[int, set[str]] = {}
    for word in set(words(text)):
        for form in matched_by(word):
            for i in index.by_word.get(form, ()):
                found.setdefault(i, set()).add(form)
    return [
        rendered[i] for i in sorted(found) if index.needs[i] and len(found[i]) == index.needs[i]
    ]
