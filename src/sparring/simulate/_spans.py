"""The span of a string output inside a chatbot's reply, or nothing.

SENSEI's LLM extraction returns the value itself ("Madrid", "Maria"), not the sentence
around it. Offline, a whole sentence is a wrong value that a rule compares as if it were
right, so a string output is only the span a pattern isolates:

- the phrase after a copula or colon that follows a keyword ("The capital of Spain is
  Madrid" → ``Madrid``; "Your order ID is 44de6a" → ``44de6a``), cut at the first clause
  boundary (comma, semicolon, parenthesis, dash) unless a list is wanted;
- a short direct answer once greetings and interjections are dropped ("Hi there Maria!"
  → ``Maria``, "Roma." → ``Roma``);
- an answer that states an inventory ("We have Margarita, Carbonara…" → the list);
- a one-sentence answer of at most 20 words with no greeting before it, taken whole (a
  descriptive output: "Every day from 1pm to 11:30pm").

"I don't know", "Sorry…" and the like are never a value.

Anything else has no span: the extraction reports ``None`` with ``confidence="low"`` and
keeps the sentence as evidence.
"""

from __future__ import annotations

import re

_INTERJECTIONS = frozenset(
    [
        "hi",
        "hello",
        "hey",
        "there",
        "well",
        "sure",
        "ok",
        "okay",
        "yes",
        "yeah",
        "yep",
        "so",
        "oh",
        "ah",
        "certainly",
        "of",
        "course",
        "great",
        "thanks",
        "thank",
        "alright",
        "right",
        "hola",
        "vale",
        "bueno",
        "claro",
        "sí",
        "si",
        "bien",
        "gracias",
        "perfecto",
    ]
)
_SHORT = 5
"""Words at most in a direct answer taken whole."""
_FILLER = re.compile(
    r"^(?:we|i|you|they|there|it)\s+(?:have|has|offer|offers|serve|serves|sell|sells|"
    r"are|is|can\s+choose\s+from|currently\s+have)\s+(?:got\s+)?(?:the\s+following\s*:?\s*)?",
    re.I,
)
_SENTENCE_WORDS = 20
"""Words at most in a one-sentence answer taken whole (a descriptive output)."""
_NO_ANSWER = re.compile(
    r"\b(?:(?:do|does|did)\s*n[o']t\s+know|not\s+sure|no\s+idea|sorry|can(?:no|')t|"
    r"unable|(?:do|does)\s*n[o']t\s+understand|no\s+s[eé]|lo\s+siento|perd[oó]n)\b",
    re.I,
)
"""Answers that are not an answer ("I don't know", "Sorry…"): never a value."""
_CLAUSE_END = re.compile(
    r"\s*(?:[;(]|\s[-–—]\s|\b(?:which|who)\b|,\s*(?=(?:a|an|the|this|that|it|which|who|"
    r"but|so|please|and\s+(?:it|we|you|i|the)|we|you|i|see|thanks?|if|as|el|la|que|y\s+(?:el|la))\b))",
    re.I,
)
"""Where a clause starts: ``;``, ``(``, a dash, a relative pronoun, or a comma followed by
a determiner, pronoun or conjunction (an enumeration "ham, cheese and mushrooms" stays)."""
_WORDS = re.compile(r"[\w'’-]+")


def trim_clause(phrase: str, as_list: bool) -> str:
    """``phrase`` up to its first clause boundary (kept whole for a list)."""
    phrase = phrase.strip().rstrip(".!?").strip()
    if as_list:
        return phrase
    cut = _CLAUSE_END.search(phrase)
    return phrase[: cut.start()].strip() if cut and cut.start() > 0 else phrase


def _without_interjections(text: str) -> str:
    """``text`` without leading sentences or words that are only greetings/interjections."""
    sentences = [s for s in re.split(r"(?<=[.!?])\s+|\n+", text.strip()) if s.strip()]
    while len(sentences) > 1 and all(
        w.lower() in _INTERJECTIONS for w in _WORDS.findall(sentences[0])
    ):
        sentences.pop(0)
    rest = " ".join(sentences)
    words = rest.split()
    while words and words[0].strip(",.!¡¿?").lower() in _INTERJECTIONS and len(words) > 1:
        words.pop(0)
    return " ".join(words).strip(" ,")


def answer_span(answer: str, as_list: bool) -> str | None:
    """The value in a direct answer to a question about the output (module docstring),
    or ``None`` when the answer is more than a short phrase or an inventory."""
    text = _without_interjections(answer)
    if not text or text.endswith("?") or _NO_ANSWER.search(text):
        return None
    words = len(_WORDS.findall(text))
    if words <= _SHORT and "\n" not in text:
        return text.rstrip(".!").strip() or None
    if len(re.split(r"(?<=[.!?])\s+|\n+", text.strip())) != 1:
        return None
    filler = _FILLER.match(text)
    if filler:
        return text[filler.end() :].rstrip(".!").strip() or None
    return (
        text.rstrip(".!").strip() if words <= _SENTENCE_WORDS and text == answer.strip() else None
    )
