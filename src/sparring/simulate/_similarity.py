"""Repeated-reply detection, computed on every chatbot reply.

``RepetitionTracker`` compares each reply with the first of the current run by
``sparring.similarity.indel_similarity`` (microseconds for two short strings; at threshold
1.0, equality of the normalised texts, linear in their length whatever it is). Whether a
reply is the fallback is ``sparring.fallback.is_fallback``'s decision; SENSEI-check's
corpus-level ``repeated_answers`` (TF-IDF) lives in ``sparring.check``.
"""

from __future__ import annotations

from sparring.similarity import indel_similarity, normalize_text


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
        self._first_normalized: str | None = None
        self.count = 0
        """Length of the current run of similar replies."""

    def observe(self, reply_text: str) -> bool:
        """Record one reply; True when the current run has reached ``n`` replies."""
        if self._first is not None and self._similar(reply_text, self._first):
            self.count += 1
        else:
            self._first, self._first_normalized = reply_text, None
            self.count = 1
        return self.count >= self.n

    def _similar(self, a: str, b: str) -> bool:
        if a == b:  # similarity 1.0 whatever the threshold, without normalising 64 KB twice
            return True
        if self.threshold >= 1.0:  # the same text: no edit distance of two long replies
            if self._first_normalized is None:
                self._first_normalized = normalize_text(b)
            return normalize_text(a) == self._first_normalized
        return indel_similarity(a, b) >= self.threshold

    def reset(self) -> None:
        """Forget every reply seen so far."""
        self._first = self._first_normalized = None
        self.count = 0


def _check_threshold(threshold: float) -> None:
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must be within [0, 1] (got {threshold})")
