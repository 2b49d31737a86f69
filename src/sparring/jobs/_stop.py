"""``StopSignal``: how a caller (Ctrl-C, the dashboard's stop button, a Celery revoke)
asks a running job to end cleanly."""

from __future__ import annotations

import threading


class StopSignal:
    """A thread-safe stop request. ``request()`` from any thread; a job reads
    ``requested`` between items (conversations, rules, mutants) and starts no new one once
    it is set. Items already running finish and are kept; the runner then ends the job with
    the status ``stopped``, and ``resume`` finishes what is left."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def request(self) -> None:
        """Ask the job to stop after the items it is running."""
        self._event.set()

    @property
    def requested(self) -> bool:
        """Whether a stop was requested."""
        return self._event.is_set()

    def __call__(self) -> bool:
        """``requested``, for code that takes a ``Callable[[], bool]``."""
        return self._event.is_set()
