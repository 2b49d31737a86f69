"""A distributed run's shared state in Redis: results on their way back, the session that
owns the run, the delivery that owns each chunk, the workers holding deliveries, attempt
and start counts, and the shared rate limiter.

Keys live under ``sparring:run:<run key>:`` and expire a week after their last write.
The run directory stays the truth: everything here can be lost (a Redis restarted without
persistence, or emptied) and the coordinator still finishes the run, re-enqueuing what has
no record.

- ``session``: the id (random) of the coordinator session that owns the run; a session
  that finds it gone knows the state was lost and sends its chunks again.
- ``owner`` (hash chunk → delivery token): the delivery of a chunk that may run it. A
  chunk is sent with a fresh token each time the coordinator sends it; a worker runs (and
  goes on starting conversations of) a delivery only while it owns the chunk. A new
  session clears the hash: every chunk of an earlier session stops.
- ``holders`` (hash ``chunk|token`` → lease name): the lease under which a worker holds
  a delivery (received or running it), written as the message arrives and again when a
  pool process starts it, removed when the delivery ends. A lease is a key
  ``sparring:node:<lease>`` that expires unless renewed (``beat``; ``_heartbeat``); the
  coordinator reclaims the deliveries whose lease ran out (the worker was lost or hung).
- ``attempts`` (hash chunk → starts): a chunk started more than K times is reported
  failed instead of run again (a chunk that always crashes its worker).
- ``starts`` (hash conversation id → starts): a conversation started twice was
  re-executed (a lost worker, a redelivered chunk); the run's summary counts them.
- ``done`` (set of chunks): a chunk delivered again after it finished is skipped.
- ``results`` (list): each chunk's outcome and records, JSON, popped by the coordinator.
- ``pace``: the time (Redis's clock) of the next free message slot of a connector with
  ``requests_per_minute``: one limiter for every process of the run.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path
from types import TracebackType
from typing import Any, cast

import redis
from kombu.utils.url import maybe_sanitize_url
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.retry import Retry

from sparring.connectors import Limiter
from sparring.errors import UserInputError

EXPIRY = 7 * 24 * 3600
"""Seconds a run's keys live after their last write."""

_RESERVE_SLOT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local nxt = tonumber(redis.call('GET', KEYS[1]) or '0')
local slot = math.max(now, nxt)
redis.call('SET', KEYS[1], tostring(slot + tonumber(ARGV[1])), 'EX', ARGV[2])
return tostring(slot - now)
"""


def node_key(node: str) -> str:
    """The key of a lease (``beat``)."""
    return f"sparring:node:{node}"


def beat(client: redis.Redis, node: str, seconds: float) -> None:
    """Renew the lease ``node`` for the next ``seconds``."""
    client.set(node_key(node), "1", px=max(1, int(seconds * 1000)))


def connect(url: str) -> redis.Redis:
    """A Redis client that retries a lost connection for about a minute (a restarted
    Redis) before raising ``redis.ConnectionError``."""
    retry = Retry(ExponentialBackoff(cap=2.0, base=0.1), retries=40)
    return redis.Redis.from_url(
        url,
        retry=retry,
        retry_on_error=[RedisConnectionError, RedisTimeoutError],
        health_check_interval=10,
        socket_connect_timeout=5,
    )


def check_reachable(url: str, *, what: str = "the run's Redis", timeout: float = 5.0) -> None:
    """Raise ``UserInputError`` (one line, the password hidden) when the Redis at ``url``
    cannot be reached within ``timeout`` seconds or refuses the credentials."""
    client = redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)
    try:
        client.ping()
    except (redis.AuthenticationError, redis.ResponseError) as exc:
        raise UserInputError(
            f"{what} at {maybe_sanitize_url(url)} refused the credentials: {exc}"
        ) from None
    except redis.RedisError as exc:
        raise UserInputError(f"cannot reach {what} at {maybe_sanitize_url(url)}: {exc}") from None
    finally:
        client.close()


def run_key(run_dir: Path, run_id: str) -> str:
    """The key of a run in Redis: its id and resolved directory, hashed (12 hex digits)."""
    return hashlib.sha256(f"{run_dir.resolve()}|{run_id}".encode()).hexdigest()[:12]


class RunState:
    """One run's keys in Redis (see the module docstring). Methods raise
    ``redis.ConnectionError`` when Redis stays unreachable."""

    def __init__(self, client: redis.Redis, key: str) -> None:
        self.client = client
        self.key = key
        self._prefix = f"sparring:run:{key}:"

    def _k(self, name: str) -> str:
        return self._prefix + name

    def open_session(self, session: str) -> None:
        """Make ``session`` the run's owner: chunks of earlier sessions stop (their
        deliveries no longer own anything) and their holders are forgotten."""
        pipe = self.client.pipeline()
        pipe.set(self._k("session"), session, ex=EXPIRY)
        pipe.delete(self._k("owner"), self._k("holders"))
        pipe.execute()

    def session(self) -> str | None:
        """The session that owns the run (``None``: none, or the state was lost)."""
        value = self.client.get(self._k("session"))
        return cast(bytes, value).decode() if value is not None else None

    def own(self, owners: dict[str, str]) -> None:
        """Give each chunk of ``owners`` (chunk → delivery token) to that delivery."""
        if owners:
            pipe = self.client.pipeline()
            pipe.hset(self._k("owner"), mapping=owners)  # type: ignore[arg-type]
            pipe.expire(self._k("owner"), EXPIRY)
            pipe.execute()

    def owns(self, chunk: str, token: str) -> bool:
        """Whether the delivery ``token`` of ``chunk`` may run it (it was not sent again
        since, by this session)."""
        value = self.client.hget(self._k("owner"), chunk)
        return value is not None and cast(bytes, value).decode() == token

    def hold(self, chunk: str, token: str, node: str) -> None:
        """Record that delivery ``token`` of ``chunk`` is held under lease ``node``."""
        pipe = self.client.pipeline()
        pipe.hset(self._k("holders"), f"{chunk}|{token}", node)
        pipe.expire(self._k("holders"), EXPIRY)
        pipe.execute()

    def let_go(self, chunk: str, token: str) -> None:
        """Forget the holder of delivery ``token`` of ``chunk`` (it ended)."""
        self.client.hdel(self._k("holders"), f"{chunk}|{token}")

    def holders(self) -> dict[tuple[str, str], str]:
        """Every delivery a worker holds now: (chunk, token) → node name."""
        raw = cast(dict[bytes, bytes], self.client.hgetall(self._k("holders")))
        held = {k.decode().rpartition("|"): v.decode() for k, v in raw.items()}
        return {(chunk, token): node for (chunk, _, token), node in held.items()}

    def lost(self) -> list[tuple[str, str]]:
        """The deliveries (chunk, token) whose lease ran out (the worker lost or hung);
        they are forgotten here, the caller sends them again."""
        held = self.holders()
        nodes = sorted(set(held.values()))
        pipe = self.client.pipeline()
        for node in nodes:
            pipe.exists(node_key(node))
        alive = {n for n, up in zip(nodes, pipe.execute(), strict=True) if up}
        gone = [delivery for delivery, node in held.items() if node not in alive]
        if gone:
            self.client.hdel(self._k("holders"), *(f"{c}|{t}" for c, t in gone))
        return gone

    def attempt(self, chunk: str) -> int:
        """Count one more delivery of ``chunk``; return the count (1 on the first)."""
        count = int(self.client.hincrby(self._k("attempts"), chunk, 1))
        self.client.expire(self._k("attempts"), EXPIRY)
        return count

    def attempts(self, chunk: str) -> int:
        """The deliveries of ``chunk`` a worker started (``attempt``), without counting."""
        return int(self.client.hget(self._k("attempts"), chunk) or 0)

    def started(self, conversation_id: str) -> int:
        """Count one more start of a conversation; return the count (2+: re-executed)."""
        count = int(self.client.hincrby(self._k("starts"), conversation_id, 1))
        self.client.expire(self._k("starts"), EXPIRY)
        return count

    def starts(self) -> dict[str, int]:
        """Every started conversation and how many times it was started."""
        raw = cast(dict[bytes, bytes], self.client.hgetall(self._k("starts")))
        return {k.decode(): int(v) for k, v in raw.items()}

    def mark_done(self, chunk: str) -> None:
        """Remember that ``chunk`` finished (a later delivery skips it)."""
        self.client.sadd(self._k("done"), chunk)
        self.client.expire(self._k("done"), EXPIRY)

    def is_done(self, chunk: str) -> bool:
        """Whether ``chunk`` finished already."""
        return bool(self.client.sismember(self._k("done"), chunk))

    def push_result(self, result: dict[str, Any]) -> None:
        """Send a chunk's outcome back to the coordinator (JSON)."""
        self.client.rpush(self._k("results"), json.dumps(result))
        self.client.expire(self._k("results"), EXPIRY)

    def pop_result(self, timeout: float) -> dict[str, Any] | None:
        """The next chunk outcome, waiting up to ``timeout`` seconds (``None``: none)."""
        item = self.client.blpop([self._k("results")], timeout=timeout)
        if item is None:
            return None
        _, body = cast(tuple[bytes, bytes], item)
        return cast(dict[str, Any], json.loads(body))

    def limiter(self, per_minute: float) -> Limiter:
        """A limiter of ``per_minute`` messages shared by every process of the run
        (``sparring.connectors.LimiterFactory``)."""
        return SharedLimiter(self.client, self._k("pace"), 60.0 / per_minute)

    def forget(self) -> None:
        """Delete the run's keys (its records are in the run directory)."""
        names = ("session", "owner", "holders", "attempts", "starts", "done", "results", "pace")
        self.client.delete(*(self._k(n) for n in names))


class SharedLimiter:
    """``async with limiter:`` waits for the run's next free message slot: slots are
    ``interval`` seconds apart on Redis's clock, reserved atomically, so every process
    together sends at most one message per ``interval`` (a bucket of one message, as the
    in-process ``aiolimiter`` does)."""

    def __init__(self, client: redis.Redis, key: str, interval: float) -> None:
        self._client = client
        self._key = key
        self._interval = interval
        self._script = client.register_script(_RESERVE_SLOT)

    async def __aenter__(self) -> None:
        wait = await asyncio.to_thread(
            self._script, keys=[self._key], args=[self._interval, EXPIRY]
        )
        delay = float(cast(bytes, wait))
        if delay > 0:
            await asyncio.sleep(delay)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        return None
