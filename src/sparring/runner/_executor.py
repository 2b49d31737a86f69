"""Where jobs run: the ``Executor`` interface the dashboard and the Celery worker share,
and ``InProcessExecutor``, which runs each job on a thread of this process."""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pydantic import JsonValue

from sparring.jobs import JobEvent, JobStatus, StopSignal
from sparring.runner._runner import JobRun, resume, start

logger = logging.getLogger(__name__)


class Executor(Protocol):
    """Runs jobs somewhere (this process, a Celery worker) and answers by handle.

    Settings cross as JSON (never secrets: a job reads keys from its environment at use);
    ``run_dir`` is the new run directory (or, for a job that writes into an existing run,
    that run). ``submit`` returns a handle at once; ``stop`` asks the job to end cleanly
    (status ``stopped``, resumable); ``status`` is ``None`` for an unknown handle.
    """

    def submit(self, job: str, settings: dict[str, JsonValue], run_dir: Path) -> str: ...

    def stop(self, handle: str) -> None: ...

    def status(self, handle: str) -> JobStatus | None: ...


@dataclass
class _Task:
    stop: StopSignal = field(default_factory=StopSignal)
    status: JobStatus = JobStatus.RUNNING
    run: JobRun[Any] | None = None
    error: BaseException | None = None
    thread: threading.Thread | None = None


class InProcessExecutor:
    """An ``Executor`` running each job on its own daemon thread through the runner.

    ``on_event(handle, event)`` receives every job's events (from the job's thread).
    ``resume(run_dir)`` submits the resumption of a stopped run; ``wait`` blocks until a
    job ends; ``result`` and ``error`` say how it ended.
    """

    def __init__(self, on_event: Callable[[str, JobEvent], None] | None = None) -> None:
        self._on_event = on_event
        self._tasks: dict[str, _Task] = {}
        self._lock = threading.Lock()

    def submit(self, job: str, settings: dict[str, JsonValue], run_dir: Path) -> str:
        return self._launch(lambda task, emit: start(job, settings, run_dir, on_event=emit,
                                                     stop=task.stop))  # fmt: skip

    def resume(self, run_dir: Path) -> str:
        """Resume the run in ``run_dir`` on a new thread; its handle."""
        return self._launch(lambda task, emit: resume(run_dir, on_event=emit, stop=task.stop))

    def stop(self, handle: str) -> None:
        task = self._tasks.get(handle)
        if task is not None:
            task.stop.request()

    def status(self, handle: str) -> JobStatus | None:
        task = self._tasks.get(handle)
        return task.status if task is not None else None

    def wait(self, handle: str, timeout: float | None = None) -> JobStatus | None:
        """Block until the job ends (at most ``timeout`` seconds); its status."""
        task = self._tasks.get(handle)
        if task is not None and task.thread is not None:
            task.thread.join(timeout)
        return self.status(handle)

    def result(self, handle: str) -> JobRun[Any] | None:
        """How the job ended (``None`` while it runs, when it raised, or for an unknown
        handle)."""
        task = self._tasks.get(handle)
        return task.run if task is not None else None

    def error(self, handle: str) -> BaseException | None:
        """What the job raised (``UserInputError`` for bad settings), if it did."""
        task = self._tasks.get(handle)
        return task.error if task is not None else None

    def _launch(self, body: Callable[[_Task, Callable[[JobEvent], None]], JobRun[Any]]) -> str:
        handle = uuid.uuid4().hex
        task = _Task()

        def emit(event: JobEvent) -> None:
            if self._on_event is not None:
                self._on_event(handle, event)

        def work() -> None:
            try:
                task.run = body(task, emit)
                task.status = task.run.status
            except BaseException as exc:  # the job's own failure: kept, reported by handle
                logger.warning("job %s failed: %s: %s", handle, type(exc).__name__, exc)
                task.error = exc
                task.status = JobStatus.FAILED

        task.thread = threading.Thread(target=work, name=f"sparring-job-{handle[:8]}", daemon=True)
        with self._lock:
            self._tasks[handle] = task
        task.thread.start()
        return handle
