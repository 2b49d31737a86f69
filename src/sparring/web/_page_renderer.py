"""The worker's page thread: work that renders pieces of pages off the request path, one
piece at a time on a single thread (a ``concurrent.futures.ThreadPoolExecutor`` of one),
each piece waiting at most once. A request that finds a piece missing submits its work
and answers at once; the page's placeholders fetch the pieces when they are ready. It
knows no page: the run page (``_run_page``) submits its own rendering.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Hashable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_all

logger = logging.getLogger(__name__)

GRACE_SECONDS = 0.5
"""How long a piece waits before it is rendered, so the request that submitted it answers
first: a render holds the interpreter's lock for long stretches (parsing a 5 MB check
report is one call), and the page's placeholders ask again after a second anyway."""


class PageRenderer:
    """Runs submitted work on one thread, started on first use."""

    def __init__(self) -> None:
        self._queued: set[Hashable] = set()
        self._running: set[Future[None]] = set()
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="sparring-web-pages")

    def submit(
        self, key: Hashable, work: Callable[[], object], grace: float = GRACE_SECONDS
    ) -> None:
        """Run ``work`` after ``grace`` seconds unless work of the same ``key`` is already
        waiting (a run page's key is its run's id and folder: a deleted run's id given to
        a new run is another run). A change during the render submits it again."""
        with self._lock:
            if key in self._queued:
                return
            self._queued.add(key)
            future = self._pool.submit(self._run, key, work, grace)
            self._running.add(future)
        future.add_done_callback(self._done)

    def wait(self) -> None:
        """Block until every submitted piece is rendered (tests, benchmarks)."""
        while True:
            with self._lock:
                running = list(self._running)
            if not running:
                return
            wait_all(running)

    def _done(self, future: Future[None]) -> None:
        with self._lock:
            self._running.discard(future)

    def _run(self, key: Hashable, work: Callable[[], object], grace: float) -> None:
        time.sleep(grace)
        with self._lock:  # from now on, a change queues the piece again
            self._queued.discard(key)
        try:
            work()
        except Exception:
            logger.exception("a page could not be rendered (%s)", key)


_renderer: PageRenderer | None = None
_create = threading.Lock()


def renderer() -> PageRenderer:
    """The process's page renderer (created on first use)."""
    global _renderer
    with _create:
        if _renderer is None:
            _renderer = PageRenderer()
        return _renderer
