"""The job runner: the one lifecycle every job goes through.

``start(job, settings, out)`` and ``resume(run_dir)`` (and their async twins) type the
settings, open the run, provide what the job declared it needs (``prepare``: chatbot
loaded and probed, models loaded), drive the job with its ``JobContext`` (``RunContext``),
record ``progress.json``, store the outcome in the manifest and write the report;
``launch``/``launch_resume`` run them on a thread and give at once a typed
``JobHandle`` (events as they happen, ``stop``, ``wait`` for the ``JobRun``);
``InProcessExecutor`` runs jobs by handle on threads (the dashboard's, the tests'). The
contract the jobs code against is ``sparring.jobs``::

    from sparring.runner import start
    run = start("simulate", {"profiles": ["examples/alice/profiles"],
                             "chatbot": "examples/alice/chatbot.yaml"}, "runs/a")
    print(run.status, run.outcome.verdict, run.outcome.exit_code, run.run_dir)

A job passed as an object (``start(SimulateJob(), settings)``: a ``Job[S, R]``) gives a
``JobRun[R]``, its ``result`` typed and settings of another job refused by the type
checker; a job named by a string gives a ``JobRun[Any]``. Typed callers pass the job.
"""

from __future__ import annotations

from sparring.jobs import JOBS, JobRun
from sparring.runner._context import RunContext, chatbot_fields
from sparring.runner._executor import Executor, InProcessExecutor
from sparring.runner._handle import EventStream, JobHandle, launch, launch_resume
from sparring.runner._prepare import PROBE_TIMEOUT, prepare
from sparring.runner._progress import ProgressRecorder
from sparring.runner._run import find_job
from sparring.runner._runner import (
    BUILTIN_JOBS,
    RUNNER,
    Runner,
    resume,
    resume_async,
    start,
    start_async,
)

__all__ = [
    "BUILTIN_JOBS",
    "JOBS",
    "PROBE_TIMEOUT",
    "RUNNER",
    "EventStream",
    "Executor",
    "InProcessExecutor",
    "JobHandle",
    "JobRun",
    "ProgressRecorder",
    "RunContext",
    "Runner",
    "chatbot_fields",
    "find_job",
    "launch",
    "launch_resume",
    "prepare",
    "resume",
    "resume_async",
    "start",
    "start_async",
]
