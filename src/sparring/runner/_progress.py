"""The runner's ``progress.json`` writer: the event stream folded into one ``Progress``
record per run directory (``sparring.jobs.Progress``, read with ``read_progress``)."""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime
from pathlib import Path

from sparring._atomic import atomic_write
from sparring.jobs import PROGRESS, JobEvent, Progress
from sparring.jobs.events import Finished

logger = logging.getLogger(__name__)

WRITE_EVERY = 0.5
"""Seconds between two writes of ``progress.json`` while a job runs."""


class ProgressRecorder:
    """Folds events into a ``Progress`` and writes it to ``<folder>/progress.json`` (once
    the folder is known: ``attach``) at most every ``WRITE_EVERY`` seconds, and always on
    ``Finished``. A write that fails is logged, never the job's failure."""

    def __init__(self, job: str) -> None:
        now = datetime.now(UTC)
        self.progress = Progress(job=job, started_at=now, updated_at=now)
        self.folder: Path | None = None
        self._written = 0.0

    def attach(self, folder: Path) -> None:
        """Write from now on to ``folder`` (a run directory)."""
        self.folder = folder
        self._write()

    def __call__(self, event: JobEvent) -> None:
        self.progress = self.progress.fold(event)
        if isinstance(event, Finished) or time.monotonic() - self._written >= WRITE_EVERY:
            self._write()

    def _write(self) -> None:
        if self.folder is None or not self.folder.is_dir():
            return
        try:
            atomic_write(self.folder / PROGRESS, self.progress.model_dump_json(indent=2),
                         durable=False)  # fmt: skip
        except OSError as exc:
            logger.warning("could not write %s: %s", self.folder / PROGRESS, exc)
        self._written = time.monotonic()
