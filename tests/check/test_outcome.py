"""No false green from ``check``: generic failures, errors and vacuous or inconclusive
verdicts in the exit code (issue 8)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from check_builders import record, run, write_rules
from typer.testing import CliRunner

from sparring.check import check, load_rules
from sparring.check._outcome import EXIT_FAIL, EXIT_NO_VERDICT, EXIT_PASS, outcome
from sparring.cli import app
from sparring.conversations import RunStore
from sparring.conversations._records import RunManifest

cli = CliRunner()


def _run_dir(tmp_path: Path, *records: object) -> Path:
    from datetime import UTC, datetime

    store = RunStore.create(
        tmp_path / "run",
        RunManifest(run_id="r", created_at=datetime.now(UTC), simulator="x", sparring_version="0"),
    )
    for item in records:
        store.write(item)  # type: ignore[arg-type]
    return store.path


def test_a_generic_failure_fails_the_check_unless_left_out(tmp_path: Path) -> None:
    rules = write_rules(tmp_path / "rules", ok="name: ok\nthen: True\n")
    run_dir = _run_dir(tmp_path, record("a"), record("down", errors=[500]))
    counted = cli.invoke(app, ["check", str(rules), "--run", str(run_dir), "--no-store"])
    assert counted.exit_code == EXIT_FAIL, counted.output
    assert "no_response 1" in counted.output
    ignored = cli.invoke(
        app, ["check", str(rules), "--run", str(run_dir), "--no-store", "--no-generic"]
    )
    assert ignored.exit_code == EXIT_PASS, ignored.output


def test_always_over_no_chatbot_turn_is_not_applicable(tmp_path: Path) -> None:
    rule = "name: polite\nthen: always('sorry' not in turn.text, role='assistant')\n"
    silent = record("silent", turns=[("user", "hello?")])
    report = run(tmp_path, rule, [silent])
    [verdict] = report.result("polite").verdicts
    assert verdict.status == "not_applicable"
    assert "no turns" in (verdict.reason or "")
    never = run(tmp_path, "name: n\nthen: never(turn.text == '', role='assistant')\n", [silent])
    assert never.result("n").verdicts[0].status == "not_applicable"


def test_a_rule_set_where_nothing_applied_is_no_verdict_not_a_pass(tmp_path: Path) -> None:
    rules = load_rules(
        [
            write_rules(
                tmp_path / "r", a="name: a\nthen: always(turn.text != '', role='assistant')\n"
            )
        ]
    )
    report = check(rules, [record("silent", turns=[("user", "hi")])])
    decision = outcome(report)
    assert report.inconclusive and decision.code == EXIT_NO_VERDICT
    assert decision.status == "NO VERDICT"


def test_a_rule_that_raises_gets_an_errors_column_a_console_line_and_fails(
    tmp_path: Path,
) -> None:
    rules = write_rules(tmp_path / "rules", div="name: div\nthen: 1 / 0 > 0\n")
    run_dir = _run_dir(tmp_path, record("a"), record("b"))
    out = tmp_path / "r.csv"
    result = cli.invoke(
        app, ["check", str(rules), "--run", str(run_dir), "--no-store", "--csv", str(out)]
    )
    assert result.exit_code == EXIT_FAIL
    assert "2 of 2 checks raised an error: ZeroDivisionError" in result.output
    row = next(r for r in csv.DictReader(out.open()) if r["rule"] == "div")
    assert row["errors"] == "2" and row["fail_rate"] == "0.00%"


def test_an_inactive_rule_naming_an_unknown_function_is_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = write_rules(
        tmp_path / "rules",
        off="name: off\nactive: False\nthen: some_unknown_function(chatbot_phrases)\n",
        on="name: on\nthen: True\n",
    )
    with caplog.at_level("WARNING"):
        rules = load_rules([folder])
    assert [r.name for r in rules.active] == ["on"]
    assert any("some_unknown_function" in r.getMessage() for r in caplog.records)
    report = check(rules, [record("a")])
    assert [r.rule for r in report.results] == ["on"]
