"""The offline strategy of ``semantic_content``: does a text say a given content?

Three model-free signals, each able to refuse a match, none able to force one alone:

1. **Numbers** (``numbers_agree``): every number of the content is in the text, or the
   text's numbers lie in the content's range ("between $50 and $60"). "$12" ≠ "$21".
2. **Negation**: a content word the content negates ("no toppings", "we do not open on
   weekends") must not be affirmed by the text ("toppings: pepperoni, olives", "we open
   on weekends"), and a word the content affirms must not be negated by the text. A cue
   ("no", "not", "n't", "never", "without", "none", "nor", "cannot") negates the content
   words after it up to the end of its clause or the next preposition ("not open | on
   weekends" negates "open" only).
3. **Content words**: the content's words less stop words, numbers and hedges ("around",
   "between"), matched in the text by stem or by spelling (RapidFuzz ratio ≥ 85).

Decision: numbers differ or negation conflicts → *no match*; every content word found
(and numbers agree, where there are any) → *match*, unless the text adds a restriction
("except", "only", "closed", …) the content lacks; at most a third found → *no match*;
anything between → ``None`` (the caller reports it *unscored*: a model can judge it).
Lexical cues know no synonyms, so a paraphrase without shared words is unscored or, if it
shares almost nothing, a no-match: that is where the measured recall is lost, never the
precision of a match (benchmarks/bench_judges.py, ``MEANING_PRECISION``).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from rapidfuzz import fuzz

_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
_RANGE_WORDS = re.compile(r"\b(between|from|to|and|range)\b|\d\s*-\s*\d", re.IGNORECASE)
_TOKEN = re.compile(r"[a-z]+(?:'[a-z]+)?|[.;:!?,()\n]")
_CLAUSE_END = frozenset(".;:!?,()\n") | {"on", "in", "at", "for", "from", "by", "to", "but"}
_NEGATIONS = frozenset(
    {"no", "not", "never", "without", "none", "nor", "cannot", "neither", "nothing", "nobody"}
)
_HEDGES = frozenset(
    {"around", "about", "approximately", "roughly", "between", "range", "just", "also",
     "mainly", "usually", "every", "each", "am", "pm", "like", "please", "yes"}
)  # fmt: skip
_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ied", "ed", "es", "s", "ly")
_RESTRICTIONS = frozenset({"except", "only", "closed", "unless", "instead", "unavailable"})
"""Words that narrow or reverse what a text says: in the text but not in the content, a
match is left unscored (e.g. "closed on Mondays; other days from 1pm" is not "every day")."""
_FUZZY = 85.0
"""Lowest RapidFuzz ratio (0–100) at which two spellings are the same word."""
FEW_FOUND = 1 / 3
"""At most this share of the content words found: the text does not say the content."""


def _numbers(text: str) -> list[float]:
    return [float(n) for n in _NUMBER.findall(_THOUSANDS.sub("", text))]


def numbers_agree(value: str, content: str) -> bool | None:
    """Whether the numbers of ``value`` fit those of ``content``: every number of
    ``content`` appears in ``value``, or (for a range of two numbers such as "between $50
    and $60") ``value`` states one number within it ("$55"). ``None`` when ``content`` has
    no number."""
    expected = _numbers(content)
    if not expected:
        return None
    found = _numbers(value)
    if not found:
        return False
    if set(expected) <= set(found):
        return True
    is_range = len(set(expected)) == 2 and _RANGE_WORDS.search(content) is not None
    return is_range and len(set(found)) == 1 and min(expected) <= found[0] <= max(expected)


@functools.lru_cache(maxsize=1)
def _stop_words() -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS  # heavy: import on use

    return frozenset(ENGLISH_STOP_WORDS) | _HEDGES


def stem(word: str) -> str:
    """A crude English stem: the word less one common suffix ("orders" → "order")."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


@dataclass(frozen=True)
class _Words:
    """The content words of a text by stem: ``affirmed`` and ``negated`` (a word may be in
    both when the text says it both ways)."""

    affirmed: frozenset[str]
    negated: frozenset[str]

    @property
    def all(self) -> frozenset[str]:
        return self.affirmed | self.negated


def _words(text: str) -> _Words:
    affirmed: set[str] = set()
    negated: set[str] = set()
    negating = False
    stop = _stop_words()
    for token in _TOKEN.findall(text.lower().replace("’", "'")):
        if token in _CLAUSE_END:
            negating = False
        elif token in _NEGATIONS or token.endswith("n't"):
            negating = True
        elif token not in stop and len(token) > 1:
            (negated if negating else affirmed).add(stem(token))
    return _Words(frozenset(affirmed), frozenset(negated))


def _restrictions(text: str) -> set[str]:
    return {token for token in _TOKEN.findall(text.lower()) if token in _RESTRICTIONS}


def _found(word: str, pool: frozenset[str]) -> bool:
    return word in pool or any(fuzz.ratio(word, other) >= _FUZZY for other in pool)


@dataclass(frozen=True)
class Meaning:
    """The offline comparison's answer: ``match`` True/False, or ``None`` when the cues do
    not decide (unscored); ``reason`` says which cue decided."""

    match: bool | None
    reason: str


def compare_meaning(value: str, content: str) -> Meaning:
    """Whether ``value`` says ``content``, from numbers, negation and content words (see the
    module docstring); ``Meaning.match`` is ``None`` when they do not decide."""
    agree = numbers_agree(value, content)
    if agree is False:
        return Meaning(False, f"numbers differ: {_numbers(content)} not in {_numbers(value)}")
    said, wanted = _words(value), _words(content)
    for word in sorted(wanted.negated):
        if _found(word, said.affirmed) and not _found(word, said.negated):
            return Meaning(False, f"the content negates {word!r}, the text affirms it")
    for word in sorted(wanted.affirmed - wanted.negated):
        if _found(word, said.negated) and not _found(word, said.affirmed):
            return Meaning(False, f"the content affirms {word!r}, the text negates it")
    words = sorted(wanted.all)
    missing = [word for word in words if not _found(word, said.all)]
    numbers = "numbers agree; " if agree else ""
    if not words:
        if agree:
            return Meaning(True, "numbers agree; no other content word")
        return Meaning(None, "the content has no content word to look for")
    few = len(words) - len(missing) <= len(words) * FEW_FOUND + 1e-9
    restricted = sorted(_restrictions(value) - _restrictions(content))
    if not missing and restricted:
        return Meaning(
            None,
            f"{numbers}all content words found, but the text restricts "
            f"them ({', '.join(restricted)})",
        )
    if not missing:
        return Meaning(True, f"{numbers}all {len(words)} content words found")
    found_text = f"{len(words) - len(missing)} of {len(words)} content words found"
    if few and not agree:
        return Meaning(False, f"{found_text} (missing: {', '.join(missing[:5])})")
    return Meaning(None, f"{numbers}{found_text} (missing: {', '.join(missing[:5])})")
