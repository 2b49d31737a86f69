"""mutate's outcome comes from the outcome module: nothing counted is never a pass,
--min-score fails below it, otherwise the score is a measurement that passes."""

from __future__ import annotations

from sparring.mutation import MutantResult, MutationResult, mutation_outcome, mutation_score


def _result(*statuses: str) -> MutationResult:
    mutants = [MutantResult.model_construct(status=s, operator="op") for s in statuses]
    return MutationResult.model_construct(mutants=mutants, score=mutation_score(mutants))


def test_all_stillborn_is_no_verdict_and_fails_a_min_score() -> None:
    nothing = _result("stillborn", "error")
    assert mutation_outcome(nothing).verdict == "no_verdict"
    assert mutation_outcome(nothing).exit_code == 3
    assert mutation_outcome(nothing, min_score=0.5).exit_code == 1


def test_min_score_is_a_gate_and_the_score_is_named() -> None:
    half = _result("killed", "live", "stillborn")
    assert mutation_outcome(half).verdict == "pass" and "50%" in mutation_outcome(half).summary
    assert mutation_outcome(half, min_score=0.5).exit_code == 0
    below = mutation_outcome(half, min_score=0.75)
    assert below.verdict == "fail" and "below --min-score 75%" in below.summary
