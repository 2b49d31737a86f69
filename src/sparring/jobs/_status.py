"""The status of a job, kept current in its run's manifest (``RunManifest.status``)."""

from __future__ import annotations

from enum import StrEnum


class JobStatus(StrEnum):
    """``running`` while the job works; then ``finished`` (it did all it planned),
    ``failed`` (it raised: bad input found late, our own failure) or ``stopped`` (a stop
    request or Ctrl-C ended it with what finished kept; ``resume`` finishes it)."""

    RUNNING = "running"
    FINISHED = "finished"
    FAILED = "failed"
    STOPPED = "stopped"
