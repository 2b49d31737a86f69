"""``progress.json``: the runner folds the event stream into one small record per run
directory, written atomically at most every half second and at the end. The dashboard and
any other process read it with ``read_progress`` — never by counting files."""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ValidationError

from sparring.jobs._status import JobStatus
from sparring.jobs.events import Finished, ItemDone, JobEvent, Planned, StageChanged, Started

logger = logging.getLogger(__name__)

PROGRESS = "progress.json"
WRITE_EVERY = 0.5
"""Seconds between two writes of ``progress.json`` while a job runs."""


class Progress(BaseModel):
    """Where the last job run in a directory is: ``planned`` items for this call, ``done``
    of them (``failed`` among them), model ``cost_usd`` (US dollars) so far, times in UTC,
    ``eta_seconds`` the estimated seconds left (``None`` until an item is done)."""

    job: str
    status: JobStatus = JobStatus.RUNNING
    stage: str | None = None
    planned: int = 0
    done: int = 0
    failed: int = 0
    cost_usd: float = 0.0
    started_at: datetime
    updated_at: datetime
    eta_seconds: float | None = None
    verdict: str | None = None

    def fold(self, event: JobEvent) -> Progress:
        """This progress after ``event``."""
        update: dict[str, object] = {"updated_at": event.at}
        if isinstance(event, Started):
            update |= {"job": event.job, "status": JobStatus.RUNNING, "started_at": event.at}
        elif isinstance(event, Planned):
            update |= {"planned": event.total, "done": 0, "failed": 0}
        elif isinstance(event, ItemDone):
            update |= {
                "done": self.done + 1,
                "failed": self.failed + (not event.ok),
                "cost_usd": self.cost_usd + event.cost_usd,
            }
        elif isinstance(event, StageChanged):
            update |= {"stage": event.stage}
        elif isinstance(event, Finished):
            update |= {"status": event.status, "verdict": event.verdict}
        folded = self.model_copy(update=update)
        return folded.model_copy(update={"eta_seconds": folded._eta()})

    def _eta(self) -> float | None:
        if self.status != JobStatus.RUNNING or not self.done:
            return None
        elapsed = (self.updated_at - self.started_at).total_seconds()
        return elapsed / self.done * max(self.planned - self.done, 0)


def read_progress(run_dir: Path | str) -> Progress | None:
    """The progress recorded in ``run_dir`` (``None`` when there is none, or it cannot be
    read: a run written before progress was recorded)."""
    path = Path(run_dir) / PROGRESS
    try:
        return Progress.model_validate_json(path.read_bytes())
    except (OSError, ValidationError):
        return None


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
        from sparring.conversations import atomic_write  # the runner's import, not at start-up

        try:
            atomic_write(self.folder / PROGRESS, self.progress.model_dump_json(indent=2),
                         durable=False)  # fmt: skip
        except OSError as exc:
            logger.warning("could not write %s: %s", self.folder / PROGRESS, exc)
        self._written = time.monotonic()
