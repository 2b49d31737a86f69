"""Text similarity for fallback and loop detection, computed on every chatbot reply.

One measure serves both: the normalised Indel similarity of RapidFuzz (``fuzz.ratio`` / 100,
i.e. ``1 - edit distance / (len(a) + len(b))`` with insertions and deletions, the same
quantity as ``difflib.SequenceMatcher.ratio`` without its junk heuristic), computed on
case-folded text whose punctuation and runs of whitespace are collapsed. It was chosen
over TF-IDF cosine because it runs once per turn on two short strings: it needs no fitted
vocabulary, is stable for one-word replies, and takes microseconds (TF-IDF needs a
vectoriser fit per pair, milliseconds). SENSEI-check's corpus-level ``repeated_answers``
(TF-IDF) lives in ``sparring.check``; this module is only the per-turn detector.
"""

from __future__ import annotations

import re
import unicodedata

from rapidfuzz import fuzz

_NOT_WORD = re.compile(r"[^\w]+")


def normalize(text: str) -> str:
    """Case-folded, NFKC-normalised text with punctuation and whitespace runs as one space."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _NOT_WORD.sub(" ", folded).strip()


def similarity(a: str, b: str) -> float:
    """Similarity of two texts in [0, 1] (see the module docstring).

    Two texts that are empty after normalisation are identical (1.0); an empty text and a
    non-empty one share nothing (0.0).
    """
    na, nb = normalize(a), normalize(b)
    if not na and not nb:
        return 1.0
    if not na or not nb:
        return 0.0
    return float(fuzz.ratio(na, nb)) / 100.0


def is_fallback(reply: str, fallback: str | None, threshold: float = 0.8) -> bool:
    """Whether ``reply`` is the chatbot's fallback message (``ConversationSpec.fallback``:
    the profile's ``chatbot.fallback``, else chatbot.yaml's ``info.fallback``).

    True when the whole reply, or one of its lines (a chatbot reply made of several
    messages is joined with newlines), is at least ``threshold`` similar to ``fallback``.
    A missing or empty fallback never matches. Raises ``ValueError`` for a threshold
    outside [0, 1].
    """
    _check_threshold(threshold)
    if not fallback or not normalize(fallback):
        return False
    if similarity(reply, fallback) >= threshold:
        return True
    lines = [line for line in reply.splitlines() if normalize(line)]
    return len(lines) > 1 and any(similarity(line, fallback) >= threshold for line in lines)


class RepetitionTracker:
    """Detects a chatbot that gives the same reply ``n`` times in a row (error code 1002).

    ``observe`` is called with each chatbot reply in order; a reply at least ``threshold``
    similar to the first reply of the current run extends the run, any other starts a new
    run. Raises ``ValueError`` for ``n < 1`` or a threshold outside [0, 1].
    """

    def __init__(self, n: int, threshold: float = 0.95) -> None:
        if n < 1:
            raise ValueError(f"n must be at least 1 (got {n})")
        _check_threshold(threshold)
        self.n = n
        self.threshold = threshold
        self._first: str | None = None
        self.count = 0
        """Length of the current run of similar replies."""

    def observe(self, reply_text: str) -> bool:
        """Record one reply; True when the current run has reached ``n`` replies."""
        if self._first is not None and similarity(reply_text, self._first) >= self.threshold:
            self.count += 1
        else:
            self._first = reply_text
            self.count = 1
        return self.count >= self.n

    def reset(self) -> None:
        """Forget every reply seen so far."""
        self._first = None
        self.count = 0


def _check_threshold(threshold: float) -> None:
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must be within [0, 1] (got {threshold})")
