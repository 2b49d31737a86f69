"""Dialogue acts of a chatbot turn, offline: what the chatbot is doing with its words.

A small, documented rule method (no model, microseconds per turn) that the agenda user
simulator reads to decide how to answer, and that is recorded on every chatbot turn of a
conversation record (``Turn.dialogue_act``) so rules and the report can use it. The act
set is a coarse cut of the ISO 24617-2 general-purpose functions and of the system acts
of agenda-based user simulation (Schatzmann et al., NAACL 2007, §3: request, confirm,
offer, inform, bye), plus the two a black-box tester needs (fallback, closing):

- ``fallback``: the chatbot did not understand (the caller's fallback decision, or a
  generic "did not understand / say that again" phrase, ``sparring.fallback``);
- ``confirmation``: it asks the user to confirm something it states ("…, is that right?");
- ``offer``: it offers options (two or more buttons, or a question listing options:
  "(Physical examination, Vaccination, …)", "small, medium or large?");
- ``closing_question``: the question a task bot asks when a task is done ("Anything else I
  can do for you?", "Can I help you with anything else?", "Is there anything else?"): the
  user answers it with the next goal, or closes when none is left;
- ``yes_no_question``: a polar question ("Would you like a drink?", "Any more toppings?");
- ``request``: it asks for a value ("What is your name?", "Please tell me the date");
- ``closing``: a farewell with no question ("See you then!", "Goodbye");
- ``inform``: anything else (an answer, a statement).

The decision looks at the last question-bearing sentence (chatbots answer, then ask), so
"Your pizza is ready. Would you like a drink?" is a yes/no question. Measured with the
agenda simulator's completion on the shared third-party bots (see
``benchmarks/bench_offline_user.py``); its confusions are listed there.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import StrEnum

from sparring.fallback import is_fallback

__all__ = ["DialogueAct", "classify_dialogue_act", "is_closing_question", "offered_options"]


class DialogueAct(StrEnum):
    """The dialogue act of one chatbot turn (see the module docstring)."""

    REQUEST = "request"
    YES_NO_QUESTION = "yes_no_question"
    OFFER = "offer"
    CONFIRMATION = "confirmation"
    CLOSING_QUESTION = "closing_question"
    INFORM = "inform"
    FALLBACK = "fallback"
    CLOSING = "closing"


_SENTENCE = re.compile(r"(?<=[.?!])\s+|\n+")
_CONFIRM_CUES = re.compile(
    r"\b(?:is (?:that|this|it|everything) (?:correct|right|ok(?:ay)?|fine)|"
    r"(?:can|could) you confirm|do you (?:confirm|agree)|shall i (?:confirm|proceed|place|book)|"
    r"should i (?:proceed|confirm|place|book)|(?:please )?confirm\b[^.?!]*\?|right\?$|"
    r"correct\?$|am i right)",
    re.IGNORECASE,
)
_POLAR_START = re.compile(
    r"^(?:(?:ok(?:ay)?|great|perfect|sure|alright|so|and|also|thanks?|thank you)[,!.]?\s+)*"
    r"(?:do|does|did|would|will|is|are|was|were|can|could|shall|should|have|has|may|"
    r"want|need)\b",
    re.IGNORECASE,
)
_ANYTHING_ELSE = re.compile(
    r"\b(?:anything else|any other|something else|anything more|any more|more \w+\?|"
    r"another (?:one|\w+)\?)",
    re.IGNORECASE,
)
_REQUEST_IN_POLAR = re.compile(
    r"^(?:(?:and|so|ok(?:ay)?|great|perfect|alright|now)[,!.]?\s+)*"
    r"(?:could|can|would|will|may)\s+(?:you|i)\s+(?:please\s+)?(?:tell|give|provide|say|send|"
    r"share|specify|enter|type|let me know|indicate|have|get|know|ask)\b",
    re.IGNORECASE,
)
_REQUEST_CUES = re.compile(
    r"^(?:please\s+)?(?:tell me|give me|provide|enter|type|specify|indicate|choose|select|"
    r"pick|let me know|send me|i need (?:your|the|to know))\b",
    re.IGNORECASE,
)
"""A request written as an imperative (no question mark needed); "What's up, Maria." is
not one: without a question mark a wh-word does not ask."""
_CLOSING_CUES = re.compile(
    r"\b(?:good ?bye|bye|see you|have a (?:nice|good|great|lovely) (?:day|evening|one)|"
    r"take care|thanks? for (?:visiting|contacting|your (?:order|visit|time))|"
    r"we'll contact you|we will contact you|talk (?:to you )?soon)\b",
    re.IGNORECASE,
)
_PAREN_LIST = re.compile(r"\(([^()]*,[^()]*)\)")
_LIST_AFTER = re.compile(
    r"(?:options?\s+(?:are|is)|choose (?:between|from|among)|we (?:have|offer|sell)|"
    r"available(?: \w+)? (?:are|is)|(?:pick|select) (?:one|from)|you can (?:choose|pick|have))"
    r"(?:\s+(?:are|is|includes?))?\s*:?\s*(?:(?:from|between|among|one of|any of|either)\s+)?"
    r"([^.?!]+)",
    re.IGNORECASE,
)
_OR_LIST = re.compile(r"([\w' -]+(?:,\s*[\w' -]+)*,?\s+or\s+[\w' -]+)\?", re.IGNORECASE)
_WHICH_ONE = re.compile(
    r"\b(?:we|I)\s+(?:can|could)\s+([^.?!]+?\s+or\s+[^.?!]+?)\s*[.,]\s*"
    r"(?:which|what)\s+(?:one|of\s+(?:them|these|those))\b",
    re.IGNORECASE,
)
"""Alternatives said before a "which one" question ("We can service or repair your bike.
Which one would you like?")."""
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+(.+?)\s*$", re.MULTILINE)
_SPLIT_LIST = re.compile(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+")


def classify_dialogue_act(
    text: str, buttons: Sequence[str] = (), *, fallback: bool = False
) -> DialogueAct:
    """The dialogue act of one chatbot turn: its ``text`` (messages joined by newlines) and
    the texts of its ``buttons``; ``fallback`` is the caller's own fallback decision (e.g.
    similarity to the profile's fallback phrase), which wins. Never raises."""
    if fallback:
        return DialogueAct.FALLBACK
    sentences = [s.strip() for s in _SENTENCE.split(text) if s.strip()]
    asking = [s for s in sentences if s.endswith("?") or _REQUEST_CUES.match(s)]
    if not buttons and is_fallback(text) is not None:
        return DialogueAct.FALLBACK
    if any(_CONFIRM_CUES.search(s) for s in asking):
        return DialogueAct.CONFIRMATION
    if len(buttons) >= 2 or (asking and len(offered_options(text)) >= 2):
        return DialogueAct.OFFER
    if asking:
        return _question_act(asking[-1])
    if _CLOSING_CUES.search(text):
        return DialogueAct.CLOSING
    if len(buttons) == 1:
        return DialogueAct.OFFER
    return DialogueAct.INFORM


def _question_act(sentence: str) -> DialogueAct:
    if is_closing_question(sentence):
        return DialogueAct.CLOSING_QUESTION
    if _REQUEST_IN_POLAR.match(sentence):
        return DialogueAct.REQUEST
    if _POLAR_START.match(sentence) or _ANYTHING_ELSE.search(sentence):
        return DialogueAct.YES_NO_QUESTION
    return DialogueAct.REQUEST


def offered_options(text: str, buttons: Sequence[str] = ()) -> list[str]:
    """The options a chatbot turn offers, in order: its button texts, else a list in its
    words — parenthesised ("(Vaccination, Dental cleaning)"), after "the options are",
    "we have", "choose between", bulleted or numbered lines, "A, B or C?", or "We can A
    or B. Which one …?". Each option is its exact span: words after the list's cue ("choose
    from cheese, …" → cheese), a qualifier after it ("chicken available" → chicken) and the
    list's head noun ("small, medium and big sizes" → big) are left out. Empty when it
    offers none; never raises."""
    if buttons:
        return [b.strip() for b in buttons if b.strip()]
    bullets = _BULLET.findall(text)
    if len(bullets) >= 2:
        return [b.rstrip(".;,") for b in bullets]
    for pattern in (_PAREN_LIST, _LIST_AFTER, _OR_LIST, _WHICH_ONE):
        for match in pattern.finditer(text):
            items = _items(match.group(1), trim_first=pattern is _OR_LIST)
            if len(items) >= 2:
                outside = text[: match.start(1)] + " " + text[match.end(1) :]
                return _exact_spans(items, outside)
    return []


_TAIL = re.compile(
    r"\s+(?:available|in stock|on (?:the|our) menu|today|tonight|right now|at the moment|"
    r"for you|as well|too|also|only|here|instead)$",
    re.IGNORECASE,
)
"""Words that follow an option without being part of it ("chicken available")."""
_WORD = re.compile(r"[^\W\d_]+")


def _exact_spans(items: list[str], outside: str) -> list[str]:
    """The options without neighbouring words: a trailing word that qualifies the option
    ("chicken available", "cheese today") and, on the last item, the list's head noun
    when the rest of the turn names it ("What size? We have small, medium and big sizes"
    → big)."""
    heads = {f for w in _WORD.findall(outside.lower()) for f in _forms(w)}
    out = []
    for item in items:
        item = _TAIL.sub("", item)
        out.append(item)
    last = out[-1].split()
    if len(last) > 1 and len(out[0].split()) < len(last) and _forms(last[-1].lower()) & heads:
        out[-1] = " ".join(last[:-1])
    return out


def _forms(word: str) -> set[str]:
    """``word`` and its singular readings ("sizes" → size, siz; "pastries" → pastry)."""
    forms = {word}
    for suffix, ending in (("ies", "y"), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            forms.add(word[: -len(suffix)] + ending)
    return forms


def _items(listing: str, *, trim_first: bool = False) -> list[str]:
    """The items of a written list; ``trim_first`` keeps of the first item only as many
    trailing words as the last item has ("Do you want small, medium or large" → small)."""
    commas = [p.strip() for p in listing.split(",") if p.strip()]
    if len(commas) >= 3:  # "A and B, C, D or E": commas separate, "and"/"or" may be inside
        parts = [re.sub(r"^(?:and|or)\s+", "", p, flags=re.IGNORECASE) for p in commas]
    else:
        parts = _SPLIT_LIST.split(listing)
    parts = [p.strip(" .;:'\"") for p in parts]
    parts = [p for p in parts if p]
    if trim_first and len(parts) >= 2:
        width = len(parts[-1].split())
        parts[0] = " ".join(parts[0].split()[-width:])
    items = [p for p in parts if len(p.split()) <= 5]
    return items if len(items) == len(parts) else []


_CLOSING_QUESTION = re.compile(
    r"\b(?:anything|something|aught) (?:else|more|further)\b|"
    r"\bany (?:other|more|further) (?:questions?|requests?|queries|help|things?)\b|"
    r"\b(?:how|what) else\b|"
    r"\bhow are (?:you|things)\b|\bhow(?:'s| is) (?:it going|your day)\b",
    re.IGNORECASE,
)
"""The cues of a question that asks for no value: an offer of more help ("Anything else I
can do for you?", "Can I help with anything else?", "Is there anything else?", "Any other
questions?", "How else can I help?") or a pleasantry ("How are you?"). An opener ("What
can I do for you?") is not one: it asks for the task."""


def is_closing_question(sentence: str) -> bool:
    """Whether ``sentence`` is a question that asks for no value: an offer of more help at
    the end of a task or a pleasantry (``_CLOSING_QUESTION``'s
    cues), and it offers no options ("Anything else: a drink or a dessert?" does). Such a
    question is no slot, parameter or goal: exploration and the user simulator treat it
    as the end of a task (ISO 24617-2's social obligations management functions, §5.2.2:
    a pleasantry or an offer of help carries no task content). Never raises."""
    text = sentence.strip()
    if not text.endswith("?") or len(text.split()) > 14:
        return False
    return _CLOSING_QUESTION.search(text) is not None and len(offered_options(text)) < 2
