"""Answers the offline crawler gives to a free question (issue 20, evidence tier 2).

In order, never the same answer twice to the same question:

1. values taken from the bot's own words — the options or examples its question lists
   ("What service? (Vaccination, Dental cleaning or Lab tests)", "e.g. Madrid"), and what
   its rejections name ("Sorry, we do not serve tea. We have espresso or latte");
2. typed placeholders of the kind the question asks for (a date, a time, a name, a
   number, an e-mail…) from a small built-in lexicon (``LEXICON``), several per kind so a
   rejected value is followed by another; a question that asks for several kinds at once
   ("the date, time and the service you need") is first answered with one value of each
   (and the first value the bot listed);
3. ``GENERIC_ANSWER`` once, when the question's kind is unknown.

A rejection such as "The topping X is not available" therefore leads to another value,
never to the same filler again.
"""

from __future__ import annotations

import re

from sparring.dialogue_acts import DialogueAct, classify_dialogue_act
from sparring.explore._capabilities import capabilities
from sparring.explore._options import FORMAT_MASK
from sparring.profiles import FILLER

LEXICON: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"\be-?mail\b", ("alex@example.com", "sam.lee@example.org")),
    (r"\b(?:phone|mobile|number to call)\b", ("+1 555 0100", "+44 20 7946 0958")),
    (r"\b(?:name|who)\b", ("Alex Smith", "Sam Lee")),
    (r"\b(?:date|day|when)\b", ("tomorrow", "next Monday", "December 12th")),
    (r"\b(?:time|hour|what time)\b", ("6 pm", "10:30 am", "noon")),
    (r"\b(?:how many|quantity|number of|people|guests|persons)\b", ("2", "4", "1")),
    (r"\b(?:address|where|street|location)\b", ("12 Main Street", "221B Baker Street")),
    (r"\b(?:city|town)\b", ("London", "Madrid")),
    (r"\b(?:size|big|large)\b", ("medium", "large", "small")),
    (r"\b(?:yes|no|confirm|correct|right|sure|ok)\b.*\?", ("yes", "no")),
    (r"\b(?:price|budget|cost|amount|pay|how much)\b", ("50", "100")),
)
"""Placeholders by what the question asks (regular expression on the question)."""

GENERIC_ANSWER = FILLER
"""The answer to a question of unknown kind, given once (a placeholder: the offline user
never sends it as written, ``sparring.profiles.is_placeholder``)."""


def asks_several(question: str | None) -> bool:
    """Whether ``question`` asks for values of two kinds or more at once ("Could you give
    me the date, time and the service you need?")."""
    return bool(question) and sum(bool(re.search(p, question or "", re.I)) for p, _ in LEXICON) >= 2


_DIGITS = re.compile(r"\b(\d{1,2})[- ]digits?\b", re.IGNORECASE)
"""A question that says how many digits its value has ("the 8-digit account number")."""


def free_answers(question: str | None, *texts: str | None) -> list[str]:
    """Answers to try for ``question``, best first (see the module docstring). ``texts``
    are the bot's other words at this point (its whole reply, its rejections). A question
    that names its value's length in digits ("What's the 8-digit account number?") is
    answered with that many digits first; a yes/no question of no other kind ("Looking to
    rent a car?") with yes, then no."""
    kinds = [v for p, v in LEXICON if question and re.search(p, question, re.IGNORECASE)]
    if not kinds and question and classify_dialogue_act(question) is DialogueAct.YES_NO_QUESTION:
        kinds = [("yes", "no")]  # "Looking to rent a car?": yes goes on with the task
    digits = _DIGITS.search(question or "")
    if digits and 1 <= int(digits.group(1)) <= _MAX_DIGITS:  # one kind: so many digits
        kinds = [tuple(_digits(int(digits.group(1)), first) for first in (1, 3))]
    listed = [
        o
        for o in capabilities(question, *texts)
        if len(o.split()) <= 3 and not _names_kind(o) and not FORMAT_MASK.fullmatch(o)
    ]
    found: list[str] = []
    if len(kinds) >= 2:
        # "the date, time, and the service you need?": one answer with a value of each
        offered = [o for o in listed if o.lower() not in (question or "").lower()]
        found.append(" ".join([*(values[0] for values in kinds), *offered[:1]]))
    found += listed
    for values in kinds[:1]:
        found += values
    found.append(GENERIC_ANSWER)
    seen: set[str] = set()
    ordered = []
    for answer in found:
        if answer.lower() not in seen:
            seen.add(answer.lower())
            ordered.append(answer)
    return ordered


_MAX_DIGITS = 30


def _digits(width: int, first: int) -> str:
    """``width`` digits counting up from ``first`` (``_digits(8, 1)`` is ``12345678``)."""
    return "".join(str((first + i) % 10) for i in range(width))


def _names_kind(item: str) -> bool:
    """Whether a listed item only names what is asked ("date", "time", "the service you
    need" in "the date, time and the service you need?"): a request for a value, not one."""
    words = re.sub(r"\b(?:the|a|an|your|you|need|want|please)\b", " ", item.lower()).split()
    return bool(words) and all(w in _ASKED_WORDS for w in words)


_ASKED_WORDS = frozenset(
    {"date", "day", "time", "hour", "name", "email", "e-mail", "phone", "number", "address",
     "city", "size", "quantity", "amount", "service", "services", "type", "kind", "option"}
)  # fmt: skip
"""Words that name a thing asked for without being a value of it."""
