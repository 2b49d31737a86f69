"""The check job on the runner: started from Python in three lines, stopped after its
first rule (incomplete, exit 3, never a pass), started again to the uninterrupted
result; a run written before the runner (no status, no outcome) is still checked."""

from __future__ import annotations

import json
from pathlib import Path

from sparring.check import DEFAULT_RULES
from sparring.jobs import JobStatus, read_progress
from sparring.runner import start
from tests.jobs.helpers import StopAfter

DATA = Path(__file__).parents[1] / "simulate" / "data"


def _simulated(tmp_path: Path) -> Path:
    settings = {"profiles": [str(DATA / "profiles")], "chatbot": str(DATA / "chatbot.yaml")}
    return start("simulate", settings, tmp_path / "run").run_dir or tmp_path


def _verdicts(run_dir: Path) -> dict[str, object]:
    (path,) = (run_dir / "verdicts").glob("rules-*.json")
    stored = json.loads(path.read_text())
    return {r["rule"]: [v["status"] for v in r["verdicts"]] for r in stored["results"]}


def test_check_stops_after_a_rule_and_a_new_start_gives_the_whole_result(tmp_path: Path) -> None:
    settings = {"rules": [str(DEFAULT_RULES)], "run": str(_simulated(tmp_path / "a"))}
    whole = start("check", settings)
    assert whole.status is JobStatus.FINISHED and whole.outcome.verdict == "pass"
    expected = _verdicts(Path(str(settings["run"])))
    assert len(expected) == len(list(DEFAULT_RULES.glob("*.yaml")))

    run_dir = _simulated(tmp_path / "b")
    settings = {"rules": [str(DEFAULT_RULES)], "run": str(run_dir)}
    stopper = StopAfter(items=1)
    stopped = start("check", settings, run_dir, on_event=stopper, stop=stopper.stop)
    assert stopped.status is JobStatus.STOPPED
    assert stopped.outcome.verdict == "incomplete" and stopped.outcome.exit_code == 3
    assert not list((run_dir / "verdicts").glob("*.json"))  # a partial report is not stored
    progress = read_progress(run_dir)
    assert progress is not None and progress.job == "check"
    assert (progress.planned, progress.done, progress.status) == (
        len(expected),
        1,
        JobStatus.STOPPED,
    )

    again = start("check", settings, run_dir)
    assert again.outcome == whole.outcome and _verdicts(run_dir) == expected


def test_a_run_written_before_the_runner_is_checked(tmp_path: Path) -> None:
    run_dir = _simulated(tmp_path)
    manifest = run_dir / "manifest.json"
    data = json.loads(manifest.read_text())
    del data["status"], data["outcome"]
    manifest.write_text(json.dumps(data))
    (run_dir / "progress.json").unlink()
    checked = start("check", {"rules": [str(DEFAULT_RULES)], "run": str(run_dir)})
    assert checked.outcome.verdict == "pass" and checked.outcome.exit_code == 0
