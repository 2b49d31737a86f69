"""Adaptive difficulty of a weakness thread, exactly as the Agent-Testing Agent (Komoravolu,
Mrini, arXiv 2508.17393, §3.2: adversarial testing) steers it.

Difficulty ``d`` lives in [1, 10] and starts at 5.5. After a test judged with overall
score ``s`` (1–10), the test proposes a target

    q(d, s) = clip(d + η · (2σ((s − 5.5) / 2) − 1), 1, 10),   η = 3

(σ the logistic function: a high score — the bot coped — pushes the difficulty up, a low
one down, by at most η), and the next difficulty is the average of every ``q`` so far
weighted by

    w(s) = exp(−|s − 5.5| / 3)

so that decisive scores (far from 5.5) move the estimate less than borderline ones, which
locate the bot's breaking point. A thread stops after its rounds or when the difficulty
converges (moves less than ``CONVERGENCE`` between two tests).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from sparring.adversarial._weaknesses import Difficulty

START = 5.5
"""The difficulty of a thread's first test (the middle of [1, 10])."""
CENTRE = 5.5
"""The score at which a test neither raises nor lowers the difficulty."""
ETA = 3.0
"""η: the largest step one test can propose (difficulty points)."""
WEIGHT_SCALE = 3.0
"""The scale of ``w(s) = exp(−|s − 5.5| / 3)``."""
LOWEST, HIGHEST = 1.0, 10.0
CONVERGENCE = 0.25
"""A thread has converged when its difficulty moves less than this between two tests."""


def sigmoid(x: float) -> float:
    """The logistic function σ(x) = 1 / (1 + e^(−x))."""
    return 1.0 / (1.0 + math.exp(-x))


def proposed_difficulty(difficulty: float, score: float) -> float:
    """q(d, s) = clip(d + η·(2σ((s − 5.5)/2) − 1), 1, 10): the difficulty one test with
    overall score ``score`` (1–10) proposes after a test at ``difficulty``."""
    step = ETA * (2.0 * sigmoid((score - CENTRE) / 2.0) - 1.0)
    return min(HIGHEST, max(LOWEST, difficulty + step))


def weight(score: float) -> float:
    """w(s) = exp(−|s − 5.5| / 3): how much a test with overall score ``score`` counts."""
    return math.exp(-abs(score - CENTRE) / WEIGHT_SCALE)


def weighted_difficulty(steps: list[tuple[float, float]]) -> float:
    """The next difficulty: the average of the proposals ``q`` weighted by ``w(s)``, for
    ``steps`` = ``[(q, s), …]`` (every test so far). ``START`` when there are none."""
    if not steps:
        return START
    total = sum(weight(s) for _, s in steps)
    return sum(q * weight(s) for q, s in steps) / total


@dataclass
class DifficultyTracker:
    """One thread's difficulty: ``difficulty`` is the next test's, ``history`` the
    difficulties of the tests so far, ``steps`` their ``(q, s)`` pairs."""

    difficulty: float = START
    history: list[float] = field(default_factory=list)
    steps: list[tuple[float, float]] = field(default_factory=list)

    def observe(self, score: float) -> float:
        """Record a test at the current difficulty scored ``score`` (1–10); return the
        next difficulty (paper §3.2)."""
        self.history.append(self.difficulty)
        self.steps.append((proposed_difficulty(self.difficulty, score), score))
        self.difficulty = weighted_difficulty(self.steps)
        return self.difficulty

    @property
    def converged(self) -> bool:
        """True once the last test moved the difficulty less than ``CONVERGENCE``."""
        return bool(self.history) and abs(self.difficulty - self.history[-1]) < CONVERGENCE


def turn_limit(difficulty: float) -> int:
    """User turns allowed in a test at ``difficulty``: ``⌊4 + d⌋``, so 5 at the easiest,
    8–10 at medium (4 ≤ d < 7) and up to 14 at the hardest (harder tests get more room to
    push)."""
    return int(4 + min(HIGHEST, max(LOWEST, difficulty)))


def difficulty_band(difficulty: float) -> Difficulty:
    """The planner's label for ``difficulty``: easy below 4, medium below 7, else hard."""
    if difficulty < 4.0:
        return Difficulty.EASY
    if difficulty < 7.0:
        return Difficulty.MEDIUM
    return Difficulty.HARD
