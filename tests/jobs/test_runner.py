"""The job runner on the simulate job (scripted chatbot, offline user): three lines to a
run, the event stream, ``progress.json``, the manifest's status and outcome, a stop that
keeps what finished and a resume that gives the uninterrupted run's result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sparring.conversations import RunManifest, RunStore
from sparring.errors import ConfigError, UserInputError
from sparring.jobs import JobEvent, JobStatus, StopSignal, read_progress
from sparring.jobs.events import Finished, ItemDone, Planned, Started
from sparring.runner import resume, start
from tests.jobs.helpers import StopAfter, conversations

DATA = Path(__file__).parents[1] / "simulate" / "data"
SETTINGS = {"profiles": [str(DATA / "profiles")], "chatbot": str(DATA / "chatbot.yaml"),
            "concurrency": 1}  # fmt: skip


def test_a_job_started_from_python_in_three_lines(tmp_path: Path) -> None:
    run = start("simulate", SETTINGS, tmp_path / "run")
    assert run.status is JobStatus.FINISHED and run.outcome.verdict == "recorded"
    assert run.outcome.exit_code == 0 and run.run_dir == tmp_path / "run"
    manifest = RunStore.open(tmp_path / "run").manifest
    assert manifest.status is JobStatus.FINISHED and manifest.outcome == run.outcome
    assert len(conversations(tmp_path / "run")) == 3


def test_events_come_in_order_and_fold_into_progress(tmp_path: Path) -> None:
    seen = StopAfter(items=99)
    start("simulate", SETTINGS, tmp_path / "run", on_event=seen)
    kinds = seen.kinds()
    assert kinds[0] == "started" and kinds[-1] == "finished"
    assert isinstance(seen.events[0], Started) and seen.events[0].run_id == "run"
    planned = [e for e in seen.events if isinstance(e, Planned)]
    assert [p.total for p in planned] == [3]
    assert kinds.index("planned") < kinds.index("item_done")
    assert sorted(e.item_id for e in seen.events if isinstance(e, ItemDone)) == [
        "order/0", "order/1", "order/2"]  # fmt: skip
    progress = read_progress(tmp_path / "run")
    assert progress is not None and progress.job == "simulate"
    assert (progress.planned, progress.done, progress.failed) == (3, 0 + 3, 0)
    assert progress.status is JobStatus.FINISHED and progress.verdict == "recorded"
    assert progress.stage == "conversations"


def test_a_stop_keeps_what_finished_and_resume_gives_the_same_result(tmp_path: Path) -> None:
    whole = start("simulate", SETTINGS, tmp_path / "whole")
    stopper = StopAfter(items=1)
    stopped = start("simulate", SETTINGS, tmp_path / "run", on_event=stopper, stop=stopper.stop)
    assert stopped.status is JobStatus.STOPPED
    assert stopped.outcome.verdict == "incomplete" and stopped.outcome.exit_code == 3
    assert isinstance(stopper.events[-1], Finished)
    assert stopper.events[-1].status is JobStatus.STOPPED
    assert RunStore.open(tmp_path / "run").manifest.status is JobStatus.STOPPED
    assert 1 <= len(conversations(tmp_path / "run")) < 3  # the one running when stopped ends
    kept = RunStore.open(tmp_path / "run").record_path("order/0").stat().st_mtime_ns
    resumed = resume(tmp_path / "run")
    assert resumed.status is JobStatus.FINISHED and resumed.outcome == whole.outcome
    assert resumed.result.summary.conversations == whole.result.summary.conversations == 3
    assert conversations(tmp_path / "run") == conversations(tmp_path / "whole")
    assert RunStore.open(tmp_path / "run").record_path("order/0").stat().st_mtime_ns == kept
    assert RunStore.open(tmp_path / "run").manifest.status is JobStatus.FINISHED


def test_a_stop_requested_while_the_job_is_planning_stops_it_before_any_work(
    tmp_path: Path,
) -> None:
    """A stop that arrives while the runner still prepares the job (its input read, the
    chatbot loaded and probed) ends it there: no run is created, no item planned or run;
    on a resume, the run stays as it was, ``stopped``."""
    seen: list[str] = []
    stop = StopSignal()

    def stop_at_once(event: JobEvent) -> None:
        seen.append(event.kind)
        if isinstance(event, Started):
            stop.request()

    run = start("simulate", SETTINGS, tmp_path / "run", on_event=stop_at_once, stop=stop)
    assert run.status is JobStatus.STOPPED and run.outcome.verdict == "incomplete"
    assert run.run_dir is None and not (tmp_path / "run").exists()
    assert not run.has_result  # the job never ran: its result is not made up
    with pytest.raises(RuntimeError, match="stopped before any work"):
        run.result  # noqa: B018
    assert "planned" not in seen and "item_done" not in seen and seen[-1] == "finished"

    stopper = StopAfter(items=1)
    start("simulate", SETTINGS, tmp_path / "half", on_event=stopper, stop=stopper.stop)
    held = conversations(tmp_path / "half")
    seen.clear()
    again = resume(tmp_path / "half", on_event=stop_at_once, stop=(stop := StopSignal()))
    assert again.status is JobStatus.STOPPED and again.run_dir == tmp_path / "half"
    assert conversations(tmp_path / "half") == held and "item_done" not in seen
    assert RunStore.open(tmp_path / "half").manifest.status is JobStatus.STOPPED


def test_bad_settings_are_located_errors_and_nothing_is_written(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        start("simulate", {**SETTINGS, "max_turns": "many", "colour": 1}, tmp_path / "run")
    keys = sorted(p.key for p in caught.value.problems)
    assert keys == ["colour", "max_turns"]
    assert not (tmp_path / "run").exists()
    with pytest.raises(UserInputError, match="did you mean"):
        start("simulat", SETTINGS, tmp_path / "run")


def test_a_job_that_raises_leaves_the_status_failed(tmp_path: Path) -> None:
    start("simulate", SETTINGS, tmp_path / "run")
    (tmp_path / "run" / "conversations" / "order__1.json").unlink()
    manifest = tmp_path / "run" / "manifest.json"
    data = json.loads(manifest.read_text())
    data["settings"]["chatbot"] = str(tmp_path / "gone.yaml")
    manifest.write_text(json.dumps(data))
    with pytest.raises(UserInputError):
        resume(tmp_path / "run")
    assert RunStore.open(tmp_path / "run").manifest.status is JobStatus.FAILED
    progress = read_progress(tmp_path / "run")
    assert progress is not None and progress.status is JobStatus.FAILED


def test_a_manifest_written_before_the_status_reads_as_finished(tmp_path: Path) -> None:
    start("simulate", SETTINGS, tmp_path / "run")
    path = tmp_path / "run" / "manifest.json"
    data = json.loads(path.read_text())
    del data["status"], data["outcome"]
    path.write_text(json.dumps(data))
    manifest = RunManifest.model_validate_json(path.read_text())
    assert manifest.status is JobStatus.FINISHED and manifest.outcome is None
    assert read_progress(tmp_path) is None  # no progress.json: none, not an error


def test_two_runs_started_in_the_same_second_get_two_directories(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    first = start("simulate", SETTINGS)
    second = start("simulate", SETTINGS)
    assert first.run_dir is not None and second.run_dir is not None
    assert first.run_dir != second.run_dir and second.run_dir.is_dir()


def test_job_results_live_in_their_slot_and_old_root_files_are_still_read(tmp_path: Path) -> None:
    from sparring.conversations import job_result_file

    old = tmp_path / "old"
    old.mkdir()
    (old / "probes.json").write_text('{"value": 1}')  # a run written before 0.3
    assert job_result_file(old, "probes") == old / "probes.json"
    written = old / "results" / "probes.json"  # a resumed old run stores into its slot
    written.parent.mkdir()
    written.write_text('{"value": 2}')
    assert job_result_file(old, "probes") == written  # the current file wins
    assert job_result_file(tmp_path / "new", "coverage") == tmp_path / "new/results/coverage.json"


def test_progress_after_a_resume_counts_the_whole_run(tmp_path: Path) -> None:
    """The progress of a resumed run counts the items an earlier call did (the panel of
    the dashboard read 2 of 2 for a run of 3 whose first call had done one)."""
    stopper = StopAfter(items=1)
    start("simulate", SETTINGS, tmp_path / "run", on_event=stopper, stop=stopper.stop)
    before = read_progress(tmp_path / "run")
    assert before is not None and before.status is JobStatus.STOPPED and before.done >= 1
    seen = StopAfter(items=99)
    resume(tmp_path / "run", on_event=seen)
    planned = [e.total for e in seen.events if isinstance(e, Planned)]
    assert planned == [3 - before.done]  # the job plans only what is missing
    after = read_progress(tmp_path / "run")
    assert after is not None and after.status is JobStatus.FINISHED
    assert (after.planned, after.done, after.failed) == (3, 3, 0)
