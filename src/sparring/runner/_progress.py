"""The runner's ``progress.json`` writer: the event stream folded into one ``Progress``
record per run directory (``sparring.jobs.Progress``, read with ``read_progress``)."""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime
from pathlib import Path

from sparring._atomic import atomic_write
from sparring.jobs import PROGRESS, JobEvent, Progress, read_progress
from sparring.jobs.events import Finished

logger = logging.getLogger(__name__)

WRITE_EVERY = 0.5
"""Seconds between two writes of ``progress.json`` while a job runs."""


class ProgressRecorder:
    """Folds events into a ``Progress`` and writes it to ``<folder>/progress.json`` (once
    the folder is known: ``attach``) at most every ``WRITE_EVERY`` seconds, and always on
    ``Finished``. A write that fails is logged, never the job's failure.

    On resume (``attach(folder, resuming=True)``) the progress written counts the whole
    run: the items the earlier calls did in the same stage (done, failed, cost, read from
    the ``progress.json`` they left) are added to this call's, whose ``Planned`` counts
    only what is missing."""

    def __init__(self, job: str) -> None:
        now = datetime.now(UTC)
        self.progress = Progress(job=job, started_at=now, updated_at=now)
        self.folder: Path | None = None
        self._written = 0.0
        self._earlier: Progress | None = None

    def attach(self, folder: Path, *, resuming: bool = False) -> None:
        """Write from now on to ``folder`` (a run directory); with ``resuming``, count in
        what the earlier calls of this job recorded there."""
        self.folder = folder
        if resuming and self._earlier is None:
            found = read_progress(folder)
            if found is not None and found.job == self.progress.job and found.planned:
                self._earlier = found
        self._write()

    def shown(self) -> Progress:
        """The progress as written: this call's, plus the earlier calls' items while the
        job is in the stage they were in (a later stage counts other items)."""
        earlier, now = self._earlier, self.progress
        if earlier is None or not now.planned or earlier.stage != now.stage:
            return now
        return now.model_copy(
            update={
                "planned": now.planned + earlier.done,
                "done": now.done + earlier.done,
                "failed": now.failed + earlier.failed,
                "cost_usd": now.cost_usd + earlier.cost_usd,
            }
        )

    def __call__(self, event: JobEvent) -> None:
        self.progress = self.progress.fold(event)
        if isinstance(event, Finished) or time.monotonic() - self._written >= WRITE_EVERY:
            self._write()

    def _write(self) -> None:
        if self.folder is None or not self.folder.is_dir():
            return
        try:
            atomic_write(self.folder / PROGRESS, self.shown().model_dump_json(indent=2),
                         durable=False)  # fmt: skip
        except OSError as exc:
            logger.warning("could not write %s: %s", self.folder / PROGRESS, exc)
        self._written = time.monotonic()
