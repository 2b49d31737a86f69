"""``progress.json``: the runner folds the event stream into one small record per run
directory, written atomically at most every half second and at the end. The dashboard and
any other process read it with ``read_progress`` — never by counting files."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ValidationError

from sparring._files import read_user_bytes
from sparring.errors import ConfigError
from sparring.jobs.events import Finished, ItemDone, JobEvent, Planned, StageChanged, Started
from sparring.outcome import JobStatus

PROGRESS = "progress.json"


class Progress(BaseModel):
    """Where the last job run in a directory is: ``planned`` items of its stage, ``done``
    of them (``failed`` among them), model ``cost_usd`` (US dollars) so far, times in UTC,
    ``eta_seconds`` the estimated seconds left (``None`` until an item is done). ``fold``
    counts one call's events; the runner's ``progress.json`` of a resumed run counts in the
    items the earlier calls did in the same stage (``sparring.runner.ProgressRecorder``)."""

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
    read: a run written before progress was recorded, or a ``progress.json`` that is no
    regular file of at most ``MAX_PROGRESS_BYTES`` — a FIFO never blocks, ``/dev/zero``
    is never read)."""
    path = Path(run_dir) / PROGRESS
    try:
        return Progress.model_validate_json(read_user_bytes(path, MAX_PROGRESS_BYTES))
    except (ConfigError, ValidationError):  # also a FIFO, a device, a file too long
        return None


MAX_PROGRESS_BYTES = 1 << 20
"""The longest ``progress.json`` read (1 MiB; the runner writes a few hundred bytes)."""
