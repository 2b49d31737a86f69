"""The execution interface (``sparring.runner.Executor``) on a cluster: what the dashboard
launches jobs through when it has a broker.

``simulate`` runs on the job runner in a thread here with its conversations on the
cluster's workers (``RemoteSimulate``); every other job runs on a thread here, as with
``InProcessExecutor`` (docs/distributed.md says which jobs distribute). Settings cross
the interface as JSON and never hold secrets.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import JsonValue

from sparring.conversations import RunStore
from sparring.distributed._cluster import Cluster
from sparring.distributed._simulate import RemoteSimulate
from sparring.jobs import Job
from sparring.jobs.events import JobEvent
from sparring.runner import InProcessExecutor, resume, start
from sparring.simulate import SimulateJob, SimulateSettings


class CeleryExecutor(InProcessExecutor):
    """An ``Executor`` whose simulate runs spread over ``cluster``'s workers; handles,
    ``stop``, ``status``, ``wait`` and ``result`` as ``InProcessExecutor``'s."""

    def __init__(
        self, cluster: Cluster, on_event: Callable[[str, JobEvent], None] | None = None
    ) -> None:
        super().__init__(on_event)
        self.cluster = cluster

    def job(self, name: str) -> str | Job[Any, Any]:
        """The job ``name`` as this executor runs it."""
        if name == SimulateSettings.job:
            return SimulateJob(remote=RemoteSimulate(self.cluster))
        return name

    def submit(self, job: str, settings: dict[str, JsonValue], run_dir: Path) -> str:
        runnable = self.job(job)
        return self._launch(
            lambda task, emit: start(runnable, settings, run_dir, on_event=emit, stop=task.stop)
        )

    def resume(self, run_dir: Path) -> str:
        """Resume the run in ``run_dir`` (its conversations on the workers for simulate)."""
        runnable = self.job(RunStore.open(run_dir, clean=False).manifest.job)
        own = None if isinstance(runnable, str) else runnable
        return self._launch(
            lambda task, emit: resume(run_dir, on_event=emit, stop=task.stop, job=own)
        )
