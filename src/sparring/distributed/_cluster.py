"""Where the cluster is and how runs are cut: read from the environment by the coordinator
and by every worker alike.

``SPARRING_BROKER_URL`` (or ``--broker``): the Celery broker, Redis (``redis://``) by
default, RabbitMQ (``amqp://``) supported. ``SPARRING_REDIS_URL``: the Redis that holds a
run's shared state (results on their way back, the shared rate limiter, attempt and start
counts); default the broker when it is a Redis, required with RabbitMQ.
``SPARRING_QUEUE`` (default ``sparring``), ``SPARRING_CHUNK_SIZE`` (conversations per
task, default 20), ``SPARRING_MAX_ATTEMPTS`` (deliveries of a chunk before it is marked
failed, default 3), ``SPARRING_VISIBILITY_TIMEOUT`` (seconds before Redis hands a chunk
whose worker vanished to another worker, default 1800; a chunk must finish well within
it, or it is run twice), ``SPARRING_LEASE_SECONDS`` (how long a delivery's lease lives
after its last renewal — the time to notice a lost or hung worker; default 15),
``SPARRING_WINDOW`` (chunks of one run out at once — queued, reserved or running; the
coordinator sends the next as one comes back; default 64).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar

from sparring.errors import UserInputError

BROKER_VARIABLE = "SPARRING_BROKER_URL"
REDIS_VARIABLE = "SPARRING_REDIS_URL"
DEFAULT_QUEUE = "sparring"
DEFAULT_CHUNK_SIZE = 20
DEFAULT_MAX_ATTEMPTS = 3
DEFAULT_VISIBILITY_TIMEOUT = 1800.0
DEFAULT_LEASE_SECONDS = 15.0
DEFAULT_WINDOW = 64


@dataclass(frozen=True)
class Cluster:
    """The broker and state store of a distributed run, and how it is cut into chunks.

    ``broker`` and ``redis`` are URLs (they may hold a password: never put them in a task
    message or a run directory); ``chunk_size`` conversations per task; ``max_attempts``
    deliveries of one chunk (K) before it is marked failed; ``visibility_timeout`` seconds
    (Redis broker) before an unacknowledged chunk goes to another worker;
    ``lease_seconds`` a delivery's lease lives after its last renewal (renewed every third
    of it by the process running it; ``_heartbeat``): the coordinator sends a delivery
    again once its lease ran out; ``window`` chunks of one run are out at once at most
    (the rest wait in the coordinator, not in the broker).
    """

    broker: str
    redis: str
    queue: str = DEFAULT_QUEUE
    chunk_size: int = DEFAULT_CHUNK_SIZE
    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    visibility_timeout: float = DEFAULT_VISIBILITY_TIMEOUT
    lease_seconds: float = DEFAULT_LEASE_SECONDS
    window: int = DEFAULT_WINDOW

    @classmethod
    def from_env(cls, broker: str | None = None, env: Mapping[str, str] | None = None) -> Cluster:
        """The cluster ``broker`` (default ``$SPARRING_BROKER_URL``) and the environment
        describe. Raises ``UserInputError`` naming the variable that is missing or bad."""
        env = os.environ if env is None else env
        url = broker or env.get(BROKER_VARIABLE)
        if not url:
            raise UserInputError(f"no broker: pass --broker URL or set {BROKER_VARIABLE}")
        redis = env.get(REDIS_VARIABLE) or (
            url if url.startswith(("redis://", "rediss://")) else ""
        )
        if not redis:
            raise UserInputError(
                f"a {url.split(':', 1)[0]} broker needs a Redis for the run's shared state: "
                f"set {REDIS_VARIABLE}=redis://HOST:PORT/DB"
            )
        return cls(
            broker=url,
            redis=redis,
            queue=env.get("SPARRING_QUEUE") or DEFAULT_QUEUE,
            chunk_size=_number(env, "SPARRING_CHUNK_SIZE", DEFAULT_CHUNK_SIZE, int),
            max_attempts=_number(env, "SPARRING_MAX_ATTEMPTS", DEFAULT_MAX_ATTEMPTS, int),
            visibility_timeout=_number(
                env, "SPARRING_VISIBILITY_TIMEOUT", DEFAULT_VISIBILITY_TIMEOUT, float
            ),
            lease_seconds=_number(env, "SPARRING_LEASE_SECONDS", DEFAULT_LEASE_SECONDS, float),
            window=_number(env, "SPARRING_WINDOW", DEFAULT_WINDOW, int),
        )


N = TypeVar("N", int, float)


def _number(env: Mapping[str, str], name: str, default: N, kind: type[N]) -> N:
    text = env.get(name)
    if not text:
        return default
    try:
        value = kind(text)
    except ValueError:
        raise UserInputError(f"{name}={text!r} is not a number") from None
    if value <= 0:
        raise UserInputError(f"{name}={text!r} must be positive")
    return value


def check_cluster(cluster: Cluster) -> None:
    """Raise ``UserInputError`` (one line, no password) when the broker or the run's
    Redis cannot be reached or refuses the credentials — before a run or a worker starts,
    instead of retrying for minutes."""
    from sparring.distributed._state import check_reachable

    if cluster.broker.startswith(("redis://", "rediss://")):
        check_reachable(cluster.broker, what="the broker")
    else:
        _check_broker(cluster.broker)
    if cluster.redis != cluster.broker:
        check_reachable(cluster.redis)


def _check_broker(url: str) -> None:
    from kombu.connection import Connection
    from kombu.utils.url import maybe_sanitize_url

    try:
        with Connection(url, connect_timeout=5) as connection:  # type: ignore[no-untyped-call]
            connection.ensure_connection(max_retries=1)
    except Exception as exc:  # kombu raises the transport's own errors
        raise UserInputError(
            f"cannot reach the broker at {maybe_sanitize_url(url)}: {exc}"
        ) from None
