"""``launch``/``launch_resume``: a typed handle on a running job — its events as they
happen, stop, wait for the ``JobRun`` — whose ``Finished`` comes once the job has ended."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import JsonValue

from sparring.errors import UserInputError
from sparring.jobs import JobEvent, JobStatus
from sparring.jobs.events import Finished, ItemDone, Started
from sparring.runner import launch, launch_resume
from tests.jobs.helpers import conversations

DATA = Path(__file__).parents[1] / "simulate" / "data"
SETTINGS: dict[str, JsonValue] = {
    "profiles": [str(DATA / "profiles")], "chatbot": str(DATA / "chatbot.yaml"), "concurrency": 1,
}  # fmt: skip


def test_events_arrive_while_it_runs_and_finished_comes_once_it_has_ended(
    tmp_path: Path,
) -> None:
    at_finish: list[tuple[JobStatus, bool]] = []
    handle = launch("simulate", SETTINGS, tmp_path / "run")

    def on_finished(event: JobEvent) -> None:
        if isinstance(event, Finished):  # the job has ended: result and report are there
            run = handle.result
            at_finish.append((handle.status, run is not None and run.report is not None))

    handle.subscribe(on_finished)
    events = list(handle.events(timeout=60))
    assert isinstance(events[0], Started) and isinstance(events[-1], Finished)
    assert [e for e in events if isinstance(e, Finished)] == [events[-1]]
    assert any(isinstance(e, ItemDone) for e in events)
    assert events[-1].status is JobStatus.FINISHED and events[-1].verdict == "recorded"
    assert at_finish == [(JobStatus.FINISHED, True)]
    run = handle.wait(timeout=0)
    assert run.status is JobStatus.FINISHED and run.run_dir == tmp_path / "run"
    assert handle.done and list(handle.events()) == events  # read again from the first


def test_a_stopped_handle_resumes_to_the_uninterrupted_result(tmp_path: Path) -> None:
    whole = launch("simulate", SETTINGS, tmp_path / "whole").wait(timeout=60)
    assert whole.status is JobStatus.FINISHED

    def stop_after_first(event: JobEvent) -> None:
        if isinstance(event, ItemDone):
            handle.stop()

    handle = launch("simulate", SETTINGS, tmp_path / "run", on_event=stop_after_first)
    assert handle.wait(timeout=60).status is JobStatus.STOPPED
    assert handle.join() is JobStatus.STOPPED
    resumed = launch_resume(tmp_path / "run")
    assert resumed.wait(timeout=60).status is JobStatus.FINISHED
    assert conversations(tmp_path / "run") == conversations(tmp_path / "whole")


def test_a_job_that_fails_before_it_starts_still_ends_with_one_finished(tmp_path: Path) -> None:
    handle = launch("simulate", {**SETTINGS, "max_turns": 0}, tmp_path / "run")
    events = list(handle.events(timeout=60))
    assert events == [Finished(status=JobStatus.FAILED, at=events[0].at)]
    with pytest.raises(UserInputError, match="max_turns"):
        handle.wait()
    assert handle.status is JobStatus.FAILED and handle.result is None
    late: list[JobEvent] = []
    handle.subscribe(late.append)  # after the end: the Finished at once
    assert late == events
