"""The Agent-Testing Agent's difficulty update (arXiv 2508.17393, §3.2), checked against
values computed by hand. Useful identity: 2σ(y) − 1 = tanh(y/2), so with y = (s − 5.5)/2
the step is η·tanh((s − 5.5)/4)."""

from __future__ import annotations

import math

import pytest

from sparring.adversarial import (
    DifficultyTracker,
    difficulty_band,
    proposed_difficulty,
    turn_limit,
    weight,
    weighted_difficulty,
)
from sparring.adversarial._difficulty import START


def test_a_borderline_score_keeps_the_difficulty() -> None:
    # s = 5.5: σ(0) = 0.5, 2·0.5 − 1 = 0, q = 5.5 + 3·0 = 5.5; w = e^0 = 1.
    assert START == 5.5
    assert proposed_difficulty(5.5, 5.5) == 5.5
    assert weight(5.5) == 1.0


def test_a_high_score_raises_the_difficulty_by_eta_tanh() -> None:
    # s = 9.5 at d = 5.5: y = (9.5 − 5.5)/2 = 2, σ(2) = 1/(1 + e^−2) = 1/1.135335283
    # = 0.880797078, 2σ − 1 = 0.761594156, step = 3 × 0.761594156 = 2.284782468,
    # q = 5.5 + 2.284782468 = 7.784782468.
    assert proposed_difficulty(5.5, 9.5) == pytest.approx(7.784782468, abs=1e-9)
    # w(9.5) = exp(−|9.5 − 5.5|/3) = exp(−4/3) = 0.263597138.
    assert weight(9.5) == pytest.approx(0.263597138, abs=1e-9)


def test_the_proposal_is_clipped_to_one_and_ten() -> None:
    # d = 9, s = 10: y = 2.25, 2σ(2.25) − 1 = tanh(1.125) = 0.809301070, q = 9 + 2.42790321
    # = 11.43 → clipped to 10.  d = 2, s = 1: q = 2 − 2.42790321 = −0.43 → clipped to 1.
    assert proposed_difficulty(9.0, 10.0) == 10.0
    assert proposed_difficulty(2.0, 1.0) == 1.0


def test_the_next_difficulty_is_the_w_weighted_mean_of_every_q() -> None:
    tracker = DifficultyTracker()
    # Test 1 at d = 5.5 scored 7.5: step = 3·tanh(2/4) = 3 × 0.462117157 = 1.386351472,
    # q1 = 6.886351472, w1 = exp(−2/3) = 0.513417119. One q: the next d is q1.
    assert tracker.observe(7.5) == pytest.approx(6.886351472, abs=1e-9)
    # Test 2 at d = 6.886351472 scored 4.5: step = 3·tanh(−1/4) = 3 × −0.244918662
    # = −0.734755987, q2 = 6.151595485, w2 = exp(−1/3) = 0.716531311.
    # next = (q1·w1 + q2·w2)/(w1 + w2) = (3.535572 + 4.407818)/1.229948430 = 6.458304525.
    assert tracker.observe(4.5) == pytest.approx(6.458304525, abs=1e-9)
    assert tracker.history == pytest.approx([5.5, 6.886351472])
    assert not tracker.converged  # it moved 0.43 > 0.25


def test_equal_weights_average_plainly() -> None:
    # s = 9.5 then s = 1.5 (both |s − 5.5| = 4, so equal weights exp(−4/3)):
    # q1 = 7.784782468; at d = 7.784782468, s = 1.5: q2 = 7.784782468 − 2.284782468 = 5.5;
    # next = (7.784782468 + 5.5)/2 = 6.642391234.
    tracker = DifficultyTracker()
    tracker.observe(9.5)
    assert tracker.observe(1.5) == pytest.approx(6.642391234, abs=1e-9)
    assert weighted_difficulty([]) == START


def test_converged_once_the_difficulty_stops_moving() -> None:
    tracker = DifficultyTracker()
    tracker.observe(5.5)  # q = 5.5, w = 1 → d stays 5.5: moved 0 < 0.25
    assert tracker.converged
    assert not DifficultyTracker().converged  # no test yet


def test_turn_limits_and_bands() -> None:
    # ⌊4 + d⌋: medium (4 ≤ d < 7) gives 8, 9 or 10 turns; 5 at d = 1, 14 at d = 10.
    assert [turn_limit(d) for d in (4.0, 5.5, 6.99)] == [8, 9, 10]
    assert (turn_limit(1.0), turn_limit(10.0), turn_limit(-3.0)) == (5, 14, 5)
    assert [difficulty_band(d).value for d in (3.9, 4.0, 6.9, 7.0)] == [
        "easy",
        "medium",
        "medium",
        "hard",
    ]
    assert math.isclose(weight(1.0), weight(10.0))  # symmetric around 5.5
