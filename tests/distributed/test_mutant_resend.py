"""A mutant slower than the lease on one worker (issue 34): ``RemoteMutants`` against
the run's Redis, this test playing the one worker. A pool process's renewal thread
was measured waking up to 3.9 s late for a 1 s wait while the mutant's work held the GIL
(lease 3 s): its delivery was taken for lost and sent again though the worker was alive
and then finished it ``done``. Such a ``done`` is the mutant's result: it must end
killed or live, not ``error`` after its sends ran out."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import redis

from sparring.distributed._cluster import Cluster
from sparring.distributed._heartbeat import DeliveryLease
from sparring.distributed._messages import MutantMessage
from sparring.distributed._mutate import RemoteMutants
from sparring.distributed._state import RunState
from sparring.mutation import Mutant, MutantResult, MutateSettings
from sparring.mutation._model import Location

LEASE = 0.6


class _Queue:
    """The ``send_task`` of a Celery app: the messages sent, in order."""

    def __init__(self) -> None:
        self.sent: list[MutantMessage] = []
        self.lock = threading.Lock()

    def send_task(self, name: str, args: list[Any], queue: str) -> None:
        with self.lock:
            self.sent.append(MutantMessage.model_validate(args[0]))

    def wait(self, count: int, seconds: float = 30.0) -> MutantMessage:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.sent) >= count:
                    return self.sent[count - 1]
            time.sleep(0.02)
        raise AssertionError(f"message {count} was never sent")


def _remote(client: redis.Redis, tmp_path: Path, run: str) -> tuple[RemoteMutants, _Queue]:
    port = client.connection_pool.connection_kwargs["port"]
    url = f"redis://127.0.0.1:{port}/0"
    cluster = Cluster(broker=url, redis=url, queue=f"q-{run}", lease_seconds=LEASE)
    queue = _Queue()
    remote = RemoteMutants(queue, cluster, RunState(client, run), tmp_path)  # type: ignore[arg-type]
    remote._files = {"project": "0" * 64, "profiles[0]": "0" * 64, "rules[0]": "0" * 64}
    return remote, queue


def _mutant() -> Mutant:
    location = Location(file="aiml/geography.aiml", key="category 37,38", line=3)
    return Mutant(id="swap@37,38", operator="swap_categories", location=location,
                  description="swap 37 and 38")  # fmt: skip


def _settings(tmp_path: Path) -> MutateSettings:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    profile = tmp_path / "profile.yaml"
    profile.write_text("x: 1\n")
    rules = tmp_path / "rules.yaml"
    rules.write_text("rules: []\n")
    return MutateSettings(project=project, kind="aiml", profiles=[profile], rules=[rules])


def _done(state: RunState, message: MutantMessage, status: str) -> None:
    result = _mutant().model_dump(exclude={"files"}) | {"status": status}
    body = MutantResult.model_validate(result).model_dump(mode="json")
    state.push_result({"mutant": message.mutant, "session": message.session,
                       "token": message.token, "attempt": 1, "status": "done",
                       "result": body})  # fmt: skip


class _Started:
    """One mutant sent by ``RemoteMutants`` (in a thread) and its first delivery taken
    by the one worker, held under its pool process's lease and started."""

    def __init__(self, client: redis.Redis, tmp_path: Path, run: str) -> None:
        remote, self.queue = _remote(client, tmp_path, run)
        self.outcome: list[MutantResult] = []
        settings = _settings(tmp_path)
        call = remote(settings, _mutant(), [])
        self.runner = threading.Thread(target=lambda: self.outcome.append(asyncio.run(call)))
        self.runner.start()
        self.first = self.queue.wait(1)
        self.state = RunState(client, self.first.run)
        name = f"{self.first.session}/{self.first.mutant}"
        self.lease = DeliveryLease(self.state, name, self.first.token, LEASE)
        self.lease.take()
        self.state.attempt(name)

    def finish(self, status: str) -> MutantResult:
        """The worker pushes the first delivery's ``done``; what the mutant ended as."""
        _done(self.state, self.first, status)
        self.runner.join(timeout=60)
        assert self.outcome, "the mutant never ended"
        return self.outcome[0]


def test_a_live_worker_late_to_renew_still_gives_the_mutant_its_result(
    client: redis.Redis, tmp_path: Path
) -> None:
    started = _Started(client, tmp_path, "late-renewal")
    # its renewal never comes in time (the GIL held by the mutant's work)
    started.queue.wait(2)  # taken for lost: sent again
    result = started.finish("killed")  # the live worker finishes its delivery
    assert (result.status, result.reason) == ("killed", None)
    time.sleep(3 * LEASE)
    assert len(started.queue.sent) == 2  # not sent again after the result came back


def test_a_mutant_is_never_sent_again_while_its_worker_renews(
    client: redis.Redis, tmp_path: Path
) -> None:
    started = _Started(client, tmp_path, "renewed")
    with started.lease.renewed_by_thread():
        time.sleep(8 * LEASE)  # a mutant slower than its lease
    assert len(started.queue.sent) == 1
    assert started.finish("live").status == "live"
    assert len(started.queue.sent) == 1


@pytest.fixture(autouse=True)
def _no_leftovers(client: redis.Redis) -> None:
    client.flushdb()
