"""The contract every job codes against: typed settings (``JobSettings``), what it needs
(``Needs``), the ``Job``, ``JobContext`` and ``JobRunner`` protocols, ``JobRun`` (what a run
ended with) and the ``JOBS`` registry, the event
stream (``sparring.jobs.events``), ``StopSignal``, ``progress.json`` (``Progress``,
``read_progress``), and, handed on from the neutral ``sparring.outcome`` (the run's manifest
stores them too), ``JobStatus`` and the outcome (``sparring.jobs.outcome``: verdict,
reasons, exit code).

It imports no stage and nothing that runs a job: ``sparring.runner`` starts and resumes
jobs, opens their runs, provides what they need, records progress, hosts the executors and
writes the report. See docs/architecture.md, "The job runner" and "Adding a job".
"""

from __future__ import annotations

from sparring import outcome
from sparring.jobs import events
from sparring.jobs._aio import gather_bounded, run_blocking
from sparring.jobs._needs import ModelNeed, Needs, Prepared, job_inputs, needs_of
from sparring.jobs._progress import PROGRESS, Progress, read_progress
from sparring.jobs._protocol import JOBS, Job, JobContext, JobRunner, OnEvent, SettingsInput
from sparring.jobs._run import NO_RESULT, JobRun
from sparring.jobs._settings import JobSettings, check_output_paths, new_run_dir
from sparring.jobs._stop import StopSignal
from sparring.jobs.events import JobEvent
from sparring.outcome import JobStatus, Outcome

__all__ = [
    "JOBS",
    "NO_RESULT",
    "PROGRESS",
    "Job",
    "JobContext",
    "JobEvent",
    "JobRun",
    "JobRunner",
    "JobSettings",
    "JobStatus",
    "ModelNeed",
    "Needs",
    "OnEvent",
    "Outcome",
    "Prepared",
    "Progress",
    "SettingsInput",
    "StopSignal",
    "check_output_paths",
    "events",
    "gather_bounded",
    "job_inputs",
    "needs_of",
    "new_run_dir",
    "outcome",
    "read_progress",
    "run_blocking",
]
