"""The typed stream of progress events every job emits through the runner.

One event type per thing that happens, the same for every job, read by the CLI's progress
bars, ``progress.json`` (``sparring.jobs.Progress``) and the dashboard's live view::

    Started(job, run_id) → [StageChanged("probe") → Probed(checked)] → [StageChanged(stage)]
    → Planned(total) → ItemDone(item_id, ok, cost_usd, error) × total → Finished(status,
    verdict)

A job may change stage and plan again (``run``: explore, then simulate, then check); the
runner emits ``Started`` and ``Finished``, the job the rest (``JobContext.emit``). Each
event carries ``at``, its UTC time, and ``kind``, the discriminator of the ``JobEvent``
union (``JOB_EVENT.validate_json(text)`` reads one back).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from sparring.outcome import JobStatus


def _now() -> datetime:
    return datetime.now(UTC)


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True)
    at: datetime = Field(default_factory=_now)


class Started(_Event):
    """The job started (or resumed) in run ``run_id`` (the run directory's name; empty
    for a job that writes into an existing run's slots, like ``check``)."""

    kind: Literal["started"] = "started"
    job: str
    run_id: str = ""
    resuming: bool = False


class Planned(_Event):
    """``total`` items (conversations, rules, mutants, probes…) are to be done by this
    call (on resume: those still missing)."""

    kind: Literal["planned"] = "planned"
    total: int = Field(ge=0)


class ItemDone(_Event):
    """One item ended: ``ok`` false when it failed (a conversation with a generic
    failure, a rule that raised, a killed mutant); ``cost_usd`` its model cost in US
    dollars; ``error`` why it failed."""

    kind: Literal["item_done"] = "item_done"
    item_id: str
    ok: bool = True
    cost_usd: float = 0.0
    error: str | None = None


class StageChanged(_Event):
    """The job moved to ``stage`` (``probe``, ``plan``, ``conversations``, ``explore``…)."""

    kind: Literal["stage_changed"] = "stage_changed"
    stage: str


class Probed(_Event):
    """The chatbot answered the reachability probe the runner sends before any work
    (``checked`` false: its connector has no probe, e.g. an in-process bot, and counts as
    reachable). A chatbot that does not answer ends the job instead
    (``ChatbotUnreachable``)."""

    kind: Literal["probed"] = "probed"
    checked: bool = True


class Finished(_Event):
    """The job ended with ``status``; ``verdict`` is its outcome's verdict (``pass``,
    ``fail``, ``no_verdict``, ``incomplete``, ``error``; ``None`` when it failed)."""

    kind: Literal["finished"] = "finished"
    status: JobStatus
    verdict: str | None = None


JobEvent = Annotated[
    Started | Planned | ItemDone | StageChanged | Probed | Finished, Field(discriminator="kind")
]
"""Any event of the stream."""

JOB_EVENT: TypeAdapter[JobEvent] = TypeAdapter(JobEvent)
"""Reads a ``JobEvent`` from JSON (``JOB_EVENT.validate_json``) or a dict."""

__all__ = [
    "JOB_EVENT",
    "Finished",
    "ItemDone",
    "JobEvent",
    "Planned",
    "Probed",
    "StageChanged",
    "Started",
]
