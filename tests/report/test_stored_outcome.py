"""The report reads the verdict the runner stored in the manifest, it does not decide it
again: the job's outcome, combined with the outcome of every check stored after it (also
kept with its report, ``CheckReport.outcome``)."""

from __future__ import annotations

import json
from pathlib import Path

from sparring.check import DEFAULT_RULES
from sparring.report import RunView
from sparring.runner import start

DATA = Path(__file__).parents[1] / "simulate" / "data"


def _checked_run(folder: Path) -> tuple[Path, Path]:
    settings = {"profiles": [str(DATA / "profiles")], "chatbot": str(DATA / "chatbot.yaml")}
    run_dir = start("simulate", settings, folder).run_dir
    assert run_dir is not None
    checked = start("check", {"rules": [str(DEFAULT_RULES)], "run": str(run_dir)})
    stored = checked.result.stored
    assert stored is not None
    return run_dir, stored


def test_the_check_outcome_is_stored_and_the_report_shows_it(tmp_path: Path) -> None:
    run_dir, stored = _checked_run(tmp_path / "run")
    report = json.loads(stored.read_text(encoding="utf-8"))
    decided = start("check", {"rules": [str(DEFAULT_RULES)], "run": str(run_dir)}).outcome
    assert report["outcome"] == decided.model_dump(mode="json")
    view = RunView.open(run_dir)
    assert view.verdict.reasons == decided.reasons  # simulate's "recorded" says nothing now

    # the verdict stored in the manifest is what the report says, whatever the records
    # or the check reports would give: the report never decides it again
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    manifest["outcome"] = {"verdict": "fail", "reasons": ["stored: 1 rule failed: made_up"]}
    (run_dir / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    view = RunView.open(run_dir)
    assert (view.verdict.status, view.verdict.reasons) == (
        "failed",
        ["stored: 1 rule failed: made_up"],
    )


def test_a_run_written_before_its_verdict_was_stored_reads_its_check_reports(
    tmp_path: Path,
) -> None:
    """A run without a stored verdict (before 0.3): the outcomes stored with its check
    reports, else *no verdict* naming the command that judges it — never the records."""
    run_dir, stored = _checked_run(tmp_path / "run")
    now = RunView.open(run_dir).verdict
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    for key in ("outcome", "job_outcome", "judged"):
        manifest.pop(key)
    (run_dir / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    old = RunView.open(run_dir).verdict
    assert (old.status, old.reasons) == (now.status, now.reasons)
    report = json.loads(stored.read_text(encoding="utf-8"))
    report.pop("outcome")
    stored.write_text(json.dumps(report), encoding="utf-8")
    unknown = RunView.open(run_dir).verdict
    assert unknown.status == "no verdict" and "sparring check RULES --run run" in unknown.reasons[0]


def test_the_run_jobs_outcome_is_the_reports_verdict(tmp_path: Path) -> None:
    run_dir, _ = _checked_run(tmp_path / "run")
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    manifest["job"] = "run"
    manifest["outcome"] = {"verdict": "no_verdict", "reasons": ["nothing tested beyond x"]}
    (run_dir / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    verdict = RunView.open(run_dir).verdict
    assert (verdict.status, verdict.reasons) == ("no verdict", ["nothing tested beyond x"])


def test_a_simulate_run_that_judged_nothing_is_recorded_never_a_pass(tmp_path: Path) -> None:
    """A verdict is a claim about the chatbot; simulating makes none. The run's stored
    outcome is ``recorded`` (exit 0, so `simulate && check` chains), the report, the
    console and the runs list (``Finished.verdict``) never show it as a pass, and a check
    that then passes is what turns it green."""
    settings = {"profiles": [str(DATA / "profiles")], "chatbot": str(DATA / "chatbot.yaml")}
    run = start("simulate", settings, tmp_path / "run")
    assert run.outcome.verdict == "recorded" and not run.outcome.passed
    assert run.outcome.exit_code == 0 and run.outcome.status == "RECORDED"
    assert "none judged" in run.outcome.summary and "sparring check" in run.outcome.summary
    view = RunView.open(tmp_path / "run")
    assert view.verdict.status == "no verdict" and view.verdict.reasons == run.outcome.reasons

    checked = start("check", {"rules": [str(DEFAULT_RULES)], "run": str(tmp_path / "run")})
    assert RunView.open(tmp_path / "run").verdict.reasons == checked.outcome.reasons
    assert RunView.open(tmp_path / "run").verdict.status != "no verdict" or not (
        checked.outcome.passed
    )


def test_recorded_is_the_mildest_outcome_when_combined() -> None:
    """A run recorded by simulate and judged by a check has the check's verdict."""
    from sparring.jobs import outcome as outcomes

    judged = outcomes.combine([outcomes.recorded("3 recorded"), outcomes.passed("2 passed")])
    assert judged is not None and judged.verdict == "pass"
    unjudged = outcomes.combine([outcomes.recorded("3 recorded"), outcomes.no_verdict("n/a")])
    assert unjudged is not None and unjudged.verdict == "no_verdict"
