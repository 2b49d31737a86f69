"""The coordinator of a distributed simulate run: cut the missing conversations into
chunks, enqueue them, write the records as they come back, say what happened.

The run directory is the truth: the coordinator writes each record with ``RunStore``
keyed by conversation id, so a record delivered twice is stored once, and what it sends
is always "the planned conversations that have no record". A chunk that comes back
``error`` is sent again until it was delivered K times; one reported ``failed`` (its
worker was lost K times) stays failed and the run is incomplete. When nothing comes back
for ``2 × visibility_timeout`` (at least 60 s) the chunks still out are sent again
(messages lost with a Redis that restarted without persistence).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from celery import Celery
from pydantic import BaseModel, Field, ValidationError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from sparring.conversations import ConversationRecord, RunStore, RunSummary, natural_key
from sparring.distributed._app import SIMULATE_CHUNK
from sparring.distributed._cluster import Cluster
from sparring.distributed._state import RunState

logger = logging.getLogger(__name__)

MAX_IDS_LISTED = 1000
"""Re-executed conversation ids listed in ``summary.json`` (all are counted)."""
POLL_SECONDS = 1.0


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
    ``missing`` the planned conversations with no record (the run is incomplete).
    """

    chunks: int = 0
    chunk_size: int = 0
    max_attempts: int = 0
    re_executed: int = 0
    extra_starts: int = 0
    re_executed_ids: list[str] = Field(default_factory=list)
    failed_chunks: list[ChunkFailure] = Field(default_factory=list)
    resent_after_stall: int = 0
    corrupt_results: int = 0
    missing: int = 0


class DistributedSummary(RunSummary):
    """``summary.json`` of a distributed run: the usual summary and ``distributed``."""

    distributed: DistributedStats = Field(default_factory=DistributedStats)


@dataclass
class _Chunk:
    name: str
    ids: list[str]
    attempts: int = 0


@dataclass
class _Progress:
    written: int = 0
    failed: list[ChunkFailure] = field(default_factory=list)
    resent: int = 0
    corrupt: int = 0


OnRecord = Callable[[ConversationRecord], None]
Send = Callable[[dict[str, Any]], None]


class Coordinator:
    """Runs the missing conversations of ``store``'s simulate run on the cluster.

    ``settings`` is the run's stored settings (JSON, the manifest's); ``send`` enqueues one
    chunk message (default: ``app.send_task``; tests may wrap it, e.g. to deliver a chunk
    twice). ``stop`` is polled between results: when it returns ``True`` the coordinator
    returns with what came back (chunks still out keep running; ``--resume`` collects).
    """

    def __init__(
        self,
        store: RunStore,
        settings: dict[str, Any],
        cluster: Cluster,
        app: Celery,
        state: RunState,
        *,
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
        self._finished = store.finished_ids()
        self._planned = set(store.manifest.planned)
        self._progress = _Progress()

    def missing(self) -> list[str]:
        """The planned conversations with no record, in planned order."""
        return [i for i in self.store.manifest.planned if i not in self._finished]

    def run(self) -> DistributedStats:
        """Start a session, collect what earlier sessions left, enqueue the missing
        conversations and wait for them; return the session's figures. Raises
        ``redis.ConnectionError`` when Redis stays unreachable for about a minute."""
        epoch = self.state.new_epoch()
        self._drain()
        missing = self.missing()
        size = self.cluster.chunk_size
        chunks = {
            name: _Chunk(name, missing[i : i + size])
            for n, i in enumerate(range(0, len(missing), size))
            for name in [f"e{epoch}-c{n}"]
        }
        for chunk in chunks.values():
            self._enqueue(chunk, epoch)
        self._collect(chunks, epoch)
        return self._stats(len(chunks))

    def _send_task(self, payload: dict[str, Any]) -> None:
        self.app.send_task(SIMULATE_CHUNK, args=[payload], queue=self.cluster.queue)

    def _enqueue(self, chunk: _Chunk, epoch: int) -> None:
        chunk.attempts += 1
        self.send(
            {
                "run": self.state.key,
                "epoch": epoch,
                "chunk": chunk.name,
                "ids": chunk.ids,
                "settings": self.settings,
                "max_attempts": self.cluster.max_attempts,
            }
        )

    def _drain(self) -> None:
        """Write the records that came back after an earlier session stopped."""
        while (result := self.state.pop_result(timeout=0.01)) is not None:
            self._write(result)

    def _collect(self, chunks: dict[str, _Chunk], epoch: int) -> None:
        out = dict(chunks)
        stall = max(60.0, 2 * self.cluster.visibility_timeout)
        last = time.monotonic()
        while out and not (self.stop is not None and self.stop()):
            try:
                result = self.state.pop_result(timeout=POLL_SECONDS)
            except (RedisConnectionError, RedisTimeoutError) as exc:
                logger.warning("Redis unreachable (%s); waiting", exc)
                time.sleep(POLL_SECONDS)
                continue
            if result is None:
                if time.monotonic() - last > stall:
                    logger.warning("nothing came back for %.0f s: sending %d chunks again",
                                   stall, len(out))  # fmt: skip
                    for chunk in out.values():
                        self._enqueue(chunk, epoch)
                    self._progress.resent += len(out)
                    last = time.monotonic()
                continue
            last = time.monotonic()
            self._write(result)
            pending = out.get(str(result.get("chunk")))
            if pending is not None and result.get("epoch") == epoch:
                self._settle(pending, result, out, epoch)

    def _settle(
        self, chunk: _Chunk, result: dict[str, Any], out: dict[str, _Chunk], epoch: int
    ) -> None:
        status = result.get("status")
        attempts = int(result.get("attempt") or chunk.attempts)
        if status == "done" and not [i for i in chunk.ids if i not in self._finished]:
            del out[chunk.name]
        elif status == "failed" or attempts >= self.cluster.max_attempts:
            error = str(result.get("error") or "its records did not come back whole")
            self._progress.failed.append(ChunkFailure(
                chunk=chunk.name, ids=chunk.ids, attempts=attempts, error=error
            ))  # fmt: skip
            del out[chunk.name]
        else:
            self._enqueue(chunk, epoch)

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
            corrupt_results=self._progress.corrupt,
            missing=len(self.missing()),
        )

    @property
    def written(self) -> int:
        """Records this coordinator wrote."""
        return self._progress.written
