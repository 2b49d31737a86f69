"""No green on an incomplete run (issue 26, defect 8): a run that holds fewer conversations
than it planned — a simulate or probe run killed half-way — is never a PASS in ``check``,
never "passed" in the report, never NO REGRESSION in ``diff``."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from check_builders import record, write_rules
from typer.testing import CliRunner

from sparring.cli import app
from sparring.conversations import RunStore, incomplete_run
from sparring.conversations._records import RunManifest
from sparring.report import RunView
from sparring.runner import start

cli = CliRunner()
RULE = "name: polite\noracle: not chatbot_returns('stupid')\n"


def _run(tmp_path: Path, name: str, planned: int, written: dict[str, str], rules: Path) -> Path:
    """A run that planned ``planned`` conversations c0… and holds ``written`` (what a run
    killed half-way leaves), checked (the check's verdict stored in it)."""
    manifest = RunManifest(
        run_id=name,
        created_at=datetime.now(UTC),
        sparring_version="0",
        planned=[f"c{i}" for i in range(planned)],
    )
    store = RunStore.create(tmp_path / name, manifest)
    records = [record(cid, turns=[("user", "hi"), ("assistant", t)]) for cid, t in written.items()]
    for item in records:
        store.write(item)
    start("check", {"rules": [str(rules)], "run": str(store.path)}, report=False)
    return store.path


def _text(output: str) -> str:
    return " ".join(output.split())


def test_incomplete_run_names_the_missing_conversations(tmp_path: Path) -> None:
    rules = write_rules(tmp_path / "rules", polite=RULE)
    run = _run(tmp_path, "a", 40, {f"c{i}": "Hello!" for i in range(17)}, rules)
    found = incomplete_run(run)
    assert found is not None and found.planned == 40
    assert found.missing[:2] == ["c17", "c18"] and len(found.missing) == 23
    assert "17 of 40 planned conversations" in found.reason and "and 18 more" in found.reason
    complete = _run(tmp_path, "b", 2, {"c0": "Hello!", "c1": "Hi."}, rules)
    assert incomplete_run(complete) is None
    assert incomplete_run(tmp_path / "rules") is None  # not a run directory


def test_check_on_a_killed_run_is_no_verdict_not_pass(tmp_path: Path) -> None:
    rules = write_rules(tmp_path / "rules", polite=RULE)
    run = _run(tmp_path, "a", 40, {f"c{i}": "Hello!" for i in range(17)}, rules)
    result = cli.invoke(app, ["check", str(rules), "--run", str(run), "--no-store"])
    assert result.exit_code == 3, result.output
    assert "NO VERDICT:" in result.output and "PASS:" not in result.output
    assert "missing c17, c18" in _text(result.output)


def test_a_failure_in_a_killed_run_still_fails(tmp_path: Path) -> None:
    rules = write_rules(tmp_path / "rules", polite=RULE)
    run = _run(tmp_path, "a", 4, {"c0": "Hello, stupid!"}, rules)
    result = cli.invoke(app, ["check", str(rules), "--run", str(run), "--no-store"])
    assert result.exit_code == 1, result.output
    assert "FAIL" in result.output and "incomplete" in _text(result.output)


def test_the_report_of_a_killed_run_is_not_passed(tmp_path: Path) -> None:
    rules = write_rules(tmp_path / "rules", polite=RULE)
    killed = _run(tmp_path, "a", 40, {f"c{i}": "Hello!" for i in range(17)}, rules)
    verdict = RunView.open(killed).verdict
    assert verdict.status == "no verdict"
    assert any("17 of 40" in reason for reason in verdict.reasons)
    whole = _run(tmp_path, "b", 2, {"c0": "Hello!", "c1": "Hi."}, rules)
    assert RunView.open(whole).verdict.status == "passed"


def test_diff_against_a_killed_run_is_no_verdict_not_no_regression(tmp_path: Path) -> None:
    rules = write_rules(tmp_path / "rules", polite=RULE)
    baseline = _run(tmp_path, "a", 4, {f"c{i}": "Hello!" for i in range(4)}, rules)
    killed = _run(tmp_path, "b", 4, {"c0": "Hello!"}, rules)
    result = cli.invoke(app, ["diff", str(baseline), str(killed)])
    assert result.exit_code == 3, result.output
    assert "NO VERDICT" in result.output and "NO REGRESSION" not in result.output
    assert "missing c1, c2, c3" in _text(result.output)
    whole = _run(tmp_path, "c", 4, {f"c{i}": "Hello!" for i in range(4)}, rules)
    assert cli.invoke(app, ["diff", str(baseline), str(whole)]).exit_code == 0
