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


_COUNT_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_DIGITS = re.compile(rf"\b(\d{{1,2}}|{'|'.join(_COUNT_WORDS)})[- ]digits?\b", re.IGNORECASE)
"""A question that says how many digits its value has ("the 8-digit account number", "your
six-digit member number", "member numbers have six digits")."""
_PREFIX = re.compile(
    r"\b(?:start(?:s|ing)?|begin(?:s|ning)?) with (?:a |an )?['\"]?(?P<prefix>\+?\d{1,4})\b",
    re.IGNORECASE,
)
"""The digits a value must start with, as the bot says ("starting with 07")."""
_FORMAT_WORDS = re.compile(r"\b(?:digits?|characters?|letters?|numbers? long)\b", re.I)
"""An item that says how a value is written ("(six digits, on the back of your card)"), not
a value."""
_SHOWN = re.compile(
    r"\b(?:like|e\.g\.|for example|for instance|such as)[:,]?\s+"
    r"(?P<shown>(?=[\w-]*\d)[A-Za-z0-9][\w-]{2,24})\b",
    re.IGNORECASE,
)
"""A value the bot shows as an example of what it wants ("six digits, like 204518")."""
_PLACES = re.compile(
    r"\b(?P<first>[A-Z][a-z]+(?: [A-Z][a-z]+)?)(?:, [A-Z][a-z]+(?: [A-Z][a-z]+)?)*,? "
    r"(?:and|or) [A-Z][a-z]+\b"
)
"""An enumeration of capitalised names ("Leeds, Bradford and Wakefield"): the places a
rejection of an address names; the first is added to an address answered again."""


def free_answers(question: str | None, *texts: str | None) -> list[str]:
    """Answers to try for ``question``, best first (see the module docstring). ``texts``
    are the bot's other words at this point (its whole reply, its rejections). A question
    that names its value's length in digits ("What's the 8-digit account number?") is
    answered with that many digits first; a yes/no question of no other kind ("Looking to
    rent a car?") with yes, then no."""
    kinds = [v for p, v in LEXICON if question and re.search(p, question, re.IGNORECASE)]
    if not kinds and question and classify_dialogue_act(question) is DialogueAct.YES_NO_QUESTION:
        kinds = [("yes", "no")]  # "Looking to rent a car?": yes goes on with the task
    digits = _DIGITS.search(" ".join(t for t in (question, *texts) if t))
    width = _count(digits.group(1)) if digits else 0
    if 1 <= width <= _MAX_DIGITS:  # one kind: so many digits
        kinds = [tuple(_digits(width, first) for first in (1, 3))]
    shown = [m["shown"] for t in (question, *texts) if t for m in _SHOWN.finditer(t)]
    prefix = _PREFIX.search(" ".join(t for t in (question, *texts) if t))
    if prefix:  # "Could you type it again, starting with 07?": a value that starts so
        shown += [_with_prefix(prefix["prefix"], width) for width in (11, 10)]
    if kinds and kinds[0] == _ADDRESSES:
        kinds = [_in_place(kinds[0], texts), *kinds[1:]]
    listed = [
        o
        for o in capabilities(question, *texts)
        if len(o.split()) <= 3
        and not _names_kind(o)
        and not FORMAT_MASK.fullmatch(o)
        and not _FORMAT_WORDS.search(o)
    ]
    found: list[str] = list(shown)
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
_ADDRESSES = next(v for p, v in LEXICON if "address" in p)


def _with_prefix(prefix: str, width: int) -> str:
    """A number of ``width`` digits that starts with ``prefix`` ("07" → "07700900123")."""
    digits = prefix.lstrip("+")
    return prefix + "700900123456789"[: max(0, width - len(digits))]


def _count(said: str) -> int:
    """A count of digits said as digits or in words ("8", "six")."""
    low = said.lower()
    return int(low) if low.isdigit() else _COUNT_WORDS.index(low) + 1


def _in_place(addresses: tuple[str, ...], texts: tuple[str | None, ...]) -> tuple[str, ...]:
    """``addresses`` in the first place the bot's words name ("Sorry, we only cover Leeds,
    Bradford and Wakefield": "12 Main Street, Leeds" first), else as they are."""
    places = [m["first"] for t in texts if t for m in _PLACES.finditer(t)]
    if not places:
        return addresses
    return (*(f"{a}, {places[0]}" for a in addresses), *addresses)


def _digits(width: int, first: int) -> str:
    """``width`` digits counting up from ``first`` (``_digits(8, 1)`` is ``12345678``)."""
    return "".join(str((first + i) % 10) for i in range(width))


def _names_kind(item: str) -> bool:
    """Whether a listed item only names what is asked ("date", "time", "the service you
    need" in "the date, time and the service you need?"): a request for a value, not one."""
    words = re.sub(r"\b(?:the|a|an|your|you|need|want|please)\b", " ", item.lower()).split()
    if len(words) <= 3 and words and words[-1] in _HEAD_NOUNS and not re.search(r"\d", item):
        return True  # "member number", "full name": a thing asked for, named by its head noun
    return bool(words) and all(w in _ASKED_WORDS for w in words)


_HEAD_NOUNS = frozenset({"number", "name", "address", "date", "code", "postcode", "email"})
"""Nouns that, last in a short item, name a value asked for ("your member number")."""


_ASKED_WORDS = frozenset(
    {"date", "day", "time", "hour", "name", "email", "e-mail", "phone", "number", "address",
     "city", "size", "quantity", "amount", "service", "services", "type", "kind", "option",
     "postcode", "post", "code", "zip", "postal", "street", "house", "town", "mobile",
     "including", "digits", "digit", "card", "details"}
)  # fmt: skip
"""Words that name a thing asked for without being a value of it."""
