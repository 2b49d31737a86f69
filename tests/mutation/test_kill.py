"""The kill decision and the score, on hand-made check reports (exact numbers)."""

from __future__ import annotations

from datetime import UTC, datetime

from sparring.check import CheckReport, Counts, RuleResult
from sparring.mutation import Location
from sparring.mutation._kill import failing, judge
from sparring.mutation._result import MutantResult, mutation_score, operator_table


def result(rule: str, *, fail: int = 0, passed: int = 0, error: int = 0, generic: bool = False):
    counts = Counts(passed=passed, fail=fail, error=error)
    return RuleResult(rule=rule, kind="generic" if generic else "single", counts=counts)


def report(*results: RuleResult) -> CheckReport:
    rules = [r for r in results if r.kind != "generic"]
    generic = [r for r in results if r.kind == "generic"]
    return CheckReport(created_at=datetime.now(UTC), results=rules, generic=generic)


ORIGINAL = report(
    result("confirms", passed=3),
    result("flaky_rule", fail=1, passed=2),
    result("prices", passed=3),
    result("goal_not_completed", passed=3, generic=True),
    result("timeout", fail=1, passed=2, generic=True),
)


def test_failing_lists_rules_and_generic_codes_with_a_fail_only() -> None:
    mixed = report(result("raises", error=2, passed=1), result("fails", fail=1), result("ok"))
    assert failing(mixed) == ["fails"]
    assert failing(ORIGINAL) == ["flaky_rule", "timeout"]


def test_a_rule_failing_only_on_the_mutant_kills_it() -> None:
    mutant = report(result("confirms", fail=2, passed=1), result("prices", passed=3))
    kill = judge(ORIGINAL, mutant)
    assert kill.killed and kill.killed_by == ("confirms",)


def test_false_positives_never_kill() -> None:
    mutant = report(result("flaky_rule", fail=3), result("timeout", fail=3, generic=True))
    assert judge(ORIGINAL, mutant).killed is False
    assert judge(["flaky_rule", "timeout"], mutant).killed_by == ()


def test_generic_failures_kill_and_are_named_with_the_rules() -> None:
    mutant = report(
        result("prices", fail=1),
        result("goal_not_completed", fail=2, passed=1, generic=True),
        result("timeout", fail=3, generic=True),
    )
    assert judge(ORIGINAL, mutant).killed_by == ("goal_not_completed", "prices")


def test_a_rule_that_raises_on_the_mutant_does_not_kill_it() -> None:
    mutant = report(result("confirms", error=3), result("prices", passed=3))
    assert judge(ORIGINAL, mutant).killed is False


def mutant(operator: str, status: str) -> MutantResult:
    return MutantResult(
        id=f"{operator}@f#{status}", operator=operator, status=status,  # type: ignore[arg-type]
        location=Location(file="f", key=status), description="",
    )  # fmt: skip


def test_score_leaves_stillborn_and_errors_out() -> None:
    mutants = [
        mutant("a", "killed"), mutant("a", "killed"), mutant("a", "live"),
        mutant("b", "stillborn"), mutant("b", "error"), mutant("b", "killed"),
        mutant("c", "stillborn"),
    ]  # fmt: skip
    assert mutation_score(mutants) == 3 / 4
    rows = {row.operator: row for row in operator_table(mutants)}
    assert (rows["a"].total, rows["a"].killed, rows["a"].live, rows["a"].score) == (3, 2, 1, 2 / 3)
    assert (rows["b"].stillborn, rows["b"].error, rows["b"].score) == (1, 1, 1.0)
    assert rows["c"].score is None
    assert mutation_score([mutant("c", "stillborn")]) is None
