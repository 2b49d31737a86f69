"""Output data extraction at the end of a conversation (SENSEI ``chatbot.output``), offline.

Each output has a name, a ``type`` and a ``description``. Two strategies fill them: the
model-based one (SENSEI's) is ``sparring.simulate._extract_llm.extract_outputs_llm``; this
module's ``extract_outputs_offline`` needs no model. The assistant turns are split into
sentences; the description's and name's keywords (light stemming, a few synonyms such as
price ~ cost ~ total) locate the relevant sentences — or the user question a turn answers —
and a parser for the type (``sparring.values``) finds the value. A sentence that lists items with
one value each ("A single room costs $80, a double room $120 and a suite $250") gives the
value of the item the user's question names (``values.item_values``). Typed values:
later turns win (the confirmation usually closes the conversation), then more keyword
overlap, then the value nearest a keyword. Strings: the phrase after "<head noun> is/are/:"
("Your order ID is 44de6a" → ``44de6a``), else the span of a short answer to a question
about it (``_spans``), else nothing, marked ``confidence="low"``; an output about an
address or a location takes the street address a sentence states ("23 Main Street, NY"). A
value with no keyword near it (any number, any price) is never taken: ``None`` is reported.

Types are read by ``sparring.profiles.read_output_type`` (SENSEI's ``int``, ``float``,
``money``, ``str``/``string``, ``bool``, ``time``/``date`` with an optional strftime
format, ``list[<type>]``, plus ``email``, ``phone``/``telefono`` and a few synonyms); any
other name, custom types included, is read as a string. HTML markup in replies is
ignored. The stored form of each kind of value is described in ``_values``.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal, Protocol

from sparring.conversations import OutputValue, Turn
from sparring.dialogue_acts import is_closing_question
from sparring.fallback import is_fallback
from sparring.profiles import OutputType, read_output_type, value_kind
from sparring.simulate._extract_answers import (
    QUESTION_OF_KIND,
    enumerated,
    is_state,
    named_option,
    subject_of,
)
from sparring.simulate._spans import answer_span, trim_clause
from sparring.values import Candidate, find_values, format_value, identifier_after, item_values

__all__ = [
    "OutputSpecLike",
    "OutputSpecs",
    "extract_outputs_offline",
    "read_output_specs",
]


class OutputSpecLike(Protocol):
    """What an output definition offers (``sparring.simulate.OutputSpec`` and the like)."""

    @property
    def type(self) -> str: ...

    @property
    def description(self) -> str: ...


OutputSpecs = Mapping[str, OutputSpecLike | Mapping[str, Any]]
"""Output name → definition (an object with ``type``/``description`` or such a dict)."""


def read_output_specs(outputs: OutputSpecs) -> list[tuple[str, OutputType, str]]:
    """(name, parsed type, description) for each output, in order (``read_output_type``;
    a missing type is ``string``, a missing description empty)."""
    found = []
    for name, spec in outputs.items():
        if isinstance(spec, Mapping):
            type_name, description = spec.get("type"), spec.get("description")
        else:
            type_name, description = spec.type, spec.description
        found.append((name, read_output_type(str(type_name or "string")), str(description or "")))
    return found


# --- sentences and keywords -------------------------------------------------------------

_STOP = frozenset(
    re.findall(
        r"\w+",
        """a an the of to for in on at by and or is are be was were will would it its this that
    these those which what how when where who why with from as my your our their me you i we
    they do does did can could should shall may might has have had not get got going only if
    whether than then there here any some all each about into out up over also just very long
    assistant chatbot bot user conversation confirm confirmed provide provided given
    explicitly found information data requested mentioned value agreed
    el la los las lo un una unos unas de del y o que en por para con su sus al es""",
    )
)
_SYNONYMS = (
    frozenset({"price", "cost", "total", "amount", "charge", "fee", "pay"}),
    frozenset({"id", "identifier", "code", "reference", "ref", "number"}),
)
_WORD = re.compile(r"\w+")
_PREPOSITIONS = re.compile(
    r"\b(?:of|for|to|in|on|at|with|by|from|that|which|de|del|para|por|en|con|que)\b|[,;(]", re.I
)
_BLOCK_TAG = re.compile(r"<\s*/?\s*(?:br|p|div|li|ul|ol|tr|h\d|split)\b[^>]*>", re.I)
_TAG = re.compile(r"<[^<>]+>")


def _plain(text: str) -> str:
    """Chatbot text without HTML markup (block tags become line breaks)."""
    if "<" not in text:
        return text
    return html.unescape(_TAG.sub("", _BLOCK_TAG.sub("\n", text))).replace("\xa0", " ")


def _stem(word: str) -> str:
    w = "".join(
        c for c in unicodedata.normalize("NFKD", word.lower()) if not unicodedata.combining(c)
    )
    for suffix in ("ing", "ed", "s"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            return w[: -len(suffix)]
    return w


def _content_words(text: str) -> list[str]:
    return [_stem(w) for w in _WORD.findall(text) if w.lower() not in _STOP and not w.isdigit()]


_DETERMINERS = frozenset(
    [
        "the",
        "a",
        "an",
        "my",
        "your",
        "our",
        "their",
        "his",
        "her",
        "its",
        "this",
        "that",
        "these",
        "those",
        "i",
        "you",
        "we",
        "they",
        "he",
        "she",
        "it",
    ]
)


def _noun_phrase(text: str) -> str:
    """The leading noun phrase: cut where a relative clause starts with a determiner or
    pronoun ("the order id the pizzeria gave" → "the order id")."""
    words = text.split()
    start = 0
    while start < len(words) and words[start].lower() in _DETERMINERS:
        start += 1
    for index in range(start + 1, len(words)):
        if words[index].lower() in _DETERMINERS:
            return " ".join(words[:index])
    return text


@dataclass(frozen=True)
class _Keywords:
    """The stems that locate an output: all of name + description, and the head noun of
    the description ("my order ID" → ``id``; "the price of the order" → ``price``)."""

    all: frozenset[str]
    head: str | None
    name: frozenset[str] = frozenset()
    """The stems of the output's name (``capital`` for ``capital``)."""
    about_times: bool = False
    """The output is about times or hours ("the days and hours the shop is open")."""
    about_duration: bool = False
    """The output is a duration ("how long the order takes", "the waiting time")."""

    @classmethod
    def of(cls, name: str, description: str) -> _Keywords:
        words = _content_words(name.replace("_", " ") + " " + description)
        head_zone = _content_words(_noun_phrase(_PREPOSITIONS.split(description, maxsplit=1)[0]))
        head_zone = head_zone or _content_words(name.replace("_", " "))
        named = frozenset(_content_words(name.replace("_", " ")))
        said = f"{name.replace('_', ' ')} {description}"
        times = _TIMES.search(said) is not None
        lasting = _DURATION_WORDS.search(said) is not None
        head = head_zone[-1] if head_zone else None
        return cls(frozenset(words), head, named, times, lasting)

    def hits(self, text: str) -> list[tuple[int, str]]:
        """(char offset, keyword) for each word of ``text`` matching a keyword or synonym."""
        out = []
        for match in _WORD.finditer(text):
            stem = _stem(match.group())
            out += [
                (match.start(), k)
                for k in self.all
                if k == stem or any(k in g and stem in g for g in _SYNONYMS)
            ]
        return out

    def overlap(self, text: str) -> int:
        return len({k for _, k in self.hits(text)})


@dataclass(frozen=True)
class _Sentence:
    """A sentence of an assistant turn; ``question`` is the user turn just before it."""

    turn: int
    order: int
    text: str
    question: str
    answer: str
    reference: date


def _sentences(turns: Sequence[Turn], today: date, fallback: str | None) -> list[_Sentence]:
    out: list[_Sentence] = []
    question = ""
    for index, turn in enumerate(turns):
        if turn.role == "user":
            question = turn.text
            continue
        if is_fallback(turn.text, fallback):
            continue
        reference = turn.timestamp.date() if turn.timestamp is not None else today
        parts = [p.strip() for p in re.split(r"(?<=[.!?])\s+|\n+", _plain(turn.text)) if p.strip()]
        parts = [p for p in parts if not is_closing_question(p)]  # "Anything else?" asks nothing
        answer = " ".join(parts)
        for part in parts:
            out.append(_Sentence(index, len(out), part, question, answer, reference))
    return out


# --- offline strategy -------------------------------------------------------------------


def extract_outputs_offline(
    outputs: OutputSpecs,
    turns: Sequence[Turn],
    *,
    today: date | None = None,
    fallback: str | None = None,
) -> dict[str, OutputValue]:
    """Fill every output from the assistant turns, without a model (module docstring).

    Returns output name → ``OutputValue`` with ``strategy="offline"``, ``evidence`` the
    sentence (or question and answer) the value came from, and ``value=None`` when nothing
    fits; a string output is a span or ``None`` with ``confidence="low"`` when a sentence
    names it but no span can be isolated (``_spans``). ``today`` resolves relative dates
    when turns carry no timestamp (default: the current date); assistant turns that are the
    fallback (``sparring.fallback``: ``fallback`` or a generic phrase) are ignored.
    """
    sentences = _sentences(turns, today or date.today(), fallback)
    result: dict[str, OutputValue] = {}
    for name, otype, description in read_output_specs(outputs):
        keywords = _Keywords.of(name, description)
        if value_kind(otype) == "string":
            found = (
                _pick_address(sentences, name, description)
                or _pick_enumerated(sentences, description, otype.is_list)
                or _pick_string(sentences, keywords, otype.is_list)
            )
        else:
            found = _pick_typed(sentences, keywords, otype)
        result[name] = OutputValue(
            value=found.value,
            type=otype.name,
            strategy="offline",
            evidence=found.evidence,
            confidence=found.confidence,
            turn=found.turn,
            method=found.method,
        )
    return result


@dataclass(frozen=True)
class _Found:
    """What a picker found: the value, its evidence, confidence, turn and method."""

    value: Any = None
    evidence: str | None = None
    confidence: Literal["high", "low"] | None = None
    turn: int | None = None
    method: str | None = None


_ADDRESS_OUTPUT = re.compile(r"\b(?:address|location|located|where)\b", re.I)


def _pick_address(sentences: Sequence[_Sentence], name: str, description: str) -> _Found | None:
    """A street address (``sparring.values``, kind ``address``) in the latest sentence
    that states one, for an output whose name or description is about an address or a
    location; ``None`` for other outputs or when no sentence states one."""
    if not _ADDRESS_OUTPUT.search(f"{name.replace('_', ' ')} {description}"):
        return None
    for sentence in reversed(sentences):
        found = find_values("address", sentence.text, sentence.reference)
        if found:
            return _Found(found[-1].value, sentence.text, "high", sentence.turn, "address")
    return None


def _pick_enumerated(
    sentences: Sequence[_Sentence], description: str, as_list: bool
) -> _Found | None:
    """The value of a string output whose description enumerates its values
    (``_extract_answers.enumerated``): the latest statement naming exactly one of them."""
    options = enumerated(description)
    if not options or as_list:
        return None
    for sentence in reversed(sentences):
        if sentence.text.endswith("?"):
            continue
        option = named_option(sentence.text, options)
        if option is not None:
            return _Found(option, sentence.text, "high", sentence.turn, "enumerated")
    return None


def _pick_typed(sentences: Sequence[_Sentence], keywords: _Keywords, otype: OutputType) -> _Found:
    """The value of the type in the latest sentence that names a keyword (or answers a
    user question that does): preferably one the user did not say, nearest a keyword (the
    last one when the sentence names none); all its values for a list type."""
    kind, fmt = value_kind(otype), otype.element.format
    best: tuple[tuple[int, ...], _Sentence, list[Candidate], Candidate] | None = None
    asks_kind = QUESTION_OF_KIND.get(kind)
    for sentence in sentences:
        hits = keywords.hits(sentence.text)
        overlap, asked = len({k for _, k in hits}), keywords.overlap(sentence.question)
        if not asked and asks_kind is not None and asks_kind.search(sentence.question):
            asked = 1  # "That is $3.00." after "how much is it?"
        if not (overlap or asked):
            continue
        found = find_values(kind, sentence.text, sentence.reference)
        if kind == "time" and not keywords.about_duration:
            # "booked at 11:00 AM" beats "(30 minutes)" for the appointment's time
            found = find_values("clock", sentence.text, sentence.reference) or found
        said = find_values(kind, sentence.question, sentence.reference)
        for candidate in found:
            novel = all(candidate.value != c.value for c in said)
            distance = min((abs(candidate.start - p) for p, _ in hits), default=0)
            place = -candidate.start if hits else candidate.start
            key = (sentence.turn, overlap, asked, novel, -distance, sentence.order, place)
            if best is None or key > best[0]:
                best = (key, sentence, found, candidate)
    if best is None:
        return _Found()
    method = "keyword" if best[0][1] else "question"
    sentence, found, chosen = best[1], best[2], best[3]
    item = _asked_item(kind, sentence, keywords)
    if item is not None:
        chosen, method = item, "item"
    if otype.is_list:
        values = [format_value(kind, c.value, fmt) for c in found]
        return _Found(values, sentence.text, None, sentence.turn, method)
    return _Found(format_value(kind, chosen.value, fmt), sentence.text, None, sentence.turn, method)


def _asked_item(kind: str, sentence: _Sentence, keywords: _Keywords) -> Candidate | None:
    """The value of the item the user asked about when ``sentence`` lists items with one
    value each ("A single room costs $80, a double room $120 and a suite $250." after "how
    much is a suite?" gives $250): the one item whose words share the most content words
    with the question, the output's own keywords left out; ``None`` when the sentence is
    no such list or no single item is named."""
    items = item_values(kind, sentence.text, sentence.reference)
    key_words = {  # the output's keywords and their synonyms ("cost" for a price)
        _stem(_WORD.match(sentence.question, at).group())  # type: ignore[union-attr]
        for at, _ in keywords.hits(sentence.question)
    }
    asked = set(_content_words(sentence.question)) - keywords.all - key_words
    if not items or not asked:
        return None
    scores = [len(asked & set(_content_words(label))) for label, _ in items]
    top = max(scores)
    if top == 0 or scores.count(top) > 1:
        return None
    return items[scores.index(top)][1]


_CUE = re.compile(
    r"\s*(?:(?<!\d)[:=](?!\d)|\s-\s|\b(?:is|are|was|were|will be|would be|reads)\b)\s*", re.I
)
_CODE_LIKE = re.compile(r"[\w-]*\d[\w-]*")
_SHORT_ANSWER = 8
"""Words at most in a direct answer to a question that names the output ("Paris.")."""


def _pick_string(sentences: Sequence[_Sentence], keywords: _Keywords, as_list: bool) -> _Found:
    """(value, evidence, confidence). Best first: the span after ``<keyword> is|are|:`` in
    a sentence naming the head noun; then the span of the answer to
    a user question naming the head and two keywords, or the output itself (``_spans``);
    then a statement naming the head and two keywords, which has no span: ``None`` with
    ``confidence="low"``, as when one reply states several different spans (ambiguous).
    Ties go to more keywords, then the latest."""
    need = min(2, len(keywords.all))
    answered_to: defaultdict[str, set[str]] = defaultdict(set)
    for sentence in sentences:  # the same reply to different questions answers none
        answered_to[sentence.answer].add(sentence.question.strip().casefold())
    best: tuple[tuple[int, int, int], str | None, str, int, str] | None = None
    spans: defaultdict[int, set[str]] = defaultdict(set)
    for sentence in sentences:
        hits = keywords.hits(sentence.text)
        anchors = [p for p, k in hits if keywords.head in (None, k)]
        overlap = len({k for _, k in hits})
        if anchors and not sentence.text.endswith("?"):
            cued = _cued_phrase(sentence.text, min(anchors), min(p for p, _ in hits))
            tier = 3 if cued else (1 if overlap >= need else 0)
            key = (tier, overlap, sentence.order)
            span = trim_clause(cued, as_list) if cued else None
            spans[sentence.turn].update([span.casefold()] if span else [])
            if tier and (best is None or key > best[0]):
                best = (key, span, sentence.text, sentence.turn, "cue" if cued else "keyword")
        asked = keywords.hits(sentence.question)
        asked_keys = {k for _, k in asked}
        short = len(sentence.answer.split()) <= _SHORT_ANSWER
        named = short and bool(asked_keys & (keywords.name | {keywords.head}))
        asking = _QUESTION.search(sentence.question) is not None
        most = asking and (  # a question that names most of the output: its answer holds it
            (len(asked_keys) >= 2 and len(asked_keys) * 2 >= len(keywords.all))
            or (asked_keys and keywords.about_times and _WHEN.search(sentence.question))
        )
        most = most and len(answered_to[sentence.answer]) == 1  # not a canned reply
        if named or most or (keywords.head in asked_keys and len(asked_keys) >= need):
            key = (2, len(asked_keys), sentence.order)
            if not sentence.answer.endswith("?") and (best is None or key > best[0]):
                span = answer_span(sentence.answer, as_list) or _restated(
                    sentence.answer, keywords, as_list
                )
                if span is None and most:
                    span = _first_statement(sentence.answer)
                evidence = f"{sentence.question.strip()} → {sentence.answer}"
                best = (key, span, evidence, sentence.turn, "answer")
    if best is None:
        return _Found()
    key, phrase, evidence, turn, method = best
    if phrase is None or (key[0] == 3 and len(spans[turn]) > 1):
        return _Found(None, evidence, "low", turn, method)
    if as_list:
        items = re.split(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", phrase)
        return _Found([i.strip() for i in items if i.strip()], evidence, "high", turn, method)
    return _Found(phrase, evidence, "high", turn, method)


_TIMES = re.compile(r"\b(?:hours?|times?|open\w*|clos\w*|schedules?)\b", re.I)
_DURATION_WORDS = re.compile(
    r"\b(?:duration|how long|long|lasts?|takes?|wait\w*|ready in|delivery time|minutes?)\b", re.I
)
_WHEN = re.compile(r"\b(?:when|what time|hours?|open)\b", re.I)
_QUESTION = re.compile(
    r"\?\s*$|^\s*(?:what|which|when|where|who|how|is|are|do|does|can|could)\b", re.I
)
_NON_ANSWER = re.compile(
    r"\b(?:don't know|do not know|not sure|no idea|cannot|can't|sorry|error)\b", re.I
)


def _first_statement(answer: str) -> str | None:
    """The statements of an answer, its questions left out (the answer to a question that
    names the output: "We are specialized in dogs, cats and birds. For other animals,
    please consult first."); ``None`` for a non-answer ("I don't know", an error)."""
    if _NON_ANSWER.search(answer):
        return None
    parts = [p.strip() for p in re.split(r"(?<=[.!?])\s+|\n+", answer)]
    said = " ".join(p for p in parts if p and not p.endswith("?"))
    return said.rstrip(".!") or None


def _restated(answer: str, keywords: _Keywords, as_list: bool) -> str | None:
    """The span after the cue in the one sentence of ``answer`` that restates the question
    with a keyword ("What is the capital city of Spain?" → "… The capital of Spain is
    Madrid"); ``None`` when no sentence, or several with different spans, do."""
    found: set[str] = set()
    for part in re.split(r"(?<=[.!?])\s+|\n+", answer):
        hits = keywords.hits(part)
        if hits and not part.strip().endswith("?"):
            first = min(p for p, _ in hits)
            cued = _cued_phrase(part, first, first)
            found.update([trim_clause(cued, as_list)] if cued else [])
    return found.pop() if len(found) == 1 else None


def _cued_phrase(text: str, head_at: int, first_at: int) -> str | None:
    """An id right after the head noun ("Ticket number RG4102"), else the text after the
    first copula/colon that follows the head noun (an id-like first token alone), or the
    text before a trailing ``is your <keywords>``."""
    word_end = head_at + len(_WORD.match(text, head_at).group())  # type: ignore[union-attr]
    code = identifier_after(text, word_end)
    if code is not None:  # "Ticket number RG4102.": an id right after the head noun
        return code
    cue = _CUE.search(text, word_end)
    if cue is not None and is_state(text[cue.end() :]):
        # "your small pizza with ham is on its way": the state is no value; the subject is
        return subject_of(text, cue.start()) if cue.start() > head_at else None
    if cue is not None:
        rest = text[cue.end() :].strip().rstrip(".!?").strip()
        first = rest.split(" ", 1)[0].rstrip(",;.") if rest else ""
        if first and _CODE_LIKE.fullmatch(first):
            return first
        return rest or None
    lead = text[:first_at]
    before = re.sub(r"\s+(?:is|are|was|were)(?:\s+(?:your|my|our|the))?\s*$", "", lead)
    if before != lead and before.strip():
        return before.strip()
    return None
