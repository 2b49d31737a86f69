"""Regular expressions from rules and probes run with a time limit (issue 26, defect 16):
a catastrophically backtracking pattern ends as an error verdict naming the limit, never
a hang and never a pass."""

from __future__ import annotations

from pathlib import Path

import pytest
from check_builders import record, rule_set

from sparring._regex import PatternTimeout, compile_pattern, search
from sparring.adversarial._probes import _oracles
from sparring.adversarial._probes._model import Oracle
from sparring.adversarial._probes._oracles import Reply, judge_oracle
from sparring.check import Limits, check

SLOW = "(x+x+)+y"
"""Exponential on a run of x without a y, in re and regex alike."""


def test_a_slow_pattern_is_stopped_at_the_limit() -> None:
    with pytest.raises(PatternTimeout, match=r"ran longer than 0\.2 s"):
        search(compile_pattern(SLOW), "x" * 5000, 0.2)
    assert search(compile_pattern("(.*.*)*XYZ"), "a" * 5000, 0.2) is None  # re: minutes


def test_turn_after_with_a_slow_pattern_is_an_error_verdict(tmp_path: Path) -> None:
    rules = rule_set(tmp_path, f"name: slow\nthen: turn_after('{SLOW}') is None\n")
    turns = [("user", "x" * 5000), ("assistant", "ok")]
    report = check(rules, [record("a", turns=turns)], limits=Limits(timeout=0.2))
    verdict = report.results[0].verdicts[0]
    assert verdict.status == "error"
    assert "ran longer than the rule's time limit of 0.2 s" in (verdict.reason or "")


def test_turn_after_still_matches_ordinary_patterns(tmp_path: Path) -> None:
    rules = rule_set(tmp_path, "name: after\nthen: turn_after('PIZZA') == 'which size?'\n")
    turns = [("user", "a pizza"), ("assistant", "which size?")]
    assert check(rules, [record("a", turns=turns)]).results[0].verdicts[0].status == "pass"


def test_a_probe_regex_that_backtracks_raises_instead_of_hanging(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_oracles, "REGEX_TIMEOUT", 0.2)
    oracle = Oracle(kind="must_not_contain", patterns=[SLOW], regex=True)
    with pytest.raises(PatternTimeout):
        judge_oracle(oracle, [Reply(0, 1, "x" * 100_000, ("hi",))], None)


def test_a_probe_pattern_that_does_not_compile_is_refused_on_load() -> None:
    with pytest.raises(ValueError, match="not a regular expression"):
        Oracle(kind="must_contain", patterns=["(unclosed"], regex=True)
