"""The one typo generator: seeded character-level typos and leetspeak, no model.

Every part of sparring that misspells a user's words calls ``make_typos``: the offline
user simulator's ``make spelling mistakes`` interaction style (SENSEI, Ferreira et al.
2025, §3), metamorphic testing's ``typos`` perturbation and ``add typos`` transformation
(METAL, Hyun, Guo and Babar, ICST 2024, §III-B: character-level perturbations), and
any probe that needs a misspelled request. ``leetspeak`` is the one letter-to-digit
rewrite, read by the metamorphic ``leetspeak`` perturbation and the probes' encoded
turns.
``tests/jobs/test_architecture.py`` finds no other typo generator.

A typo is one of: adjacent letters swapped, a letter dropped, a letter doubled, a letter
replaced by a QWERTY neighbour — never in a word's first letter, so the word stays
recognisable as a misspelling. Substrings given as ``protected`` (a goal's values: the
chatbot must still receive the value the profile picked) are never altered.

Why our own code: ``typo`` (PyPI) reseeds and draws from the global ``random`` module,
which breaks reproducibility of concurrent conversations; ``nlpaug`` is unmaintained since
2022 and pulls numpy/pandas for four character edits; ``pyspellchecker`` corrects typos,
it does not make them. Everything here draws from a caller-owned ``random.Random``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

TYPO_RATE = 0.3
"""Share of eligible words (3+ letters, not protected) that get one typo by default."""

_QWERTY_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
_LEET = {"a": "4", "e": "3", "i": "1", "o": "0", "s": "5", "t": "7"}


def _neighbours() -> dict[str, str]:
    grid = {ch: (r, c) for r, row in enumerate(_QWERTY_ROWS) for c, ch in enumerate(row)}
    out: dict[str, str] = {}
    for ch, (r, c) in grid.items():
        out[ch] = "".join(
            other
            for other, (r2, c2) in grid.items()
            if other != ch and abs(r - r2) <= 1 and abs(c - c2) <= 1
        )
    return out


_NEIGHBOURS = _neighbours()


def make_typos(
    text: str,
    rng: random.Random,
    *,
    rate: float = TYPO_RATE,
    protected: Sequence[str] = (),
    at_least_one: bool = True,
) -> str:
    """``text`` with one typo in ``round(rate × n)`` of its ``n`` words of 3+ letters
    outside ``protected`` (matched case-insensitively; ``rate`` 0–1), and in one word when
    that rounds to none and ``at_least_one``; the same ``rng`` state gives the same
    text."""
    spans = protected_spans(text, protected)
    words = [
        m
        for m in re.finditer(r"[^\W\d_]{3,}", text)
        if all(m.end() <= start or m.start() >= end for start, end in spans)
    ]
    if not words:
        return text
    count = min(len(words), max(int(at_least_one), round(rate * len(words))))
    out = text
    for index in sorted(rng.sample(range(len(words)), count), reverse=True):
        match = words[index]
        out = out[: match.start()] + typo(match.group(), rng) + out[match.end() :]
    return out


def typo(word: str, rng: random.Random) -> str:
    """One typo in ``word`` (2+ characters; its first letter kept): a swap, a dropped or
    doubled letter, or a QWERTY neighbour."""
    if len(word) < 2:
        return word
    swaps = [i for i in range(1, len(word) - 1) if word[i].lower() != word[i + 1].lower()]
    keyed = [i for i in range(1, len(word)) if word[i].lower() in _NEIGHBOURS]
    kinds = ["drop", "double"] + (["swap"] if swaps else []) + (["neighbour"] if keyed else [])
    kind = rng.choice(kinds)
    if kind == "swap":
        i = rng.choice(swaps)
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if kind == "neighbour":
        i = rng.choice(keyed)
        new = rng.choice(_NEIGHBOURS[word[i].lower()])
        return word[:i] + (new.upper() if word[i].isupper() else new) + word[i + 1 :]
    i = rng.randrange(1, len(word))
    return word[:i] + word[i + 1 :] if kind == "drop" else word[: i + 1] + word[i] + word[i + 1 :]


def leetspeak(text: str, rng: random.Random | None = None, *, share: float = 1.0) -> str:
    """``text`` with the letters a, e, i, o, s, t written 4, 3, 1, 0, 5, 7: every one
    (``share`` 1, no ``rng`` needed), or about ``share`` of them drawn from ``rng``."""
    if share >= 1.0 or rng is None:
        return "".join(_LEET.get(ch.lower(), ch) for ch in text)
    return "".join(
        _LEET[ch.lower()] if ch.lower() in _LEET and rng.random() < share else ch for ch in text
    )


def protected_spans(text: str, protected: Sequence[str]) -> list[tuple[int, int]]:
    """The ``(start, end)`` spans of ``text`` where a ``protected`` substring occurs
    (case-insensitive, longest first, never overlapping), in order."""
    spans: list[tuple[int, int]] = []
    for value in sorted({p for p in protected if p.strip()}, key=len, reverse=True):
        for match in re.finditer(re.escape(value), text, re.IGNORECASE):
            if all(match.end() <= s or match.start() >= e for s, e in spans):
                spans.append(match.span())
    return sorted(spans)


__all__ = ["TYPO_RATE", "leetspeak", "make_typos", "protected_spans", "typo"]
