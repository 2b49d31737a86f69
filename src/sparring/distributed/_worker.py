"""``sparring worker``: a Celery worker that runs sparring's chunks.

``concurrency`` conversations at once on this worker: chunks of ``chunk_size``
conversations run one per pool process (taken only when a pool process is free: no
prefetch behind a busy one, ``_app``), so the worker has
``ceil(concurrency / chunk_size)`` pool processes (or ``processes``), each running its
share of the conversations on asyncio. ``queues`` to consume (default the cluster's);
``name`` the node name (default ``sparring-<pid>@<host>``: unique on a host). ``policy``
is what the worker agrees to run (``_policy``). A pool process killed mid-chunk is
replaced and the chunk put back for another try; a whole worker lost is noticed by the
coordinator when the leases of the deliveries it holds run out (``_heartbeat``).
"""

from __future__ import annotations

import math
import os
import shlex

from celery.signals import task_received
from celery.utils.nodenames import host_format

from sparring.distributed._app import make_app
from sparring.distributed._cluster import BROKER_VARIABLE, Cluster, check_cluster
from sparring.distributed._heartbeat import NODE_VARIABLE, on_received
from sparring.distributed._policy import (
    BASE_URLS_VARIABLE,
    ROOTS_VARIABLE,
    SERVE_COMMANDS_VARIABLE,
    WorkerPolicy,
)
from sparring.distributed._state import connect
from sparring.distributed._tasks import CONVERSATIONS_VARIABLE


def worker_processes(concurrency: int, chunk_size: int, processes: int | None = None) -> int:
    """Pool processes of a worker running ``concurrency`` conversations at once in
    chunks of ``chunk_size``: ``processes`` when given, else enough chunks at once."""
    return processes or max(1, math.ceil(concurrency / chunk_size))


def run_worker(
    cluster: Cluster,
    *,
    concurrency: int = 4,
    processes: int | None = None,
    queues: list[str] | None = None,
    name: str | None = None,
    policy: WorkerPolicy | None = None,
    loglevel: str = "INFO",
) -> None:
    """Start a worker of ``cluster`` in this process; returns when it is shut down
    (SIGTERM or Ctrl-C: warm shutdown, the chunks running finish first). Raises
    ``UserInputError`` when the broker cannot be reached or refuses the credentials."""
    check_cluster(cluster)
    policy = policy or WorkerPolicy.from_env()
    pool = worker_processes(concurrency, cluster.chunk_size, processes)
    os.environ[BROKER_VARIABLE] = cluster.broker
    os.environ.setdefault("SPARRING_REDIS_URL", cluster.redis)
    os.environ[CONVERSATIONS_VARIABLE] = str(max(1, math.ceil(concurrency / pool)))
    os.environ[ROOTS_VARIABLE] = os.pathsep.join(str(r) for r in policy.roots)
    os.environ[SERVE_COMMANDS_VARIABLE] = "\n".join(shlex.join(c) for c in policy.serve_commands)
    os.environ[BASE_URLS_VARIABLE] = "\n".join(policy.model_base_urls)
    app = make_app(cluster)
    node = host_format(name or f"sparring-{os.getpid()}@%h")
    os.environ[NODE_VARIABLE] = node
    client = connect(cluster.redis)
    seconds = cluster.lease_seconds

    def received(request: object, **_: object) -> None:
        on_received(client, request, seconds)

    task_received.connect(received, weak=False)
    argv = [
        "worker",
        f"--hostname={node}",
        f"--concurrency={pool}",
        f"--queues={','.join(queues or [cluster.queue])}",
        "--pool=prefork",
        "-O",
        "fair",
        "--prefetch-multiplier=1",
        f"--loglevel={loglevel}",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
    ]
    app.worker_main(argv=argv)
