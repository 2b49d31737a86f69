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
from collections.abc import Callable, Iterator, Sequence
from enum import StrEnum

from sparring.fallback import is_fallback

__all__ = [
    "ANALYSIS_CHARS",
    "DialogueAct",
    "analysis_window",
    "asks_something",
    "classify_dialogue_act",
    "is_closing_question",
    "offered_options",
]


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


ANALYSIS_CHARS = 4_000
"""Characters of a chatbot turn (its last ones) that the dialogue act and the offered
options are read from (``analysis_window``)."""
LIST_CHARS = 400
"""Characters before a question mark (or a "which one") in which a list of options
written in words ("small, medium or large?") is looked for."""
_CUT_SEARCH = 80
"""Characters at the start of the window searched for a line or word boundary to cut at."""

_SENTENCE = re.compile(r"(?<=[.?!])\s+|\n+")
_CONFIRM_CUES = re.compile(
    r"\b(?:is (?:that|this|it|everything) (?:correct|right|ok(?:ay)?|fine)|"
    r"(?:can|could) you confirm|do you (?:confirm|agree)|shall i (?:confirm|proceed|place|book)|"
    r"should i (?:proceed|confirm|place|book)|right\?$|"
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
_NOUN_PLEASE = re.compile(
    r"^(?:[^:]{1,40}:\s*)?(?:and\s+|now\s+)?(?:your|the)\s+"
    r"(?:(?!(?:is|are|was|were|will|has|have|had|be|been|can|may)\b)[\w'-]+\s+){0,3}"
    r"(?!(?:is|are|was|were|will|has|have|had|be|been|can|may)\b)[\w'-]+,?\s+please\b"
    r"(?!\s+(?:note|be|wait|hold|allow|keep|bring|call|visit|come|remember|follow|take|see|"
    r"find|check|contact|enjoy|go|let|make|pay|collect|proceed|click|read|feel|do|don't)\b)",
    re.IGNORECASE,
)
"""A request said as a noun phrase and "please", no question mark: "Your full name, please.",
"Last thing: your member number, please (six digits)."."""
_CLOSING_CUES = re.compile(
    r"\b(?:good ?bye|bye|see you|have a (?:nice|good|great|lovely) (?:day|evening|one)|"
    r"take care|thanks? for (?:visiting|contacting|your (?:order|visit|time))|"
    r"we'll contact you|we will contact you|talk (?:to you )?soon)\b",
    re.IGNORECASE,
)
_CONFIRM_WORD = re.compile(r"\bconfirm\b", re.IGNORECASE)
_CLAUSE = re.compile(r"[^.?!]+[.?!]?")
_QUESTION_MARK = re.compile(r"\?")
_PAREN_LIST = re.compile(r"\(([^(),]*,[^()]*)\)")
_LIST_AFTER = re.compile(
    r"(?:options?\s+(?:are|is)|choose (?:between|from|among)|we (?:have|offer|sell)|"
    r"available(?: \w+)? (?:are|is)|(?:pick|select) (?:one|from)|you can (?:choose|pick|have))"
    r"(?:\s+(?:are|is|includes?))?\s*+:?\s*+(?:(?:from|between|among|one of|any of|either)\s+)?"
    r"([^.?!]+)",
    re.IGNORECASE,
)
_LIST_CHARS_REVERSED = re.compile(r"[\w' ,\s-]*")
"""The characters of a list written in words, matched on the reversed text before a
question mark (anchored: one pass)."""
_OR_WORD = re.compile(r"\sor\s+\S", re.IGNORECASE)
_WE_CAN = re.compile(r"\b(?:we|I)\s+(?:can|could)\s+", re.IGNORECASE)
_WHICH_ONE_CUE = re.compile(
    r"[.,]\s*(?:which|what)\s+(?:one|of\s+(?:them|these|those))\b", re.IGNORECASE
)
"""Alternatives said before a "which one" question ("We can service or repair your bike.
Which one would you like?")."""
_BULLET = re.compile(r"[ \t]*(?:[-*•]|\d+[.)])[ \t]+(?=\S)")
_SPLIT_LIST = re.compile(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+")
_LAST_JOIN = re.compile(r"\s+(?:and|or)\s+(?!.*\s(?:and|or)\s)", re.IGNORECASE)
"""The last "and"/"or" of a list's last comma part ("fillings and whitening")."""


def classify_dialogue_act(
    text: str, buttons: Sequence[str] = (), *, fallback: bool = False
) -> DialogueAct:
    """The dialogue act of one chatbot turn: its ``text`` (messages joined by newlines) and
    the texts of its ``buttons``; ``fallback`` is the caller's own fallback decision (e.g.
    similarity to the profile's fallback phrase), which wins. Reads the last
    ``ANALYSIS_CHARS`` characters of ``text`` (``analysis_window``), in time linear in
    them. Never raises."""
    if fallback:
        return DialogueAct.FALLBACK
    text = analysis_window(text)
    sentences = [s.strip() for s in _SENTENCE.split(text) if s.strip()]
    asking = [s for s in sentences if asks_something(s)]
    if not buttons and is_fallback(text) is not None:
        return DialogueAct.FALLBACK
    if any(_CONFIRM_CUES.search(s) or _asks_to_confirm(s) for s in asking):
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


def asks_something(sentence: str) -> bool:
    """Whether one ``sentence`` of a chatbot turn asks the user something: it ends with a
    question mark, or is a request without one — an imperative ("Please enter your
    postcode."), a noun phrase and "please" ("Last thing: your member number, please (six
    digits).")."""
    text = sentence.strip()
    return text.endswith("?") or bool(_REQUEST_CUES.match(text) or _NOUN_PLEASE.match(text))


def analysis_window(text: str) -> str:
    """The part of a chatbot turn's ``text`` that its analyses read: the last
    ``ANALYSIS_CHARS`` characters, cut at a line or word boundary when one is near
    (chatbots answer, then ask: the question is at the end). A bot's reply may be up to
    a megabyte (``ReplyLimits.max_bytes``); reading a bounded part keeps every analysis
    of a reply within a constant time, whatever its length (issue 36)."""
    if len(text) <= ANALYSIS_CHARS:
        return text
    tail = text[-ANALYSIS_CHARS:]
    cut = max(tail.find("\n", 0, _CUT_SEARCH), tail.find(" ", 0, _CUT_SEARCH))
    return tail[cut + 1 :] if cut >= 0 else tail


def _asks_to_confirm(sentence: str) -> bool:
    """Whether a clause of ``sentence`` that ends with a question mark says "confirm"
    ("Please confirm your booking for 2 people?")."""
    return any(
        clause.endswith("?") and _CONFIRM_WORD.search(clause)
        for clause in _CLAUSE.findall(sentence)
    )


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
    offers none. Reads the last ``ANALYSIS_CHARS`` characters of ``text`` in time linear
    in them (a list written in words is looked for in the ``LIST_CHARS`` before its
    question); never raises."""
    if buttons:
        return [b.strip() for b in buttons if b.strip()]
    text = analysis_window(text)
    bullets = [b.rstrip(".;,") for b in _bullets(text)]
    if len(bullets) >= 2:
        return bullets
    plain = _PAREN_REMARK.sub("", text)  # "morning (8 to 12), afternoon (12 to 4)"
    for items, start, end in _written_lists(plain):
        if len(items) >= 2:
            outside = plain[:start] + " " + plain[end:]
            return _exact_spans(items, outside)
    return []


_LEAD_COLON = re.compile(r"(?<!\d):(?!\d)")
_PAREN_REMARK = re.compile(r"[ \t]*\([^(),/\n]{1,40}\)")
"""A remark in parentheses with no comma, after an option ("morning (8 to 12)", "small (10
inch)"): what the option means, not part of its name; a parenthesised list keeps its commas,
a format ("(DD/MM/YYYY)") its slashes: it says how to write a free value."""


def _written_lists(text: str) -> Iterator[tuple[list[str], int, int]]:
    """The lists written in words in ``text`` with their spans, in the order they are
    tried: parenthesised, after a cue, "A, B or C?" (in the ``LIST_CHARS`` before each
    question mark) and "We can A or B. Which one …" (before each "which one"). The pieces
    read before each question mark are bounded and disjoint: linear in ``text``."""
    for pattern in (_PAREN_LIST, _LIST_AFTER):
        for match in pattern.finditer(text):
            prose = pattern is _LIST_AFTER
            yield _items(match.group(1), prose=prose), match.start(1), match.end(1)
    readers: tuple[tuple[Callable[[str], _Listing | None], re.Pattern[str]], ...] = (
        (_or_list, _QUESTION_MARK),
        (_which_one, _WHICH_ONE_CUE),
    )
    for read, ends in readers:
        previous = 0
        for match in ends.finditer(text):
            start = max(previous, match.start() - LIST_CHARS)
            found = read(text[start : match.start()])
            previous = match.end()
            if found is not None:
                yield found[0], start + found[1], start + found[2]


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


_Listing = tuple[list[str], int, int]
"""A list written in words: its items and the span of its text."""


def _or_list(before: str) -> _Listing | None:
    """The list "A, B or C" written at the end of ``before`` (the text before a question
    mark: "Do you want small, medium or large" → small, medium, large): the longest run
    of word characters, spaces, commas, hyphens and apostrophes ending it (a line break
    only after a comma), whose last item follows "or"."""
    run = _LIST_CHARS_REVERSED.match(before[::-1])
    listing = run.group()[::-1] if run else ""
    lines = listing.split("\n")
    kept = [lines.pop()]
    while lines and lines[-1].rstrip().endswith(","):
        kept.insert(0, lines.pop())
    listing = "\n".join(kept).lstrip(" ,\t\r\n")
    if not listing or not _OR_WORD.search(" " + listing.rsplit(",", 1)[-1]):
        return None
    return _items(listing, trim_first=True), len(before) - len(listing), len(before)


def _which_one(before: str) -> _Listing | None:
    """The alternatives of "We can A or B. Which one …?": what follows the first "we
    can"/"I could" of the sentence that ends ``before`` (the text before "which one")."""
    start = max(before.rfind(mark) for mark in ".?!") + 1
    offer = _WE_CAN.search(before, start)
    listing = before[offer.end() :].rstrip() if offer else ""
    if offer is None or not _OR_WORD.search(listing):
        return _listed_before(before, start)
    return _items(listing), offer.end(), offer.end() + len(listing)


_WORDS = r"[\w:'-]+(?: [\w:'-]+){0,3}"
_ENDING_LIST = re.compile(rf"{_WORDS}(?:, {_WORDS})+,? (?:and|or) {_WORDS}$")
"""A sentence that ends with "A, B, C and D" of one to four words each (times, names)."""


def _listed_before(before: str, start: int) -> _Listing | None:
    """The list that ends the sentence before "which one" ("Trains leave at 06:45, 09:10
    and 16:50. Which one would you like?" → 06:45, 09:10, 16:50): the first item keeps
    as many words as the last has."""
    sentence = before[start:].rstrip()
    match = _ENDING_LIST.search(sentence)
    if match is None:
        return None
    items = _items(match.group(), trim_first=True)
    return (items, start + match.start(), start + match.end()) if len(items) >= 2 else None


def _bullets(text: str) -> list[str]:
    """The texts of the bulleted or numbered lines of ``text``."""
    out = []
    for line in text.splitlines():
        marker = _BULLET.match(line)
        if marker:
            out.append(line[marker.end() :].strip())
    return out


def _items(listing: str, *, trim_first: bool = False, prose: bool = True) -> list[str]:
    """The items of a written list; ``trim_first`` keeps of the first item only as many
    trailing words as the last item has ("Do you want small, medium or large" → small).
    In a sentence (``prose``) the last "and"/"or" joins the last two items ("we offer
    A, B, C and D"); a parenthesised menu's last item may hold one ("(Vaccination, Dental
    health and cleaning)")."""
    listing = " ".join(listing.split())
    if prose:  # "three windows that day: morning, afternoon or evening" (not 06:45)
        listing = _LEAD_COLON.split(listing)[-1]
    commas = [p.strip() for p in listing.split(",") if p.strip()]
    if len(commas) >= 3:  # "A and B, C, D or E": commas separate, "and"/"or" may be inside
        parts = [re.sub(r"^(?:and|or)\s+", "", p, flags=re.IGNORECASE) for p in commas]
        if prose:  # the last comma part of "A, B, C and D" (no serial comma): two items
            parts[-1:] = _LAST_JOIN.split(parts[-1], maxsplit=1)
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
