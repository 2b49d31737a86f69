"""``sparring worker``: a Celery worker that runs sparring's chunks.

``concurrency`` conversations at once on this worker, spread over ``processes`` pool
processes (each runs one chunk at a time — prefetch 1 — with its share of the
conversations on asyncio); fair scheduling; ``queues`` to consume (default the cluster's).
A pool process killed mid-chunk is replaced and the chunk put back for another try.
"""

from __future__ import annotations

import math
import os

from sparring.distributed._app import make_app
from sparring.distributed._cluster import BROKER_VARIABLE, Cluster
from sparring.distributed._tasks import CONVERSATIONS_VARIABLE


def run_worker(
    cluster: Cluster,
    *,
    concurrency: int = 4,
    processes: int = 1,
    queues: list[str] | None = None,
    loglevel: str = "INFO",
) -> None:
    """Start a worker of ``cluster`` in this process; returns when it is shut down
    (SIGTERM or Ctrl-C: warm shutdown, the chunks running finish first)."""
    os.environ[BROKER_VARIABLE] = cluster.broker
    os.environ.setdefault("SPARRING_REDIS_URL", cluster.redis)
    os.environ[CONVERSATIONS_VARIABLE] = str(max(1, math.ceil(concurrency / processes)))
    app = make_app(cluster)
    argv = [
        "worker",
        f"--concurrency={processes}",
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
