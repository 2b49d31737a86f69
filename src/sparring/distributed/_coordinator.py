"""The coordinator of a distributed simulate run: cut the missing conversations into
chunks, enqueue them, write the records as they come back, say what happened.

The run directory is the truth: the coordinator writes each record with ``RunStore``
keyed by conversation id, so a record delivered twice is stored once, and what it sends
is always "the planned conversations that have no record". It planned them: each chunk
carries its conversations' specs, and the chatbot's configuration is published in Redis
by digest when a session opens (``_content``), so workers need no copy of the project.
Each session has a random
id; its chunks are named ``<session>-c<n>`` and each sending of a chunk has a fresh
delivery token that must own the chunk for a worker to run it (``_state``). Once a
second the coordinator

- reclaims the chunks whose delivery's lease ran out (a worker lost with its machine, a
  SIGKILL, a frozen process; ``_heartbeat``) and sends them again, so a lost worker costs about
  ``lease_seconds``; with a Redis broker, a chunk neither queued nor held for
  ``lease_seconds`` (taken by a worker lost before it said so) is sent again too;
- notices the run's state is gone (a Redis restarted without persistence, or emptied:
  the session key is missing) and sends every chunk still out again;
- says, when nothing happens, how many workers consume the queue (``_watch``).

A chunk that comes back ``error`` or ``refused`` is sent again until it was sent K times;
one reported ``failed`` (started K+1 times) stays failed and the run is incomplete. When
nothing comes back for ``2 × visibility_timeout`` (at least 60 s) the chunks still out
are sent again (messages lost with a broker that is not the state's Redis).
``abandon()`` (Ctrl-C) makes ``run`` return within a second; ``--resume`` collects.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import redis
from celery import Celery
from pydantic import BaseModel, Field, ValidationError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from sparring.connectors import ChatbotConfig
from sparring.conversations import ConversationRecord, RunStore, RunSummary, natural_key
from sparring.distributed._app import SIMULATE_CHUNK
from sparring.distributed._cluster import Cluster
from sparring.distributed._content import chatbot_content, publish, specs_json
from sparring.distributed._messages import ChunkMessage, new_token, sender
from sparring.distributed._state import RunState, connect
from sparring.distributed._watch import WorkerWatch
from sparring.simulate import ConversationSpec

logger = logging.getLogger(__name__)

MAX_IDS_LISTED = 1000
"""Re-executed conversation ids listed in ``summary.json`` (all are counted)."""
POLL_SECONDS = 1.0
SENDS_PER_ATTEMPT = 4
"""A lost chunk is given up when a worker started it K times, or when it was sent
``SENDS_PER_ATTEMPT × K`` times: a delivery lost before a worker started it (reserved
behind a busy pool process past its one-shot lease, as after a broker restart) does not
count as a start."""


class ChunkFailure(BaseModel):
    """A chunk that did not finish: its conversations, deliveries and the last error."""

    chunk: str
    ids: list[str]
    attempts: int
    error: str


class DistributedStats(BaseModel):
    """How a distributed run went (``summary.json``'s ``distributed``).

    ``chunks`` sent by the last coordinator session, ``chunk_size`` conversations each;
    ``re_executed`` conversations started more than once (a worker lost mid-chunk, a chunk
    delivered twice: the chatbot may have seen such a conversation twice), with
    ``extra_starts`` the starts beyond the first and ``re_executed_ids`` the first
    1,000 of them; ``failed_chunks`` the chunks given up after K deliveries;
    ``missing`` the planned conversations with no record (the run is incomplete);
    ``reclaimed`` chunks sent again because the worker holding them was lost,
    ``resent_after_state_lost`` chunks sent again because the run's state in Redis was
    gone, ``resent_after_stall`` because nothing came back for long.
    """

    chunks: int = 0
    chunk_size: int = 0
    max_attempts: int = 0
    re_executed: int = 0
    extra_starts: int = 0
    re_executed_ids: list[str] = Field(default_factory=list)
    failed_chunks: list[ChunkFailure] = Field(default_factory=list)
    resent_after_stall: int = 0
    reclaimed: int = 0
    resent_after_state_lost: int = 0
    corrupt_results: int = 0
    missing: int = 0


class DistributedSummary(RunSummary):
    """``summary.json`` of a distributed run: the usual summary and ``distributed``."""

    distributed: DistributedStats = Field(default_factory=DistributedStats)


@dataclass
class _Chunk:
    name: str
    ids: list[str]
    specs: list[dict[str, Any]] = field(default_factory=list)
    sent: int = 0
    token: str = ""
    unheld_since: float | None = None


@dataclass
class _Progress:
    written: int = 0
    failed: list[ChunkFailure] = field(default_factory=list)
    resent: int = 0
    reclaimed: int = 0
    state_lost: int = 0
    corrupt: int = 0


OnRecord = Callable[[ConversationRecord], None]
Send = Callable[[dict[str, Any]], None]


class Coordinator:
    """Runs the missing conversations of ``store``'s simulate run on the cluster.

    ``settings`` is the run's stored settings (JSON, the manifest's), ``chatbot`` the
    chatbot's configuration as loaded here and ``specs`` the run's planned conversations
    (a planned id with no spec is not sent and stays missing); ``send`` enqueues one
    chunk message (default: ``app.send_task``; tests may wrap it, e.g. to deliver a chunk
    twice). ``stop`` is polled between results: when it returns ``True`` the coordinator
    returns with what came back (chunks still out keep running; ``--resume`` collects);
    ``abandon()`` does the same from another thread.
    """

    def __init__(
        self,
        store: RunStore,
        settings: dict[str, Any],
        cluster: Cluster,
        app: Celery,
        state: RunState,
        *,
        chatbot: ChatbotConfig,
        specs: list[ConversationSpec],
        on_record: OnRecord | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> None:
        self.store = store
        self.settings = settings
        self.cluster = cluster
        self.app = app
        self.state = state
        self.on_record = on_record
        self.stop = stop
        self.send: Send = self._send_task
        self.session = new_token()
        self._abandoned = threading.Event()
        self._finished = store.finished_ids()
        self._planned = set(store.manifest.planned)
        self._progress = _Progress()
        self._chatbot = chatbot_content(chatbot)
        self._specs = {spec.id: spec for spec in specs}
        self._files: dict[str, str] = {}
        self._refusals: set[str] = set()
        self._watch = WorkerWatch(app, cluster.queue)
        self._broker = _redis_broker(cluster, state)

    def missing(self) -> list[str]:
        """The planned conversations with no record, in planned order."""
        return [i for i in self.store.manifest.planned if i not in self._finished]

    def abandon(self) -> None:
        """Make ``run`` return within a second (thread-safe): the chunks out are left to
        the workers, whose records the next session collects."""
        self._abandoned.set()

    def run(self) -> DistributedStats:
        """Start a session, collect what earlier sessions left, enqueue the missing
        conversations and wait for them; return the session's figures. Raises
        ``redis.ConnectionError`` when Redis stays unreachable for about a minute."""
        self._open_session()
        self._drain()
        missing = [i for i in self.missing() if i in self._specs]
        size = self.cluster.chunk_size
        chunks = [
            _Chunk(f"{self.session}-c{n}", ids, specs_json([self._specs[i] for i in ids]))
            for n, start in enumerate(range(0, len(missing), size))
            for ids in [missing[start : start + size]]
        ]
        self._collect(deque(chunks))
        return self._stats(len(chunks))

    def _open_session(self) -> None:
        """Own the run and publish the chatbot's configuration by digest."""
        self.state.open_session(self.session)
        self._files = {"chatbot": publish(self.state.client, self._chatbot)}

    def _send_task(self, payload: dict[str, Any]) -> None:
        self.app.send_task(SIMULATE_CHUNK, args=[payload], queue=self.cluster.queue)

    def _enqueue(self, chunks: list[_Chunk]) -> None:
        """Send each of ``chunks`` with a fresh delivery token that owns it."""
        for chunk in chunks:
            chunk.sent += 1
            chunk.token = new_token()
        self.state.own({chunk.name: chunk.token for chunk in chunks})
        for chunk in chunks:
            message = ChunkMessage(
                run=self.state.key,
                session=self.session,
                chunk=chunk.name,
                token=chunk.token,
                ids=chunk.ids,
                specs=chunk.specs,
                settings=self.settings,
                max_attempts=self.cluster.max_attempts,
                files=self._files,
                **sender(),
            )
            self.send(message.model_dump(mode="json"))

    def _drain(self) -> None:
        """Write the records that came back after an earlier session stopped."""
        while (result := self.state.pop_result(timeout=0.01)) is not None:
            self._write(result)

    def _stopping(self) -> bool:
        return self._abandoned.is_set() or (self.stop is not None and self.stop())

    def _refill(self, waiting: deque[_Chunk], out: dict[str, _Chunk]) -> None:
        """Send chunks of ``waiting`` until ``window`` are out (or none waits)."""
        fresh: list[_Chunk] = []
        while waiting and len(out) < self.cluster.window:
            chunk = waiting.popleft()
            out[chunk.name] = chunk
            fresh.append(chunk)
        if fresh:
            self._enqueue(fresh)

    def _collect(self, waiting: deque[_Chunk]) -> None:
        """Keep ``window`` chunks of ``waiting`` out, write what comes back, settle,
        reclaim and resend until none is out or waiting (or the run stops)."""
        out: dict[str, _Chunk] = {}
        stall = max(60.0, 2 * self.cluster.visibility_timeout)
        last = checked = time.monotonic()
        while (out or waiting) and not self._stopping():
            try:
                self._refill(waiting, out)
                result = self.state.pop_result(timeout=POLL_SECONDS)
                if time.monotonic() - checked >= POLL_SECONDS:
                    checked = time.monotonic()
                    self._check(out, active=result is not None)
            except (RedisConnectionError, RedisTimeoutError) as exc:
                logger.warning("Redis unreachable (%s); waiting", exc)
                time.sleep(POLL_SECONDS)
                continue
            if result is None:
                if time.monotonic() - last > stall:
                    logger.warning("nothing came back for %.0f s: sending %d chunks again",
                                   stall, len(out))  # fmt: skip
                    self._enqueue(list(out.values()))
                    self._progress.resent += len(out)
                    last = time.monotonic()
                continue
            last = time.monotonic()
            self._write(result)
            pending = out.get(str(result.get("chunk")))
            if pending is not None and result.get("token") == pending.token:
                self._settle(pending, result, out)
            elif pending is not None and all(i in self._finished for i in pending.ids):
                del out[pending.name]  # an earlier delivery brought every record back

    def _check(self, out: dict[str, _Chunk], *, active: bool) -> None:
        """Once a second: the state lost, workers lost, workers missing."""
        session = self.state.session()
        if session is None:
            logger.warning(
                "the run's state in Redis is gone (restarted without persistence, or "
                "emptied): sending the %d chunks still out again",
                len(out),
            )
            self._open_session()
            self._enqueue(list(out.values()))
            self._progress.state_lost += len(out)
            return
        if session != self.session:
            logger.error("another coordinator session (%s) took this run over: stopping", session)
            self.abandon()
            return
        held = self.state.holders()
        lost = [out[c] for c, t in self.state.lost() if c in out and out[c].token == t]
        lost += self._vanished(out, {chunk for chunk, _ in held})
        for chunk in lost:
            started = self.state.attempts(chunk.name)
            if started >= self.cluster.max_attempts or chunk.sent >= SENDS_PER_ATTEMPT * (
                self.cluster.max_attempts
            ):
                why = f"its worker was lost on each delivery (sent {chunk.sent}, started {started})"
                self._fail(chunk, started, why)
                del out[chunk.name]
        again = [chunk for chunk in lost if chunk.name in out]
        if again:
            logger.warning("lost a worker (its lease ran out): sending %s again",
                           ", ".join(c.name for c in again))  # fmt: skip
            self._enqueue(again)
            self._progress.reclaimed += len(again)
        self._watch.tick(active or bool(held))

    def _vanished(self, out: dict[str, _Chunk], held: set[str]) -> list[_Chunk]:
        """The chunks out that are neither queued nor held by a worker for
        ``lease_seconds``: taken from the queue by a worker lost before it could say so
        (the broker keeps them unacknowledged until its visibility timeout)."""
        now = time.monotonic()
        if self._queued() != 0:
            for chunk in out.values():
                chunk.unheld_since = None
            return []
        gone = []
        for chunk in out.values():
            if chunk.name in held:
                chunk.unheld_since = None
            elif chunk.unheld_since is None:
                chunk.unheld_since = now
            elif now - chunk.unheld_since > self.cluster.lease_seconds:
                chunk.unheld_since = None
                gone.append(chunk)
        return gone

    def _queued(self) -> int | None:
        """Messages waiting in the run's queue (a Redis broker: the queue's list;
        ``None`` for another broker: not known)."""
        if self._broker is None:
            return None
        return int(self._broker.llen(self.cluster.queue))

    def _fail(self, chunk: _Chunk, attempts: int, error: str) -> None:
        self._progress.failed.append(
            ChunkFailure(chunk=chunk.name, ids=chunk.ids, attempts=attempts, error=error)
        )

    def _settle(self, chunk: _Chunk, result: dict[str, Any], out: dict[str, _Chunk]) -> None:
        status = result.get("status")
        attempts = int(result.get("attempt") or chunk.sent)
        if status in ("done", "duplicate") and all(i in self._finished for i in chunk.ids):
            del out[chunk.name]
        elif status in ("failed", "duplicate") or chunk.sent >= self.cluster.max_attempts:
            self._fail(
                chunk, attempts, str(result.get("error") or "its records did not come back whole")
            )
            del out[chunk.name]
        else:
            error = str(result.get("error"))
            if status == "refused" and error not in self._refusals:  # once per reason
                self._refusals.add(error)
                logger.warning("chunk %s %s (said once: summary.json counts the rest)",
                               chunk.name, error)  # fmt: skip
            self._enqueue([chunk])

    def _write(self, result: dict[str, Any]) -> None:
        """Store every new record of ``result`` (never twice, never an unplanned id)."""
        for raw in result.get("records") or []:
            try:
                record = ConversationRecord.model_validate(raw)
            except ValidationError as exc:
                logger.warning("a corrupt record in chunk %s: %s", result.get("chunk"), exc)
                self._progress.corrupt += 1
                continue
            if record.id in self._finished or record.id not in self._planned:
                continue
            self.store.write(record)
            self._finished.add(record.id)
            self._progress.written += 1
            if self.on_record is not None:
                self.on_record(record)

    def _stats(self, chunks: int) -> DistributedStats:
        starts = self.state.starts()
        again = sorted((i for i, n in starts.items() if n > 1), key=natural_key)
        return DistributedStats(
            chunks=chunks,
            chunk_size=self.cluster.chunk_size,
            max_attempts=self.cluster.max_attempts,
            re_executed=len(again),
            extra_starts=sum(n - 1 for n in starts.values() if n > 1),
            re_executed_ids=again[:MAX_IDS_LISTED],
            failed_chunks=self._progress.failed,
            resent_after_stall=self._progress.resent,
            reclaimed=self._progress.reclaimed,
            resent_after_state_lost=self._progress.state_lost,
            corrupt_results=self._progress.corrupt,
            missing=len(self.missing()),
        )

    @property
    def written(self) -> int:
        """Records this coordinator wrote."""
        return self._progress.written


def _redis_broker(cluster: Cluster, state: RunState) -> redis.Redis | None:
    """A client of the broker when it is a Redis (the state's own when they are one)."""
    if not cluster.broker.startswith(("redis://", "rediss://")):
        return None
    return state.client if cluster.broker == cluster.redis else connect(cluster.broker)
