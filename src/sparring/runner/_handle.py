"""A job running on a thread of this process, held by a typed handle while it runs.

``launch(job, settings, out)`` and ``launch_resume(run_dir)`` start the job through the
runner (``start``/``resume``: the same lifecycle, the same run directory) on a thread of
its own and return at once a ``JobHandle[R]``::

    from sparring.runner import launch
    handle = launch("simulate", {"profiles": ["examples/alice/profiles"],
                                 "chatbot": "examples/alice/chatbot.yaml"}, "runs/a")
    for event in handle.events():      # Started … ItemDone … Finished, as they happen
        print(event.kind)
    run = handle.wait()                # the JobRun[R]; handle.stop() ends it cleanly

A handle's events end with exactly one ``Finished``, sent once the job has ended — its
outcome stored, its report written, ``wait()`` answering at once — and sent as well for a
job that failed before it started (bad settings: ``status`` ``failed``, ``error`` says
why). The result is a ``concurrent.futures.Future``; listeners (``subscribe``) are called
on the job's thread.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Generic, TypeVar, overload

from sparring.jobs import Job, JobRun, JobSettings, JobStatus, SettingsInput, StopSignal
from sparring.jobs.events import Finished, JobEvent
from sparring.runner._runner import resume, start

logger = logging.getLogger(__name__)

S = TypeVar("S", bound=JobSettings)
R = TypeVar("R")
Listener = Callable[[JobEvent], None]
Body = Callable[[StopSignal, Listener], JobRun[R]]


class EventStream:
    """The events of one job, in order, for readers and listeners on other threads: the
    one place an executor keeps them (``JobHandle``, the dashboard's ``ProcessExecutor``).
    ``publish`` adds one; the stream ends with its ``Finished``."""

    def __init__(self, listener: Listener | None = None) -> None:
        self._events: list[JobEvent] = []
        self._listeners: list[Listener] = [listener] if listener is not None else []
        self._changed = threading.Condition()

    @property
    def ended(self) -> bool:
        """Whether its ``Finished`` was published."""
        with self._changed:
            return self._ended

    @property
    def _ended(self) -> bool:
        return bool(self._events) and isinstance(self._events[-1], Finished)

    def publish(self, event: JobEvent) -> None:
        """Add ``event`` and call the listeners with it (on this thread)."""
        with self._changed:
            self._events.append(event)
            listeners = list(self._listeners)
            if isinstance(event, Finished):
                self._listeners.clear()
            self._changed.notify_all()
        for listener in listeners:
            _call(listener, event)

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener`` with each event from now on, up to the ``Finished`` (at once
        with it when the stream has already ended). A listener that raises is logged."""
        with self._changed:
            ended = self._ended
            if not ended:
                self._listeners.append(listener)
        if ended:
            _call(listener, self._events[-1])

    def wait_ended(self, timeout: float | None = None) -> bool:
        """Block until the ``Finished`` (at most ``timeout`` seconds); whether it came."""
        with self._changed:
            return self._changed.wait_for(lambda: self._ended, timeout)

    def __call__(self, timeout: float | None = None) -> Iterator[JobEvent]:
        """The events from the first, as they are published, up to the ``Finished``.
        ``timeout``: seconds to wait for each next event; ``TimeoutError`` when none came."""
        index = 0
        while True:
            event = self._event_at(index, timeout)
            index += 1
            yield event
            if isinstance(event, Finished):
                return

    def _event_at(self, index: int, timeout: float | None) -> JobEvent:
        """The ``index``-th event, waiting at most ``timeout`` seconds for it."""
        with self._changed:
            if not self._changed.wait_for(lambda: len(self._events) > index, timeout):
                raise TimeoutError(f"no event came in {timeout} s")
            return self._events[index]


class JobHandle(Generic[R]):
    """A job launched on a thread (``launch``, ``launch_resume``, ``InProcessExecutor``):
    its events as they happen, ``stop``, ``wait`` for its ``JobRun[R]``. ``id`` is a
    random hex string (the executors' handle)."""

    def __init__(self, on_event: Listener | None = None) -> None:
        self.id = uuid.uuid4().hex
        self.stop_signal = StopSignal()
        self._future: Future[JobRun[R]] = Future()
        self._stream = EventStream(on_event)
        self._held: Finished | None = None
        self._thread: threading.Thread | None = None

    def stop(self) -> None:
        """Ask the job to end cleanly after the items it is running (status ``stopped``,
        resumable; what finished is kept)."""
        self.stop_signal.request()

    @property
    def done(self) -> bool:
        """Whether the job has ended (its ``Finished`` sent)."""
        return self._stream.ended

    @property
    def status(self) -> JobStatus:
        """``running`` until the job ends; then the status it ended with (``failed``
        when it raised)."""
        if not self._future.done():
            return JobStatus.RUNNING
        if self._future.exception() is not None:
            return JobStatus.FAILED
        return self._future.result().status

    @property
    def error(self) -> BaseException | None:
        """What the job raised (``UserInputError`` for bad settings); ``None`` while it
        runs or when it did not raise."""
        return self._future.exception() if self._future.done() else None

    @property
    def result(self) -> JobRun[R] | None:
        """How the job ended; ``None`` while it runs or when it raised."""
        if not self._future.done() or self._future.exception() is not None:
            return None
        return self._future.result()

    def wait(self, timeout: float | None = None) -> JobRun[R]:
        """Block until the job ends (at most ``timeout`` seconds); its ``JobRun[R]``.
        Raises what the job raised, or ``TimeoutError``."""
        return self._future.result(timeout)

    def join(self, timeout: float | None = None) -> JobStatus:
        """Block until the job ends (at most ``timeout`` seconds); its status
        (``running`` when the time ran out). Never raises the job's error."""
        self._stream.wait_ended(timeout)
        return self.status

    def events(self, timeout: float | None = None) -> Iterator[JobEvent]:
        """The job's events from its first, as they happen, up to its ``Finished``
        (events already sent are given first). ``timeout``: seconds to wait for each next
        event; ``TimeoutError`` when none came."""
        return self._stream(timeout)

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener`` with each event from now on, up to the ``Finished`` (at once
        with it when the job has already ended). A listener that raises is logged."""
        self._stream.subscribe(listener)

    def _emit(self, event: JobEvent) -> None:
        """The runner's events; its ``Finished`` is held until the job has ended."""
        if isinstance(event, Finished):
            self._held = event
            return
        self._stream.publish(event)

    def _begin(self, body: Body[R]) -> JobHandle[R]:
        def work() -> None:
            try:
                self._future.set_result(body(self.stop_signal, self._emit))
            except BaseException as exc:  # the job's own failure: kept, said by the handle
                logger.warning("job %s failed: %s: %s", self.id, type(exc).__name__, exc)
                self._future.set_exception(exc)
            verdict = self._held.verdict if self._held is not None else None
            self._stream.publish(Finished(status=self.status, verdict=verdict))

        self._thread = threading.Thread(target=work, name=f"sparring-job-{self.id[:8]}")
        self._thread.daemon = True
        self._thread.start()
        return self


def _call(listener: Listener, event: JobEvent) -> None:
    try:
        listener(event)
    except Exception:
        logger.exception("a listener of a job's events failed on %s", event.kind)


@overload
def launch(
    job: Job[S, R],
    settings: S | Mapping[str, Any],
    out: Path | str | None = None,
    *,
    on_event: Listener | None = None,
    report: bool = True,
) -> JobHandle[R]: ...
@overload
def launch(
    job: str,
    settings: SettingsInput,
    out: Path | str | None = None,
    *,
    on_event: Listener | None = None,
    report: bool = True,
) -> JobHandle[Any]: ...
def launch(
    job: str | Job[Any, Any],
    settings: SettingsInput,
    out: Path | str | None = None,
    *,
    on_event: Listener | None = None,
    report: bool = True,
) -> JobHandle[Any]:
    """Start ``job`` as ``start`` does (same arguments, same errors — raised by
    ``wait``, said by ``error``; typed the same way: a job passed as an object gives a
    ``JobHandle[R]``, a name ``JobHandle[Any]``) on a thread of its own; its handle, at
    once. ``on_event`` gets every event (as ``subscribe``)."""
    handle: JobHandle[Any] = JobHandle(on_event)
    return handle._begin(
        lambda stop, emit: start(job, settings, out, on_event=emit, stop=stop, report=report)
    )


@overload
def launch_resume(
    run_dir: Path | str,
    *,
    on_event: Listener | None = None,
    changes: Mapping[str, Any] | None = None,
    job: Job[Any, R],
    report: bool = True,
) -> JobHandle[R]: ...
@overload
def launch_resume(
    run_dir: Path | str,
    *,
    on_event: Listener | None = None,
    changes: Mapping[str, Any] | None = None,
    job: None = None,
    report: bool = True,
) -> JobHandle[Any]: ...
def launch_resume(
    run_dir: Path | str,
    *,
    on_event: Listener | None = None,
    changes: Mapping[str, Any] | None = None,
    job: Job[Any, Any] | None = None,
    report: bool = True,
) -> JobHandle[Any]:
    """Resume the run in ``run_dir`` as ``resume`` does, on a thread of its own; its
    handle, at once (a ``JobHandle[R]`` given ``job``, a ``Job[S, R]``)."""
    handle: JobHandle[Any] = JobHandle(on_event)
    return handle._begin(
        lambda stop, emit: resume(
            run_dir, on_event=emit, stop=stop, changes=changes, job=job, report=report
        )
    )
