"""What a chatbot offers in one reply, read offline: its buttons, or the options it
announces in its text ("What size would you like: small, medium or large?", bulleted and
numbered lists), and the question it asks.

Used by the offline crawler (``_crawl``) to find what to press next and to read the bot's
questions as parameters with their options.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sparring.connectors import Reply
from sparring.dialogue_acts import asks_something, is_closing_question, offered_options

FORMAT_MASK = re.compile(r"\W*(?:(?:[dD]{2}|[mM]{2}|[yY]{2,4}|[hH]{2}|[sS]{2})\W*)+")
"""A format written for the user ("DD/MM/YYYY", "hh:mm"): how to write a value, not one."""
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_LIST_LINE = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s+(.{1,60}?)\s*$", re.MULTILINE)
_ITEM = r"[^\W\d_][\w'’&/ -]{0,60}?"
_ENUMERATION = re.compile(rf"((?:{_ITEM},\s+)+{_ITEM},?\s+(?:and|or)\s+{_ITEM})\s*(?:[.?!;]|$)")
_PAIR = re.compile(rf"(?:[:]|\b(?:between|either))\s*({_ITEM}\s+(?:and|or)\s+{_ITEM})\s*[.?!]?$")
_LEAD = re.compile(
    r"^.*(?:\b(?:have|has|choose|choices|options|offer|offers|select|pick|from|include|are|is"
    r"|between|either|like)\b|:)\s*",
    re.IGNORECASE,
)
_LEAD_END = re.compile(
    r"(?:\b(?:have|has|choose|choices|options|offer|offers|select|pick|from|include|are|is"
    r"|between|either|like)|:)\s*$",
    re.IGNORECASE,
)
_ARTICLE = re.compile(r"^(?:(?:or|and|a|an|the|some|just|also|our)\s+)+", re.IGNORECASE)
_TAIL = re.compile(r"\s+(?:with|for|on|in|to|you|that|which|if|please|at|from)\b.*$", re.IGNORECASE)
_MAX_WORDS = 4
_WH = re.compile(r"\b(?:which|what|how many|how much|any|a|an|some|your)\s+([a-z][\w-]*)", re.I)
_STOP_WORDS = (
    "would you like do want can i we is are the a an to of for me your please kind type "
    "one ones there have has with on in what which how when where who why"
)
_STOP = frozenset(_STOP_WORDS.split())


@dataclass(frozen=True)
class Offer:
    """What a reply offers: ``options`` to pick (button texts or announced values, in
    order), the matching ``payloads`` (button links; ``None`` for text options), whether
    they came from buttons, and the ``question`` the bot asked (its last sentence with a
    question mark, else its last sentence that announces the options)."""

    options: tuple[str, ...]
    payloads: tuple[str | None, ...]
    from_buttons: bool
    question: str | None


def read_offer(reply: Reply) -> Offer:
    """The options, payloads and question of ``reply`` (see ``Offer``): its buttons, else
    the options its text offers as the user simulator and the oracles read them
    (``sparring.dialogue_acts.offered_options``: "Standard or first class?", "Trains leave
    at 06:45, 09:10 and 16:50. Which one …?"), else the enumerations ``text_options``
    cleans further ("…, or a custom pizza with the toppings you choose" → custom pizza).
    A list with a format in it ("(DD/MM/YYYY, or 'today'/'tomorrow')") is a hint on how
    to write a free value, not options."""
    text = "\n".join(reply.messages)
    question = _question(text)
    if reply.buttons:
        pressable = [b for b in reply.buttons if b.text.strip()]
        options = tuple(b.text.strip() for b in pressable)
        return Offer(options, tuple(b.link for b in pressable), True, question)
    announced = offered_options(text) or text_options(text)
    if any(FORMAT_MASK.fullmatch(option) for option in announced):
        announced = []  # "(DD/MM/YYYY, or 'today'/'tomorrow')" says how to write a value
    return Offer(tuple(announced), tuple(None for _ in announced), False, question)


def text_options(text: str) -> list[str]:
    """Options announced in ``text``: list lines (``- a``, ``1. a``) or an enumeration
    ("a, b or c", "a, b and c", "choose: a or b"); empty when none is found. Items are
    cut to what names the option ("or a custom pizza with your toppings" → "custom
    pizza") and de-duplicated case-insensitively."""
    lines = [m.group(1).strip(" .:;") for m in _LIST_LINE.finditer(text)]
    if len(lines) >= 2:
        return _unique(lines)
    for sentence in _SENTENCE.split(text):
        sentence = sentence.strip()
        match = _ENUMERATION.search(sentence) or _PAIR.search(sentence)
        if match:
            items = re.split(r",\s+|,?\s+(?:and|or)\s+", match.group(1))
            led = _LEAD.match(items[0]) or _LEAD_END.search(sentence[: match.start(1)])
            if not (led or sentence.endswith("?")):
                continue  # "from 11:00 am to 11:00 pm, and until …" lists nothing
            cleaned = [_clean(item, first=i == 0) for i, item in enumerate(items)]
            found = [item for item in cleaned if item]
            if len(found) >= 2:
                return _unique(found)
    return []


def parameter_name(question: str | None, fallback: str = "choice") -> str:
    """A short name for what ``question`` asks ("What size would you like?" → ``size``,
    "Would you like a drink?" → ``drink``); ``fallback`` when nothing fits."""
    if not question:
        return fallback
    for match in _WH.finditer(question):
        word = match.group(1).lower()
        if word not in _STOP:
            return word
    words = [w.lower() for w in re.findall(r"[A-Za-z][\w-]+", question)]
    content = [w for w in words if w not in _STOP and len(w) > 2]
    return content[-1] if content else fallback


def _question(text: str) -> str | None:
    """The last question of ``text`` that asks for something, else its last sentence;
    a closing question or a pleasantry ("Anything else I can do for you?", "How are
    you?": ``sparring.dialogue_acts.is_closing_question``) is no question to answer."""
    sentences = [
        s.strip() for s in _SENTENCE.split(text) if s.strip() and not is_closing_question(s)
    ]
    asked = [s for s in sentences if asks_something(s)]
    if asked:
        return asked[-1]
    return sentences[-1] if sentences else None


def _clean(item: str, *, first: bool) -> str:
    item = item.strip(" .?!;:\"'")
    if first:
        if not _LEAD.match(item) and len(item.split()) > _MAX_WORDS:
            return ""  # "Could you please provide me with the date" names no option
        item = _LEAD.sub("", item)
    item = _ARTICLE.sub("", item)
    item = _TAIL.sub("", item).strip(" .?!;:")
    words = item.split()
    if not words or len(words) > _MAX_WORDS:
        return ""
    return item


def _unique(items: list[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for item in items:
        key = item.lower()
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out
