"""The Celery application of a cluster: one queue, late acknowledgement, prefetch 1.

Settings that make a lost worker lose nothing (docs/distributed.md): a chunk is
acknowledged only when it finished (``task_acks_late``) and put back when its worker
process dies (``task_reject_on_worker_lost``); each worker process reserves one chunk at a
time (``worker_prefetch_multiplier = 1``) and, with a Redis broker, takes a message only
when one of its pool processes is free (``worker_disable_prefetch``): Celery otherwise
reserves one more message behind a busy pool process, whose one-shot lease (``_heartbeat``)
ran out while it waited, so a live worker's message was sent again until its sends were
spent (a mutant ended ``error``, "its worker was lost", on 1 worker). With Redis, a chunk
whose whole worker vanished goes to another worker after ``visibility_timeout``.
Results do not use Celery's result backend: they travel back through the run's Redis
state (``_state``), which the coordinator drains as chunks finish.
"""

from __future__ import annotations

from typing import Any

from celery import Celery

from sparring.distributed._cluster import Cluster

SIMULATE_CHUNK = "sparring.simulate_chunk"
MUTATE_ONE = "sparring.mutate_one"


def make_app(cluster: Cluster) -> Celery:
    """The Celery app of ``cluster``, with sparring's tasks registered."""
    from sparring.distributed import _tasks

    app = Celery("sparring", broker=cluster.broker, set_as_current=False)
    restore_every = max(1, min(10, int(cluster.visibility_timeout // 4)))
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        worker_disable_prefetch=True,
        task_ignore_result=True,
        task_serializer="json",
        accept_content=["json"],
        task_default_queue=cluster.queue,
        broker_connection_retry_on_startup=True,
        broker_connection_max_retries=None,
        broker_transport_options={
            "visibility_timeout": cluster.visibility_timeout,
            "unacked_restore_interval": restore_every,
            "unacked_restore_throttle": 1,
            "socket_timeout": 30,
        },
        worker_send_task_events=False,
    )
    options: dict[str, Any] = {"acks_late": True, "reject_on_worker_lost": True}
    app.task(name=SIMULATE_CHUNK, **options)(_tasks.simulate_chunk)
    app.task(name=MUTATE_ONE, **options)(_tasks.mutate_one)
    return app
