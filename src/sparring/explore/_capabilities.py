"""Capabilities a free-text chatbot announces, read offline (issue 20, evidence tier 1).

A bot without buttons still says what it can do — in its greeting, its fallback ("Sorry, I
can help with: menu, opening hours, order a drink") and its answers to the questions any
person would try first (``PROBES``: "help", "what can you do?", "menu", "options", "I need
help with something"). ``capabilities`` reads those texts for the capabilities and options
they list: bulleted and numbered lines and enumerations (``text_options``), capability
statements ("I can help you with X, Y and Z", "you can ask me about X or Y", "you can
order a pizza or ask for our hours", "we offer X"), lists after a colon ("…: a, b, c")
and in parentheses ("(Vaccination, Dental cleaning or Lab tests)"). Each item is cut to
what names the capability (at most ``MAX_WORDS`` words) and kept once, in order of
appearance.

When even that finds nothing (a bot whose greeting asks "What can I do for you?" and
whose help is its fallback), ``COMMON_REQUESTS`` are what a customer of almost any
service asks; the crawler tries them last, and every node records which tier found it.
"""

from __future__ import annotations

import re

from sparring.explore._options import text_options

PROBES: tuple[str, ...] = (
    "help",
    "what can you do?",
    "menu",
    "options",
    "I need help with something",
)
"""Capability probes, in the order they are sent (one session, each reply parsed)."""
TASK_PROBES = frozenset({"menu", "options"})
"""Probes that are a capability themselves when the bot answers them (not the fallback)."""

COMMON_REQUESTS: tuple[str, ...] = (
    "What are your opening hours?",
    "How much does it cost?",
    "I would like to make an appointment",
    "I want to place an order",
    "What services do you offer?",
    "Where are you located?",
    "How can I contact you?",
)
"""Requests a customer of almost any service makes; tried when the bot lists nothing."""

MAX_WORDS = 5
"""Words at most in one capability; longer items are sentences, not capabilities."""

_STATEMENT = re.compile(
    r"(?:\b(?:help(?:\s+you)?\s+with|assist(?:\s+you)?\s+with|ask\s+me\s+(?:about|for)"
    r"|(?:I|we)\s+can\s+(?:tell\s+you\s+(?:about\s+)?|give\s+you\s+|show\s+you\s+)"
    r"|(?:I|we)\s+(?:offer|provide|handle)|services?\s+(?:are|include)|options\s+are"
    r"|choose\s+(?:from|between)|things\s+like|such\s+as|including"
    r"|you\s+can(?:\s+also)?(?!\s+(?:say|repeat|rephrase|try))|feel\s+free\s+to"
    r"|(?:I|we)\s+can(?=\s+(?!help|assist|tell|give|show|not\b|only\b|t\b)))\b)\s*:?\s*(?P<tail>[^.!?\n]+)",
    re.IGNORECASE,
)
_COLON = re.compile(r"(?<!\d):(?!\d)\s*(?P<tail>[^:.!?\n]+)")
"""A list after a colon ("I can help with: a, b"); a colon between digits is a clock (4:30)."""
_PARENS = re.compile(r"\((?P<tail>[^()]+)\)")
_SPLIT = re.compile(r"\s*(?:,|;|\bor\b|\band\b|/)\s*", re.IGNORECASE)
_LEADING = re.compile(
    r"^(?:(?:the|a|an|our|your|some|any|also|just|about|with|to|e\.g\.|like|are|is"
    r"|and|or|(?:I|we)\s+can|(?:answer\s+)?questions\s+(?:about|on))\s+)+",
    re.IGNORECASE,
)
_JOIN = re.compile(r"\s+(?:and|or)\s+", re.IGNORECASE)
_TRAILING = re.compile(r"\s+(?:for you|today|please|etc)\s*$", re.IGNORECASE)


_EXAMPLE = re.compile(
    r"\b(?:e\.g\.|for example|for instance|try(?: saying| asking(?: for)?)?|just say|say|type)"
    r"\s*[:,]?\s*['\"“‘](?P<said>[^'\"“”‘’\n]{3,80})['\"”’]",
    re.IGNORECASE,
)
"""A quoted example of what to say ("Try asking for a ticket, e.g. 'a ticket from London to
York'", "To book, just say 'I want to book a room'"): the bot's own words for a request."""


def capabilities(*texts: str | None) -> list[str]:
    """Capabilities and options listed in ``texts`` (see the module docstring), in order
    of appearance, de-duplicated case-insensitively; empty when none is listed. A quoted
    example of what to say (``_EXAMPLE``) comes first, whole."""
    found: list[str] = []
    for text in texts:
        if not text:
            continue
        found += [m.group("said").strip(" .") for m in _EXAMPLE.finditer(text)]
        found += text_options(text)
        for pattern in (_STATEMENT, _PARENS, _COLON):
            for match in pattern.finditer(text):
                found += _items(match.group("tail"))
    return _unique(found)


def _items(tail: str) -> list[str]:
    """The items of a list: split at commas and semicolons, then the last one at "and",
    "or" and "/" ("Dental health and cleaning, Lab or diagnostic testing" keeps the first
    item whole)."""
    parts = [p for p in re.split(r"\s*[,;]\s*", tail) if p.strip()]
    if parts:
        parts[-1:] = _SPLIT.split(parts[-1])
    if len(parts) > 1:
        parts[0] = re.sub(r"\s+(?:and|or)\s*$", "", parts[0])
    # a part too long for one capability joins two ("reserve a rental car and answer
    # questions about rates")
    parts = [q for p in parts for q in (_JOIN.split(p) if len(p.split()) > MAX_WORDS else [p])]
    return [c for c in (_clean(p) for p in parts) if c]


def _clean(item: str) -> str:
    item = item.strip(" \t\"'“”‘’-–—*•:")
    item = _LEADING.sub("", item)
    item = _TRAILING.sub("", item).strip(" .")
    words = item.split()
    if not words or len(words) > MAX_WORDS or not re.search(r"[^\W\d_]", item):
        return ""
    if words[0].lower() in {"you", "i", "we", "me", "it", "that", "this", "anything", "things"}:
        return ""
    return item


def _unique(items: list[str]) -> list[str]:
    seen: set[str] = set()
    kept = []
    for item in items:
        key = item.lower()
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return kept
