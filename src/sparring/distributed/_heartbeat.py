"""A worker's word that it is alive, and what it holds: how the coordinator notices a
lost worker in seconds (docs/distributed.md, "A lost worker").

The worker's main process keeps ``sparring:node:<node name>`` alive (``NodeHeartbeat``,
every third of ``lease_seconds``) and, as each message arrives (Celery's
``task_received`` signal, before a pool process starts it), records that it holds that
delivery (``on_received``). A worker lost with its machine or a SIGKILL of its process
group stops beating: the coordinator sends every delivery it held — running or only
reserved — again, however long the broker would keep the message unacknowledged. A pool
process that dies alone is Celery's to handle (``task_reject_on_worker_lost``: the
message goes back at once).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

import redis
from pydantic import ValidationError
from redis.exceptions import RedisError

from sparring.distributed._messages import ChunkMessage, MutantMessage
from sparring.distributed._state import RunState, beat

logger = logging.getLogger(__name__)


class NodeHeartbeat:
    """A daemon thread that keeps worker ``node`` alive in Redis for ``seconds`` past each
    beat, beating every third of them (``start``; it lives as long as the process)."""

    def __init__(self, client: redis.Redis, node: str, seconds: float) -> None:
        self.client = client
        self.node = node
        self.seconds = seconds
        self._thread = threading.Thread(target=self._run, name="node heartbeat", daemon=True)

    def start(self) -> NodeHeartbeat:
        beat(self.client, self.node, self.seconds)
        self._thread.start()
        return self

    def _run(self) -> None:
        while True:
            threading.Event().wait(self.seconds / 3)
            try:
                beat(self.client, self.node, self.seconds)
            except RedisError as exc:  # the next beat tries again
                logger.warning("could not say this worker is alive: %s", exc)


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


def on_received(client: redis.Redis, request: Any) -> None:
    """Record that this worker (``request.hostname``) holds the delivery of ``request``
    (Celery's ``task_received``, in the worker's main process)."""
    args = getattr(request, "args", None) or []
    found = delivery(args[0]) if args else None
    if found is None:
        return
    run, name, token = found
    try:
        RunState(client, run).hold(name, token, str(request.hostname))
    except RedisError as exc:  # the delivery still runs; only a loss would go unnoticed
        logger.warning("could not record the delivery of %s: %s", name, exc)
