"""Where jobs run: the ``Executor`` interface the dashboard and the Celery worker share,
and ``InProcessExecutor``, which runs each job on a thread of this process (a
``JobHandle``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pydantic import JsonValue

from sparring.jobs import JobEvent, JobRun, JobStatus, StopSignal
from sparring.runner._handle import JobHandle, Listener
from sparring.runner._runner import resume, start


class Executor(Protocol):
    """Runs jobs somewhere (this process, a process of their own, a Celery worker) and
    answers by handle.

    Settings cross as JSON (never secrets: a job reads keys from its environment at use);
    ``run_dir`` is the new run directory (or, for a job that writes into an existing run,
    that run). ``submit`` and ``resume`` (a stopped, failed or killed run, from its
    folder) return a handle at once; ``stop`` asks the job to end cleanly (status
    ``stopped``, resumable); ``status`` is ``None`` for an unknown handle; ``error`` is
    what the job failed with. ``watch(handle, listener)`` calls ``listener`` with the
    job's events from then on, ending with exactly one ``Finished`` sent once the job has
    ended (``status`` and ``error`` final) — at once for a job that already has, and for a
    job that failed before it started — so a caller waits on events, never polls.
    """

    def submit(self, job: str, settings: dict[str, JsonValue], run_dir: Path) -> str: ...

    def resume(self, run_dir: Path) -> str: ...

    def stop(self, handle: str) -> None: ...

    def status(self, handle: str) -> JobStatus | None: ...

    def error(self, handle: str) -> BaseException | None: ...

    def watch(self, handle: str, listener: Listener) -> None: ...


@dataclass(frozen=True)
class _Task:
    """What a job body is given by ``InProcessExecutor._launch``: its stop signal."""

    stop: StopSignal


class InProcessExecutor:
    """An ``Executor`` running each job on its own daemon thread through the runner, each
    held by a ``JobHandle`` (``handle(id)``).

    ``on_event(handle, event)`` receives every job's events (from the job's thread), as
    ``watch`` does. ``wait`` blocks until a job ends; ``result`` and ``error`` say how it
    ended.
    """

    def __init__(self, on_event: Callable[[str, JobEvent], None] | None = None) -> None:
        self._on_event = on_event
        self._handles: dict[str, JobHandle[Any]] = {}

    def submit(self, job: str, settings: dict[str, JsonValue], run_dir: Path) -> str:
        return self._launch(lambda task, emit: start(job, settings, run_dir, on_event=emit,
                                                     stop=task.stop))  # fmt: skip

    def resume(self, run_dir: Path) -> str:
        """Resume the run in ``run_dir`` on a new thread; its handle."""
        return self._launch(lambda task, emit: resume(run_dir, on_event=emit, stop=task.stop))

    def handle(self, handle: str) -> JobHandle[Any] | None:
        """The typed handle of the job ``handle`` (``None`` for an unknown one)."""
        return self._handles.get(handle)

    def stop(self, handle: str) -> None:
        if (job := self._handles.get(handle)) is not None:
            job.stop()

    def status(self, handle: str) -> JobStatus | None:
        job = self._handles.get(handle)
        return job.status if job is not None else None

    def watch(self, handle: str, listener: Listener) -> None:
        if (job := self._handles.get(handle)) is not None:
            job.subscribe(listener)

    def wait(self, handle: str, timeout: float | None = None) -> JobStatus | None:
        """Block until the job ends (at most ``timeout`` seconds); its status."""
        job = self._handles.get(handle)
        return job.join(timeout) if job is not None else None

    def result(self, handle: str) -> JobRun[Any] | None:
        """How the job ended (``None`` while it runs, when it raised, or for an unknown
        handle)."""
        job = self._handles.get(handle)
        return job.result if job is not None else None

    def error(self, handle: str) -> BaseException | None:
        """What the job raised (``UserInputError`` for bad settings), if it did."""
        job = self._handles.get(handle)
        return job.error if job is not None else None

    def _launch(self, body: Callable[[_Task, Listener], JobRun[Any]]) -> str:
        job: JobHandle[Any] = JobHandle()
        if self._on_event is not None:
            on_event = self._on_event
            job.subscribe(lambda event: on_event(job.id, event))
        self._handles[job.id] = job
        job._begin(lambda stop, emit: body(_Task(stop), emit))
        return job.id
