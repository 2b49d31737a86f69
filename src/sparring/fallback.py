"""The one fallback recogniser: is this chatbot reply its "I did not understand" message?

``is_fallback(text, config) -> FallbackMatch | None`` is the only place sparring decides
it; ``simulate`` (the runner and output extraction), ``explore`` (offline crawl and the
model-backed TRACER sessions), the adversarial probes and the dialogue acts call it
(``tests/test_fallback.py`` keeps it so). ``evaluate``'s offline breakdown classifier
keeps the fallback features it was trained with (a shipped, measured model: a new
feature means retraining and re-measuring it). A reply is the fallback when, in this order:

1. **A configured phrase** (``FallbackConfig.phrases``: the profile's
   ``chatbot.fallback`` override first, then chatbot.yaml's ``info.fallback``, then the
   variants explore found) is contained in the reply, or the reply — or one of its lines
   (a reply of several messages is joined with newlines) — is at least ``threshold``
   similar to it (``sparring.similarity.indel_similarity``, 0..1). Containment comes
   from explore and the probes ("Sorry, I didn't get that. Here is the menu: …" is the
   fallback followed by help); the per-line similarity from simulate (a short fallback
   inside a long multi-message reply).
2. **A generic phrase** (``GENERIC_PATTERNS``: "I didn't understand", "could you
   rephrase", "say that again", "not sure what you mean", …), whatever the configuration:
   the lists simulate's dialogue acts, the probes and explore kept apart are one list
   here. English only; a chatbot in another language is recognised by its configured
   phrase. ``FallbackConfig(generic=False)`` turns the list off for a caller that must
   only see the chatbot's own phrase.

Where the old rules disagreed, the more accurate one was kept: containment *and*
similarity (explore missed a fallback said on one line of several; simulate missed a
fallback followed by a hint), and the generic list applies everywhere (simulate counted
"Sorry, I didn't get that" as no fallback when the profile named another phrase, so
repetitions of it ended the conversation as a loop). ``FallbackMatch.reprompt`` says
whether the reply, beside the fallback, asks a question of its own (a form asking for its
slot again), which explore's crawl treats as a question rather than the fallback.

A long reply is read at its ends (``sparring._window.ends``: the first and last
``END_CHARS`` characters), where a chatbot says it did not understand; a line is compared
with a phrase only when their lengths allow the threshold (the Indel similarity of texts of
lengths ``a`` and ``b`` is at most ``2 min(a, b) / (a + b)``). Each reply is so recognised
in a time bounded whatever its length (issue 36).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from rapidfuzz import fuzz

from sparring._window import ends
from sparring.similarity import indel_similarity, normalize_text

__all__ = [
    "DEFAULT_THRESHOLD",
    "GENERIC_PATTERNS",
    "FallbackConfig",
    "FallbackMatch",
    "is_fallback",
]

DEFAULT_THRESHOLD = 0.8
"""Similarity (0..1) from which a reply, or one of its lines, is a configured phrase."""

GENERIC_PATTERNS: tuple[str, ...] = (
    r"\b(?:i|we)\s+(?:really\s+|just\s+)?(?:didn't|did not|don't|do not|couldn't|could not|"
    r"can't|cannot|can not)\s+(?:quite\s+)?(?:understand|follow)\b",
    r"\b(?:didn't|did not|couldn't|could not)\s+(?:quite\s+)?(?:get|catch)\b"
    r"(?!\s+(?:a|an|any|some|my|our|your|the (?!point|meaning)))",
    r"\bnot sure (?:what you mean|i understand|i follow|how to help)\b",
    r"\bi(?:'m| am) not (?:sure i (?:understand|follow)|following|understanding)\b",
    r"\b(?:could|can|would) you (?:please )?(?:rephrase|repeat|say (?:that|it) again|try again)\b",
    r"\b(?:please )?rephrase\b",
    r"\b(?:say|repeat) (?:that|it) (?:again|differently|another way)\b",
    r"\bi(?:'m| am) (?:sorry, )?(?:confused|lost)\b",
    r"\b(?:don't|do not|doesn't|does not) have an? (?:answer|response|reply) (?:for|to) "
    r"(?:that|this|it)\b",
    r"\b(?:that|this|it) (?:was|is) too (?:complicated|difficult|hard) for me\b",
    r"\bi (?:don't|do not) know what you mean\b",
)
"""Phrases of a generic fallback, as regular expressions on lower-cased text with ``'``
apostrophes ("I don't understand", "could you rephrase", "I didn't get that"; not "I
didn't get a reply from the kitchen": what follows is something else the bot did not get;
not "… what you don't understand": the bot's own not understanding, first person)."""

_GENERIC = [re.compile(p) for p in GENERIC_PATTERNS]
_SENTENCE = re.compile(r"(?<=[.?!])\s+|\n+")


@dataclass(frozen=True)
class FallbackConfig:
    """What a chatbot's fallback looks like: its ``phrases`` (most specific first: the
    profile's override, chatbot.yaml's ``info.fallback``, variants explore found; empty
    ones ignored), whether the ``generic`` phrase list applies, and the similarity
    ``threshold`` (0..1). ``FallbackConfig.of(info_fallback, override)`` builds the usual
    one. Raises ``ValueError`` for a threshold outside [0, 1]."""

    phrases: tuple[str, ...] = ()
    generic: bool = True
    threshold: float = DEFAULT_THRESHOLD

    def __post_init__(self) -> None:
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"threshold must be within [0, 1] (got {self.threshold})")
        kept = tuple(dict.fromkeys(p for p in self.phrases if p and normalize_text(p)))
        object.__setattr__(self, "phrases", kept)

    @classmethod
    def of(
        cls,
        configured: str | None = None,
        override: str | None = None,
        *,
        variants: Iterable[str] = (),
        generic: bool = True,
        threshold: float = DEFAULT_THRESHOLD,
    ) -> FallbackConfig:
        """The configuration from chatbot.yaml's ``info.fallback`` (``configured``), a
        profile's ``chatbot.fallback`` (``override``, tried first) and ``variants``."""
        phrases = tuple(p for p in (override, configured, *variants) if p)
        return cls(phrases, generic=generic, threshold=threshold)


@dataclass(frozen=True)
class FallbackMatch:
    """Why a reply is the fallback: ``kind`` (``configured`` phrase or ``generic``
    phrase), the ``phrase`` matched (the configured phrase, or the generic words found),
    ``similarity`` (0..1; 1.0 for containment and generic phrases) and ``reprompt``
    (beside the fallback, the reply asks a question of its own)."""

    kind: Literal["configured", "generic"]
    phrase: str
    similarity: float
    reprompt: bool = False


def is_fallback(text: str, config: FallbackConfig | str | None = None) -> FallbackMatch | None:
    """The fallback match of the chatbot reply ``text`` (see the module docstring), or
    ``None``. ``config`` may be a ``FallbackConfig``, one configured phrase, or ``None``
    (generic phrases only). Never raises."""
    if not isinstance(config, FallbackConfig):
        config = FallbackConfig.of(config)
    if not text or not text.strip():
        return None
    text = ends(text)
    for phrase in config.phrases:
        found = _configured(text, phrase, config.threshold)
        if found is not None:
            return FallbackMatch("configured", phrase, found, _reprompt(text, phrase))
    if config.generic:
        low = " ".join(text.replace("\u2019", "'").casefold().split())
        for pattern in _GENERIC:
            hit = pattern.search(low)
            if hit:
                return FallbackMatch("generic", hit.group(), 1.0, _reprompt(low, hit.group()))
    return None


def _configured(text: str, phrase: str, threshold: float) -> float | None:
    """The similarity at which ``text`` is ``phrase`` (1.0 when it contains it)."""
    wanted = normalize_text(phrase)
    said = normalize_text(text)
    if wanted and f" {wanted} " in f" {said} ":
        return 1.0
    lines = [said, *(normalize_text(line) for line in text.splitlines())]
    best = max((_similarity(line, wanted, threshold) for line in lines if line), default=0.0)
    return best if best >= threshold else None


def _similarity(said: str, wanted: str, threshold: float) -> float:
    """``indel_similarity`` of two normalised texts, 0.0 without comparing them when their
    lengths alone keep it under ``threshold`` (a long line and a short phrase)."""
    if not wanted:
        return 0.0
    shorter, total = min(len(said), len(wanted)), len(said) + len(wanted)
    if 2 * shorter < threshold * total - 1e-9:
        return 0.0
    return float(fuzz.ratio(said, wanted)) / 100.0


def _reprompt(text: str, phrase: str) -> bool:
    """Whether ``text``, without the sentences that say ``phrase``, still asks a question."""
    wanted = normalize_text(phrase)
    parts = [phrase, *_SENTENCE.split(phrase)]

    def said_by_the_fallback(sentence: str) -> bool:
        said = normalize_text(sentence)
        if not said or said in wanted or wanted in said:
            return True
        return any(indel_similarity(sentence, part) >= DEFAULT_THRESHOLD for part in parts)

    rest = [s for s in _SENTENCE.split(text) if s.strip() and not said_by_the_fallback(s)]
    return any("?" in s for s in rest)
