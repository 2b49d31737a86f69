"""The ``run`` job on the runner: three lines from Python; stopped mid-way (during the
simulation), resumed, it ends with the conversations, verdicts, coverage and outcome of a
run that was never stopped. A run directory written before ``run`` was on the runner (a
``simulate`` manifest at the root, the coverage at the root) still opens and reports."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from sparring.conversations import RunStore, Slot
from sparring.jobs import JobStatus, StopSignal, read_progress
from sparring.jobs.events import ItemDone, StageChanged
from sparring.pipeline import RunJob
from sparring.report import RunView, write_report
from sparring.runner import resume, start
from tests.explore.conftest import pizza_chatbot_yaml
from tests.explore.test_explore_runner import _fresh_order_ids
from tests.jobs.helpers import StopAfter, conversations


def _coverage(run_dir: Path) -> object:
    return json.loads((run_dir / "results" / "coverage.json").read_text(encoding="utf-8"))


def _verdicts(run_dir: Path) -> list[tuple[str, object]]:
    stored = RunStore.open(run_dir, clean=False)
    names = stored.result_names(Slot.VERDICTS)
    found = []
    for name in names:
        report = json.loads(stored.result_path(Slot.VERDICTS, name).read_text(encoding="utf-8"))
        found += [(r["rule"], r["counts"]) for r in report["results"]]
    return found


class _StopInStage(StopAfter):
    """Stops once ``items`` items of ``stage`` are done."""

    def __init__(self, stage: str, items: int) -> None:
        super().__init__(items)
        self.stage = stage
        self.current = ""
        self.done = 0

    def __call__(self, event: object) -> None:
        self.events.append(event)  # type: ignore[arg-type]
        if isinstance(event, StageChanged):
            self.current = event.stage
        elif isinstance(event, ItemDone) and self.current == self.stage:
            self.done += 1
            if self.done >= self.items:
                self.stop.request()


def test_run_stops_and_resumes_to_the_uninterrupted_result(tmp_path: Path) -> None:
    settings = {
        "chatbot": str(pizza_chatbot_yaml(tmp_path, "text")),
        "sessions": 12,
        "turns": 8,
        "concurrency": 1,
    }
    _fresh_order_ids()
    whole = start("run", settings, tmp_path / "whole")
    assert whole.status is JobStatus.FINISHED and whole.report is not None

    _fresh_order_ids()
    stopper = _StopInStage("conversations", items=2)
    run_dir = tmp_path / "run"
    stopped = start("run", settings, run_dir, on_event=stopper, stop=stopper.stop)
    assert stopped.status is JobStatus.STOPPED and stopped.outcome.exit_code == 3
    assert RunStore.open(run_dir, clean=False).manifest.status == "stopped"
    kept = RunStore.open(run_dir, clean=False)
    assert 2 <= len(kept) < len(kept.manifest.planned)  # what finished is kept
    assert not (run_dir / "results" / "coverage.json").exists()
    progress = read_progress(run_dir)
    assert progress is not None and progress.status is JobStatus.STOPPED

    resumed = resume(run_dir)
    assert resumed.status is JobStatus.FINISHED
    assert resumed.outcome == whole.outcome
    assert conversations(run_dir) == conversations(tmp_path / "whole")
    assert _verdicts(run_dir) == _verdicts(tmp_path / "whole")
    assert _coverage(run_dir) == _coverage(tmp_path / "whole")
    assert RunView.open(run_dir).verdict.status == RunView.open(tmp_path / "whole").verdict.status


def test_a_run_written_before_the_runner_still_opens_and_reports(tmp_path: Path) -> None:
    """The old layout: the root is a ``simulate`` run, ``coverage.json`` at the root."""
    _fresh_order_ids()
    settings = {"chatbot": str(pizza_chatbot_yaml(tmp_path, "text")), "sessions": 12, "turns": 8}
    new = start("run", settings, tmp_path / "new").run_dir
    assert new is not None
    old = tmp_path / "old"
    shutil.copytree(new, old)
    shutil.move(old / "results" / "coverage.json", old / "coverage.json")
    manifest = json.loads((old / "manifest.json").read_text(encoding="utf-8"))
    simulate = dict(manifest["settings"])
    simulate = {"profiles": manifest["profiles"], "chatbot": simulate["chatbot"]}
    manifest.update(job="simulate", settings=simulate)
    for key in ("status", "outcome"):
        manifest.pop(key)
    (old / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    shutil.rmtree(old / "report")

    view = RunView.open(old)
    assert view.verdict.status == RunView.open(new).verdict.status
    assert write_report(old).is_file()
    assert "run (explore → simulate → check)" in (old / "report" / "index.html").read_text()


def test_a_stop_before_the_exploration_began_ends_the_run_stopped(tmp_path: Path) -> None:
    """A stop that arrives as the explore stage starts, while the runner still prepares the
    exploration (its nested run is then stopped before any work and has no result), ends
    the ``run`` job ``stopped`` with no exploration — not ``failed``."""
    stop = StopSignal()

    def stop_at_explore(event: object) -> None:
        if isinstance(event, StageChanged) and event.stage == "explore":
            stop.request()

    settings = {"chatbot": str(pizza_chatbot_yaml(tmp_path, "text")), "sessions": 2}
    run = start(RunJob(), settings, tmp_path / "run", on_event=stop_at_explore, stop=stop)
    assert run.status is JobStatus.STOPPED and run.outcome.verdict == "incomplete"
    assert run.result.exploration is None and run.result.simulation is None
    assert not (tmp_path / "run" / "exploration").exists()  # no exploration run was made
    assert RunStore.open(tmp_path / "run", clean=False).manifest.status == "stopped"
