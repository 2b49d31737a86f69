"""``sparring simulate --broker``: the simulate job on the runner with its conversations
run by workers.

The job runs as in-process (``sparring.simulate.SimulateJob`` through
``sparring.runner.start``/``resume``: probe, plan, manifest, progress, stop, outcome); only
its conversations go to the workers, through a ``RemoteConversations`` that drives the
coordinator (``_coordinator``) and returns the summary with how the distribution went
(``distributed``). Missing conversations make the outcome ``incomplete`` (exit 3).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from sparring.connectors import ProbeResult
from sparring.conversations import ConversationRecord, summarize
from sparring.distributed._app import make_app
from sparring.distributed._cluster import Cluster
from sparring.distributed._coordinator import (
    Coordinator,
    DistributedStats,
    DistributedSummary,
    Send,
)
from sparring.distributed._state import RunState, connect, run_key
from sparring.jobs import JobContext, StopSignal
from sparring.jobs.events import JobEvent
from sparring.runner import JobRun, resume, start
from sparring.simulate import ConversationSpec, SimulateJob, SimulateSettings, SimulationResult

OnEvent = Callable[[JobEvent], None]
T = TypeVar("T")


async def in_daemon_thread(call: Callable[[], T]) -> T:
    """``call()`` in a daemon thread, awaited: unlike ``asyncio.to_thread`` the thread
    never keeps the process alive (a second Ctrl-C ends it at once)."""
    done: concurrent.futures.Future[T] = concurrent.futures.Future()

    def target() -> None:
        if not done.set_running_or_notify_cancel():
            return
        try:
            done.set_result(call())
        except BaseException as exc:
            done.set_exception(exc)

    threading.Thread(target=target, name="coordinator", daemon=True).start()
    return await asyncio.wrap_future(done)


@dataclass
class RemoteSimulate:
    """The ``RemoteConversations`` of ``cluster``: runs a run's missing conversations on
    its workers; ``stats`` holds how the last call went. ``send`` replaces how a chunk is
    enqueued (tests deliver one twice)."""

    cluster: Cluster
    send: Send | None = None
    stats: DistributedStats = field(default_factory=DistributedStats)

    async def __call__(
        self, ctx: JobContext, settings: SimulateSettings, specs: list[ConversationSpec]
    ) -> tuple[int, DistributedSummary, int]:
        store = ctx.store
        state = RunState(connect(self.cluster.redis), run_key(store.path, store.manifest.run_id))
        loop = asyncio.get_running_loop()

        def done(record: ConversationRecord) -> None:
            error = record.errors[0].message if record.errors else None
            ok = not record.errors
            loop.call_soon_threadsafe(ctx.item_done, record.id, ok, record.cost, error)

        coordinator = Coordinator(
            store,
            store.manifest.settings,
            self.cluster,
            make_app(self.cluster),
            state,
            chatbot=ctx.chatbot,
            specs=specs,
            on_record=done,
            stop=lambda: ctx.stop.requested,
        )
        if self.send is not None:
            coordinator.send = self.send
        ctx.planned(len(coordinator.missing()))
        try:
            self.stats = await in_daemon_thread(coordinator.run)
        except asyncio.CancelledError:  # Ctrl-C: the chunks out are left for --resume
            coordinator.abandon()
            raise
        records = summarize(store.iter_records()).model_dump()
        summary = DistributedSummary(**records, distributed=self.stats)
        return coordinator.written, summary, self.stats.missing


@dataclass(frozen=True)
class DistributedRun:
    """A distributed simulate run: the runner's ``JobRun`` (status, outcome, the
    ``SimulationResult``) and how the distribution went. ``incomplete``: some planned
    conversations have no record (a chunk failed K times, or the coordinator was stopped);
    ``--resume`` runs them."""

    job: JobRun[SimulationResult]
    stats: DistributedStats

    @property
    def simulation(self) -> SimulationResult:
        """The simulate result (store, summary, health)."""
        return self.job.result

    @property
    def incomplete(self) -> bool:
        """Whether planned conversations lack a record."""
        return self.stats.missing > 0


def simulate_distributed(
    settings: SimulateSettings,
    out: Path | str | None = None,
    *,
    broker: str | None = None,
    on_event: OnEvent | None = None,
    on_probe: Callable[[ProbeResult], None] | None = None,
    stop: StopSignal | None = None,
    send: Send | None = None,
) -> DistributedRun:
    """Run ``settings`` into a new run directory ``out`` with the conversations run by
    the workers of ``broker`` (default ``$SPARRING_BROKER_URL``; see ``Cluster``).
    Raises as the ``simulate`` job for bad input, ``UserInputError`` for a missing broker,
    ``redis.ConnectionError`` when the run's Redis stays unreachable."""
    remote = RemoteSimulate(Cluster.from_env(broker), send)
    job = SimulateJob(on_probe, remote=remote)
    run = start(job, settings, out, on_event=on_event, stop=stop)
    return DistributedRun(job=run, stats=remote.stats)


def resume_distributed(
    run_dir: Path | str,
    *,
    broker: str | None = None,
    on_event: OnEvent | None = None,
    on_probe: Callable[[ProbeResult], None] | None = None,
    stop: StopSignal | None = None,
    send: Send | None = None,
) -> DistributedRun:
    """Finish an interrupted simulate run on the workers: records that came back since
    the last coordinator stopped are written, then only the planned conversations with no
    record are enqueued (chunks of the earlier session stop starting conversations).
    Raises as ``sparring.runner.resume``."""
    remote = RemoteSimulate(Cluster.from_env(broker), send)
    run = resume(run_dir, job=SimulateJob(on_probe, remote=remote), on_event=on_event, stop=stop)
    return DistributedRun(job=run, stats=remote.stats)
