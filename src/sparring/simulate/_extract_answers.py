"""What offline extraction reads beyond keywords: the question a reply answers, the values
an output's description enumerates, and predicates that are not values.

- ``QUESTION_OF_KIND``: a question that asks for a value of a type ("how much is it?" asks
  for money, "when are you open?" for times), so "That is $3.00." after "how much is it?"
  holds the price although no keyword stands in its sentence.
- ``enumerated``: the values a description lists ("the kind of appointment (physical
  examination, vaccination, dental health and cleaning)", "service or repair" in
  parentheses); a reply that names exactly one of them (tolerant of inflection and case)
  holds the output.
- ``is_state``: a predicate that says how something is, not what it is ("on its way",
  "ready", "confirmed", "being prepared"): never stored as the value of an output; the
  subject it is said of is read instead ("your small pizza with ham is on its way" → the
  order's contents).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sparring.simulate._matching import mentions

QUESTION_OF_KIND: dict[str, re.Pattern[str]] = {
    "money": re.compile(r"\b(?:how much|price|cost|fee|charge|pay)\b", re.I),
    "time": re.compile(r"\b(?:what time|when|hours?|open|close|closing|opening)\b", re.I),
    "date": re.compile(r"\b(?:what day|which day|when|date)\b", re.I),
    "int": re.compile(r"\bhow many\b", re.I),
    "float": re.compile(r"\bhow (?:many|much|long|far)\b", re.I),
}
"""Questions that ask for a value of each kind, whatever the output is called."""

_PAREN = re.compile(r"\(([^()]+)\)")
_LISTED = re.compile(r"\b(?:e\.g\.|such as|one of|either|like)\s*:?\s*([^.;()]+)", re.I)
_SPLIT = re.compile(r",\s*(?:or\s+|and\s+)?|\s+or\s+")
_STATE = re.compile(
    r"^(?:on (?:its|the|their) way|in (?:progress|preparation|the oven|transit)|ready|"
    r"confirmed|done|complete[d]?|placed|received|processed|processing|being \w+|now \w+|"
    r"under way|scheduled|booked|set|accepted|registered|noted|available|all set|"
    r"coming|arriving|waiting|pending|correct|right|fine|ok(?:ay)?)\b",
    re.I,
)
_LEAD = re.compile(
    r"^(?:(?:ok(?:ay)?|perfect|great|good|sure|alright|excellent|thanks?|thank you)[,!.]?\s+)+",
    re.I,
)
_DETERMINER = re.compile(r"^(?:your|the|my|our|this|that)\s+", re.I)


def enumerated(description: str) -> list[str]:
    """The values ``description`` enumerates (in parentheses, or after "e.g.", "such as",
    "one of", "either"): two or more short items, else an empty list."""
    for pattern in (_PAREN, _LISTED):
        for match in pattern.finditer(description):
            items = [i.strip(" .'\"") for i in _SPLIT.split(match.group(1))]
            items = [i for i in items if i]
            if len(items) >= 2 and all(len(i.split()) <= 5 for i in items):
                return items
    return []


def named_option(sentence: str, options: Sequence[str]) -> str | None:
    """The one option ``sentence`` names (``None`` when it names none or several: a list of
    choices is not a value). An option contained in a longer named one does not count."""
    found = [o for o in options if mentions(o, sentence)]
    found = [o for o in found if not any(o != p and mentions(o, p) for p in found)]
    return found[0] if len(found) == 1 else None


def is_state(phrase: str) -> bool:
    """Whether ``phrase`` (what follows "is"/"are") says how something is, not what it is."""
    return bool(_STATE.match(phrase.strip()))


def subject_of(sentence: str, cue_at: int) -> str | None:
    """The subject before the copula at ``cue_at``, without a leading interjection or
    determiner ("Perfect, your small pizza with ham is on its way" → "small pizza with
    ham"); ``None`` when nothing is left."""
    subject = _DETERMINER.sub("", _LEAD.sub("", sentence[:cue_at].strip())).strip(" ,")
    return subject or None
