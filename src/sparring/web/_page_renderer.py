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
import time
from pathlib import Path

logger = logging.getLogger(__name__)

GRACE_SECONDS = 0.5
"""How long a queued run waits before it is rendered, so the request that queued it
answers first: a render holds the interpreter's lock for long stretches (parsing a 5 MB
check report is one call), and the page's placeholders ask again after a second anyway."""


class PageRenderer:
    """A daemon thread rendering run pages into the cache, started on first use."""

    def __init__(self) -> None:
        self._queue: queue.Queue[tuple[int, Path] | None] = queue.Queue()
        self._queued: set[tuple[int, Path]] = set()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def submit(self, pk: int, path: Path) -> None:
        """Queue run ``pk`` (its folder ``path``) unless it is already waiting (a run is
        its id and its folder: a deleted run's id given to a new run is another run)."""
        with self._lock:
            if (pk, path) in self._queued:
                return
            self._queued.add((pk, path))
            self._start()
        self._queue.put((pk, path))

    def preload(self) -> None:
        """Import the report's sections on the page thread (``sparring web`` does at start:
        the first visit of a run page then finds them loaded)."""
        with self._lock:
            self._start()
        self._queue.put(None)

    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="sparring-web-pages")
            self._thread.daemon = True
            self._thread.start()

    def wait(self) -> None:
        """Block until every queued run is rendered (tests, benchmarks)."""
        self._queue.join()

    def _loop(self) -> None:
        from sparring.web._run_page import page_sections, render_stale

        while True:
            job = self._queue.get()
            try:
                if job is None:
                    page_sections()
                    continue
                pk, path = job
                time.sleep(GRACE_SECONDS)
                with self._lock:  # a change during the render queues the run again
                    self._queued.discard((pk, path))
                render_stale(pk, path)
            except Exception:
                logger.exception("a run page could not be rendered (%s)", job)
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
