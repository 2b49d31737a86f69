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
from typing import TypeVar

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
from sparring.jobs import JobContext
from sparring.simulate import ConversationSpec, SimulateSettings

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
