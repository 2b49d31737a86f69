"""Words for an operator whose run waits: how many workers consume the run's queue.

When nothing has happened for ``quiet`` seconds (no chunk held by a worker, no result back) the
coordinator asks the workers through Celery's remote control (``inspect().active_queues``,
a broadcast every worker answers within ``timeout``) and says ``waiting for workers on
queue Q: none connected``, or, once some come, how many there are.
"""

from __future__ import annotations

import logging
import time

from celery import Celery

logger = logging.getLogger(__name__)

QUIET_SECONDS = 5.0
ASK_EVERY = 10.0


class WorkerWatch:
    """``tick(active)`` once a second with whether anything happened since the last
    tick; logs (warning) when workers are missing and when they come."""

    def __init__(self, app: Celery, queue: str, *, timeout: float = 1.0) -> None:
        self.app = app
        self.queue = queue
        self.timeout = timeout
        self.connected: int | None = None
        self._last_active = time.monotonic()
        self._last_asked = 0.0

    def tick(self, active: bool) -> None:
        now = time.monotonic()
        if active:
            self._last_active = now
            if self.connected == 0 and (names := self.workers()):  # they came: how many
                self._say(names)
            return
        if now - self._last_active < QUIET_SECONDS or now - self._last_asked < ASK_EVERY:
            return
        self._last_asked = now
        self._say(self.workers())

    def _say(self, names: list[str]) -> None:
        if not names:
            logger.warning("waiting for workers on queue %s: none connected", self.queue)
        elif self.connected == 0 or self.connected is None:
            logger.warning("%d worker(s) on queue %s: %s", len(names), self.queue, ", ".join(names))
        self.connected = len(names)

    def workers(self) -> list[str]:
        """The node names of the workers consuming ``queue`` now (sorted)."""
        try:
            replies = self.app.control.inspect(timeout=self.timeout).active_queues() or {}
        except Exception as exc:  # the broker is down: the coordinator says so itself
            logger.debug("could not ask the workers: %s", exc)
            return []
        return sorted(
            node
            for node, queues in replies.items()
            if any(q.get("name") == self.queue for q in queues or [])
        )
