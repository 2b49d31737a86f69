"""``InProcessExecutor``: jobs by handle on worker threads, stopped cleanly, resumed."""

from __future__ import annotations

from pathlib import Path

from pydantic import JsonValue

from sparring.jobs import JobEvent, JobStatus, read_progress
from sparring.jobs.events import ItemDone
from sparring.runner import InProcessExecutor
from tests.jobs.helpers import conversations

DATA = Path(__file__).parents[1] / "simulate" / "data"
SETTINGS: dict[str, JsonValue] = {
    "profiles": [str(DATA / "profiles")], "chatbot": str(DATA / "chatbot.yaml"), "concurrency": 1,
}  # fmt: skip


def test_a_submitted_job_runs_to_its_end_and_reports_by_handle(tmp_path: Path) -> None:
    seen: list[tuple[str, str]] = []
    executor = InProcessExecutor(on_event=lambda handle, event: seen.append((handle, event.kind)))
    handle = executor.submit("simulate", SETTINGS, tmp_path / "run")
    assert executor.wait(handle, timeout=60) is JobStatus.FINISHED
    run = executor.result(handle)
    assert run is not None and run.outcome.verdict == "recorded"
    assert {h for h, _ in seen} == {handle} and seen[-1][1] == "finished"
    assert executor.status("nobody") is None


def test_a_stopped_job_resumes_to_the_uninterrupted_result(tmp_path: Path) -> None:
    whole = InProcessExecutor()
    whole.wait(whole.submit("simulate", SETTINGS, tmp_path / "whole"), timeout=60)

    def stop_after_first(handle: str, event: JobEvent) -> None:
        if isinstance(event, ItemDone):
            executor.stop(handle)

    executor = InProcessExecutor(on_event=stop_after_first)
    handle = executor.submit("simulate", SETTINGS, tmp_path / "run")
    assert executor.wait(handle, timeout=60) is JobStatus.STOPPED
    progress = read_progress(tmp_path / "run")
    assert progress is not None and progress.status is JobStatus.STOPPED
    resumed = InProcessExecutor()
    assert resumed.wait(resumed.resume(tmp_path / "run"), timeout=60) is JobStatus.FINISHED
    assert conversations(tmp_path / "run") == conversations(tmp_path / "whole")


def test_bad_settings_fail_the_job_with_a_located_error(tmp_path: Path) -> None:
    executor = InProcessExecutor()
    handle = executor.submit("simulate", {**SETTINGS, "max_turns": 0}, tmp_path / "run")
    assert executor.wait(handle, timeout=60) is JobStatus.FAILED
    error = executor.error(handle)
    assert error is not None and "max_turns" in str(error)
