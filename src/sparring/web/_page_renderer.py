"""The worker's page thread: renders the missing pieces of run pages
(``_run_page.render_stale``) off the request path, one run at a time, each run queued at
most once. A request that finds a piece missing submits the run and answers at once; the
page's placeholders fetch the pieces when they are ready. It reads run directories and
writes the cache, never the database.
"""

from __future__ import annotations

import logging
import queue
import threading
from pathlib import Path

logger = logging.getLogger(__name__)


class PageRenderer:
    """A daemon thread rendering run pages into the cache, started on first use."""

    def __init__(self) -> None:
        self._queue: queue.Queue[tuple[int, Path]] = queue.Queue()
        self._queued: set[int] = set()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def submit(self, pk: int, path: Path) -> None:
        """Queue run ``pk`` (its folder ``path``) unless it is already waiting."""
        with self._lock:
            if pk in self._queued:
                return
            self._queued.add(pk)
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="sparring-web-pages")
                self._thread.daemon = True
                self._thread.start()
        self._queue.put((pk, path))

    def wait(self) -> None:
        """Block until every queued run is rendered (tests, benchmarks)."""
        self._queue.join()

    def _loop(self) -> None:
        from sparring.web._run_page import render_stale

        while True:
            pk, path = self._queue.get()
            with self._lock:  # a change during the render queues the run again
                self._queued.discard(pk)
            try:
                render_stale(pk, path)
            except Exception:
                logger.exception("the page of run %s could not be rendered", pk)
            finally:
                self._queue.task_done()


_renderer: PageRenderer | None = None
_create = threading.Lock()


def renderer() -> PageRenderer:
    """The process's page renderer (created on first use)."""
    global _renderer
    with _create:
        if _renderer is None:
            _renderer = PageRenderer()
        return _renderer
