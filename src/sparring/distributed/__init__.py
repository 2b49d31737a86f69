"""Runs spread over worker machines with Celery (``pip install ".[celery]"`` in a clone).

``sparring worker`` starts a worker (``run_worker``); ``sparring simulate --broker URL``
(or ``SPARRING_BROKER_URL``) runs the simulate job's conversations on the workers
(``sparring.runner.start``/``resume`` with ``SimulateJob(remote=RemoteSimulate(cluster))``,
what ``CeleryExecutor`` runs); ``sparring mutate --broker`` runs one
mutant per task (``sparring.runner.start`` with ``MutateJob(run_one=remote_mutants(cluster,
out))``). The run directory stays with the coordinator, which plans the run: a chunk
carries its planned conversations and the digest of the chatbot's configuration, published
in Redis, so workers need no copy of the project, only their own secrets (and, for mutate, their own
copy of the bot's code, matched by digest: ``_bundle``); they run nothing a message
commands (``WorkerPolicy``). See
docs/distributed.md.

Importing this package imports Celery: only the worker and ``--broker`` paths do.
"""

from sparring.distributed._cluster import BROKER_VARIABLE, REDIS_VARIABLE, Cluster, check_cluster
from sparring.distributed._coordinator import (
    ChunkFailure,
    Coordinator,
    DistributedStats,
    DistributedSummary,
)
from sparring.distributed._executor import CeleryExecutor
from sparring.distributed._mutate import (
    RemoteMutants,
    remote_mutants,
)
from sparring.distributed._policy import Refused, WorkerPolicy
from sparring.distributed._simulate import (
    RemoteSimulate,
)
from sparring.distributed._state import RunState, SharedLimiter, connect, run_key
from sparring.distributed._worker import run_worker, worker_processes

__all__ = [
    "BROKER_VARIABLE",
    "REDIS_VARIABLE",
    "CeleryExecutor",
    "ChunkFailure",
    "Cluster",
    "Coordinator",
    "DistributedStats",
    "DistributedSummary",
    "Refused",
    "RemoteMutants",
    "RemoteSimulate",
    "RunState",
    "SharedLimiter",
    "WorkerPolicy",
    "check_cluster",
    "connect",
    "remote_mutants",
    "run_key",
    "run_worker",
    "worker_processes",
]
