"""A worker's word that it is still working on a delivery: how the coordinator notices a
lost or hung worker in seconds (docs/distributed.md, "A lost or hung worker").

Every delivery a worker holds is recorded in the run's ``holders`` hash with the name of
a *lease*, a key ``sparring:node:<lease>`` that expires unless renewed; the coordinator
sends again every delivery whose lease ran out (``RunState.lost``).

- As a message arrives (Celery's ``task_received`` signal, in the worker's main process,
  before a pool process starts it), the worker holds it under a one-shot lease of
  ``lease_seconds`` (``on_received``): a worker takes a message only when a pool
  process is free (``worker_disable_prefetch``, ``_app``), so a received message is
  started at once, and one not started by then went to a pool process that is
  frozen, or was lost with its worker (sent again too early, it is only skipped: its
  delivery no longer owns the chunk).
- When a pool process starts the delivery it takes it over under its own lease
  (``DeliveryLease``), renewed every third of ``lease_seconds`` — for a simulate chunk by
  the chunk's own event loop (``renewing``), so a frozen process (SIGSTOP, swapped out for
  good) or an event loop blocked by a call that never returns stops renewing it; for a
  mutant, whose build and serve steps block, by a thread of the pool process
  (``renewed_by_thread``), which a frozen process stops too.

A worker lost with its machine or a SIGKILL of its process group renews nothing: its
deliveries — running *or only received* — are sent again within ``lease_seconds``. A
conversation waiting on a bot that never answers keeps the loop running and is bounded by
the reply timeout (``--reply-timeout``, the connector's ``timeout`` + 5 s), not by the
lease. A pool process that dies alone is Celery's to handle
(``task_reject_on_worker_lost``: the message goes back at once).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from collections.abc import Awaitable, Iterator
from typing import Any, TypeVar

import redis
from pydantic import ValidationError
from redis.exceptions import RedisError

from sparring.distributed._messages import ChunkMessage, MutantMessage
from sparring.distributed._state import RunState, beat

logger = logging.getLogger(__name__)

NODE_VARIABLE = "SPARRING_WORKER_NODE"
"""The worker's node name, for its pool processes (set by ``sparring worker``)."""
T = TypeVar("T")


def delivery(payload: Any) -> tuple[str, str, str] | None:
    """(run key, state name, token) of a message (``None``: not one of ours); a
    mutant's state name is ``<session>/<mutant>``."""
    try:
        if isinstance(payload, dict) and "chunk" in payload:
            chunk = ChunkMessage.model_validate(payload)
            return chunk.run, chunk.chunk, chunk.token
        mutant = MutantMessage.model_validate(payload)
    except ValidationError:
        return None
    return mutant.run, f"{mutant.session}/{mutant.mutant}", mutant.token


def on_received(client: redis.Redis, request: Any, lease_seconds: float) -> None:
    """Record that this worker (``request.hostname``) holds the delivery of ``request``
    under a one-shot lease of ``lease_seconds`` (Celery's ``task_received``, in the
    worker's main process)."""
    args = getattr(request, "args", None) or []
    found = delivery(args[0]) if args else None
    if found is None:
        return
    run, name, token = found
    lease = f"{request.hostname}/received/{token}"
    try:
        beat(client, lease, lease_seconds)
        RunState(client, run).hold(name, token, lease)
    except RedisError as exc:  # the delivery still runs; only a loss would go unnoticed
        logger.warning("could not record the delivery of %s: %s", name, exc)


class DeliveryLease:
    """The lease under which this pool process runs delivery ``token`` of ``name`` (a
    chunk, or ``<session>/<mutant>``) of ``state``'s run: ``<node>/<pid>``, alive for
    ``seconds`` past each renewal."""

    def __init__(self, state: RunState, name: str, token: str, seconds: float) -> None:
        self.state = state
        self.name = name
        self.token = token
        self.seconds = seconds
        node = os.environ.get(NODE_VARIABLE) or "worker"
        self.lease = f"{node}/{os.getpid()}"

    def take(self) -> None:
        """Hold the delivery under this process's lease (replacing the received one)."""
        beat(self.state.client, self.lease, self.seconds)
        self.state.hold(self.name, self.token, self.lease)

    def _renew(self) -> None:
        try:
            beat(self.state.client, self.lease, self.seconds)
        except RedisError as exc:  # the next renewal tries again
            logger.warning("could not renew the lease of %s: %s", self.name, exc)

    async def renewing(self, work: Awaitable[T]) -> T:
        """``await work`` while this event loop renews the lease every third of
        ``seconds``: a loop that stops turning stops renewing."""

        async def renew() -> None:
            while True:
                await asyncio.sleep(self.seconds / 3)
                await asyncio.to_thread(self._renew)

        renewal = asyncio.create_task(renew())
        try:
            return await work
        finally:
            renewal.cancel()

    @contextlib.contextmanager
    def renewed_by_thread(self) -> Iterator[None]:
        """Renew the lease from a thread of this process while the block runs."""
        stop = threading.Event()

        def run() -> None:
            while not stop.wait(self.seconds / 3):
                self._renew()

        thread = threading.Thread(target=run, name="delivery lease", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
