"""What every job shares: typed settings, the ``Job`` protocol and the one runner.

A job (``simulate``, ``check``, …) is its settings (a ``JobSettings`` model), its work
(``Job.execute``) and its outcome (``Job.outcome``); the runner does the rest once for
every job — typed settings with located errors, the manifest and its status, resume, the
event stream and ``progress.json``, the outcome and the exit code::

    from sparring.jobs import start
    run = start("simulate", {"profiles": ["examples/alice/profiles"],
                             "chatbot": "examples/alice/chatbot.yaml"}, "runs/a")
    print(run.status, run.outcome.verdict, run.outcome.exit_code, run.run_dir)

``resume(run_dir)`` finishes a stopped run; ``StopSignal`` stops one cleanly; an
``Executor`` (``InProcessExecutor`` here, Celery in the worker) runs jobs by handle.
See docs/architecture.md, "The job runner" and "Adding a job".

The runner, the executor and the registry are imported on first use (they read run
directories through ``sparring.conversations``, which imports this package).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from sparring.jobs import events, outcome
from sparring.jobs._aio import gather_bounded, run_blocking
from sparring.jobs._needs import ModelNeed, Needs, Prepared, prepare
from sparring.jobs._progress import PROGRESS, Progress, read_progress
from sparring.jobs._settings import JobSettings, check_output_paths, new_run_dir
from sparring.jobs._status import JobStatus
from sparring.jobs._stop import StopSignal
from sparring.jobs.events import JobEvent
from sparring.jobs.outcome import Outcome

if TYPE_CHECKING:
    from sparring.jobs._executor import Executor, InProcessExecutor
    from sparring.jobs._protocol import JOBS, Job, JobContext
    from sparring.jobs._runner import JobRun, find_job, resume, resume_async, start, start_async

_LAZY = {
    "Executor": "sparring.jobs._executor",
    "InProcessExecutor": "sparring.jobs._executor",
    "JOBS": "sparring.jobs._protocol",
    "Job": "sparring.jobs._protocol",
    "JobContext": "sparring.jobs._protocol",
    "JobRun": "sparring.jobs._runner",
    "find_job": "sparring.jobs._runner",
    "resume": "sparring.jobs._runner",
    "resume_async": "sparring.jobs._runner",
    "start": "sparring.jobs._runner",
    "start_async": "sparring.jobs._runner",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'sparring.jobs' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "JOBS",
    "PROGRESS",
    "Executor",
    "InProcessExecutor",
    "Job",
    "JobContext",
    "JobEvent",
    "JobRun",
    "JobSettings",
    "JobStatus",
    "ModelNeed",
    "Needs",
    "Outcome",
    "Prepared",
    "Progress",
    "StopSignal",
    "check_output_paths",
    "events",
    "find_job",
    "gather_bounded",
    "new_run_dir",
    "outcome",
    "prepare",
    "read_progress",
    "resume",
    "resume_async",
    "run_blocking",
    "start",
    "start_async",
]
