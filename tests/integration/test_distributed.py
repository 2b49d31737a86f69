"""Distributed simulate runs on Celery workers (issue 24's acceptance tests).

Real processes on loopback: Debian's ``redis-server`` as broker and state store (skips
where missing), a deterministic chatbot that answers after a fixed latency, and
``sparring worker`` processes with their own working directories and ``HOME``s. The
coordinator runs in the test process (``sparring.runner.start`` with the job of
``on_workers``) except where it is killed.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from distributed_support import (
    LoopbackBot,
    RedisServer,
    Worker,
    alice_mutants,
    essence,
    in_thread,
    mutate_on_workers,
    on_workers,
    stored_once,
    wait_for,
    write_project,
)

pytest.importorskip("celery")

from sparring.conversations import RunStore
from sparring.runner import resume, start
from sparring.simulate import SimulateJob, SimulateSettings

pytestmark = pytest.mark.integration

TOKEN = "bot-token-4f1c9e-never-in-a-message"
PROVIDER_KEY = "sk-test-provider-key-8d2a71"
CHUNK = "5"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path_factory.mktemp("redis")).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LoopbackBot]:
    server = LoopbackBot(tmp_path_factory.mktemp("bot"), latency=0.2, token=TOKEN).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def workers(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[list[Worker]]:
    """Two workers × 10 conversations, each with its own folder and HOME."""
    env = {"BOT_TOKEN": TOKEN, "OPENAI_API_KEY": PROVIDER_KEY}
    started = [
        Worker(
            tmp_path_factory.mktemp(f"worker{i}"),
            redis_server.url,
            env=env,
            roots=(tmp_path_factory.getbasetemp(), REPO),
        ).start()
        for i in range(2)
    ]
    try:
        for worker in started:
            worker.wait_ready()
        yield started
    finally:
        for worker in started:
            worker.stop()


@pytest.fixture
def cluster_env(monkeypatch: pytest.MonkeyPatch, redis_server: RedisServer) -> RedisServer:
    monkeypatch.setenv("SPARRING_BROKER_URL", redis_server.url)
    monkeypatch.setenv("SPARRING_CHUNK_SIZE", CHUNK)
    monkeypatch.setenv("BOT_TOKEN", TOKEN)
    monkeypatch.setenv("OPENAI_API_KEY", PROVIDER_KEY)
    monkeypatch.delenv("SPARRING_QUEUE", raising=False)
    return redis_server


def _settings(profiles: Path, chatbot: Path, concurrency: int = 20) -> SimulateSettings:
    return SimulateSettings(profiles=[profiles], chatbot=chatbot, seed=7, concurrency=concurrency)


def test_two_workers_store_every_conversation_once_as_in_process(
    cluster_env: RedisServer, bot: LoopbackBot, workers: list[Worker], tmp_path: Path
) -> None:
    profiles, chatbot = write_project(tmp_path, bot.url, conversations=200)
    local = start(SimulateJob(), _settings(profiles, chatbot), tmp_path / "local").result
    assert local.summary.conversations == 200
    job, remote = on_workers()
    start(job, _settings(profiles, chatbot), tmp_path / "spread")

    assert not remote.stats.missing and not remote.stats.failed_chunks
    assert remote.stats.chunks == 40 and remote.stats.re_executed == 0
    spread = {r.id: essence(r) for r in stored_once(tmp_path / "spread")}
    here = {r.id: essence(r) for r in stored_once(tmp_path / "local")}
    assert spread == here
    assert all(len(r.turns) >= 8 for r in RunStore.open(tmp_path / "spread").iter_records())


def test_a_chunk_delivered_twice_is_stored_once(
    cluster_env: RedisServer, bot: LoopbackBot, workers: list[Worker], tmp_path: Path
) -> None:
    from sparring.distributed._app import SIMULATE_CHUNK, make_app
    from sparring.distributed._cluster import Cluster

    app = make_app(Cluster.from_env())
    sent: list[dict[str, Any]] = []

    def twice(payload: dict[str, Any]) -> None:
        sent.append(payload)
        for _ in range(2):
            app.send_task(SIMULATE_CHUNK, args=[payload], queue="sparring")

    profiles, chatbot = write_project(tmp_path, bot.url, conversations=30)
    job, remote = on_workers(send=twice)
    start(job, _settings(profiles, chatbot), tmp_path / "run")

    assert len(sent) == 6 and not remote.stats.missing
    records = stored_once(tmp_path / "run")
    assert all(r.turns and not r.errors for r in records)
    local = start(SimulateJob(), _settings(profiles, chatbot), tmp_path / "local").result
    assert local.summary.conversations == 30
    assert {essence(r) for r in records} == {essence(r) for r in stored_once(tmp_path / "local")}
    # a second delivery of a finished chunk is skipped; one that overlapped the first
    # re-runs conversations, and each is counted
    assert remote.stats.re_executed == len(remote.stats.re_executed_ids) <= 30


def test_task_messages_carry_no_secret(
    cluster_env: RedisServer,
    bot: LoopbackBot,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import redis

    monkeypatch.setenv("SPARRING_QUEUE", "secrets-test")
    profiles, chatbot = write_project(tmp_path, bot.url, conversations=10)
    job, remote = on_workers()
    coordinator = threading.Thread(
        target=lambda: start(job, _settings(profiles, chatbot), tmp_path / "run")
    )
    coordinator.start()
    client = redis.Redis.from_url(cluster_env.url)
    queued: list[bytes] = []
    for _ in range(300):
        queued = client.lrange("secrets-test", 0, -1)  # type: ignore[assignment]
        if len(queued) == 2:
            break
        threading.Event().wait(0.1)
    assert len(queued) == 2, "the two chunk messages were not queued"
    # kombu's Redis envelope: JSON whose body is base64 — decode it, and read the headers
    # and properties too, so the whole message is searched, not a truncated repr
    envelopes = [json.loads(m) for m in queued]
    bodies = [base64.b64decode(e["body"]) for e in envelopes]
    messages = [json.loads(b)[0][0] for b in bodies]
    assert {i for m in messages for i in m["ids"]} == {f"order/{n}" for n in range(10)}
    searched = b"\n".join([*bodies, *(json.dumps(e).encode() for e in envelopes)])
    assert messages[0]["settings"]["chatbot"] == str(chatbot)  # the decoded settings
    for secret in (TOKEN, PROVIDER_KEY):
        assert secret.encode() not in searched
    env = {"BOT_TOKEN": TOKEN, "OPENAI_API_KEY": PROVIDER_KEY}
    worker = Worker(tmp_path / "worker", cluster_env.url, env=env, queue="secrets-test").start()
    try:
        coordinator.join(timeout=300)
    finally:
        worker.stop()
    # the worker's own token reached the bot, which refuses requests without it
    assert not remote.stats.missing and all(not r.errors for r in stored_once(tmp_path / "run"))


CRASH_BOT = """\
import os
import signal
import sys

sys.path.insert(0, {tests!r})
from distributed_bot import reply_to


def respond(text):
    if "lava" in text.lower():
        os.kill(os.getpid(), signal.SIGKILL)  # the worker's pool process dies
    return reply_to(text)
"""


def test_a_chunk_that_always_crashes_its_worker_fails_after_k_attempts(
    cluster_env: RedisServer,
    workers: list[Worker],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from typer.testing import CliRunner

    from sparring.cli import app

    monkeypatch.setenv("SPARRING_MAX_ATTEMPTS", "2")
    profiles, _ = write_project(tmp_path, "http://unused", conversations=14)
    crash = (profiles / "order.yaml").read_text().replace("test_name: order", "test_name: crash")
    crash = crash.replace("order a pizza", "order a lava pizza").replace("number: 14", "number: 1")
    (profiles / "crash.yaml").write_text(crash)
    (tmp_path / "crash_bot.py").write_text(CRASH_BOT.format(tests=str(Path(__file__).parent)))
    chatbot = tmp_path / "python-bot.yaml"
    chatbot.write_text('connector: python\nparams:\n  target: "crash_bot:respond"\n  path: .\n')
    out = tmp_path / "run"
    args = ["simulate", str(profiles), "-c", str(chatbot), "--out", str(out), "--seed", "3"]
    result = CliRunner().invoke(app, args)

    assert result.exit_code == 3, result.output
    summary = json.loads((out / "summary.json").read_text())["distributed"]
    [failed] = summary["failed_chunks"]
    assert "crash/0" in failed["ids"] and failed["attempts"] == 3
    assert summary["missing"] == len(failed["ids"]) == 5
    store = RunStore.open(out)
    assert store.finished_ids() == set(store.manifest.planned) - set(failed["ids"])
    assert "incomplete" in result.output.lower() and "5 planned conversations" in result.output


def test_a_worker_killed_mid_run_loses_nothing(
    cluster_env: RedisServer, bot: LoopbackBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPARRING_QUEUE", "kill-test")
    monkeypatch.delenv("SPARRING_VISIBILITY_TIMEOUT", raising=False)  # 1,800 s
    env = {"BOT_TOKEN": TOKEN}
    pair = [
        Worker(tmp_path / f"w{i}", cluster_env.url, env=env, queue="kill-test").start()
        for i in range(2)
    ]
    try:
        for worker in pair:
            worker.wait_ready()
        profiles, chatbot = write_project(tmp_path, bot.url, conversations=60)
        before = bot.senders()
        stored: list[str] = []
        job, remote = on_workers()
        thread, box = in_thread(
            lambda: start(
                job,
                _settings(profiles, chatbot),
                tmp_path / "run",
                on_event=lambda event: stored.append(getattr(event, "item_id", "")),
            )
        )
        wait_for(lambda: len([i for i in stored if i]) >= 10, 120)
        time.sleep(0.8)  # records come back a chunk at a time: let both be mid-chunk
        pair[0].kill()
        thread.join(timeout=300)
    finally:
        for worker in pair:
            worker.stop()
    assert "error" not in box, box.get("error")
    assert not remote.stats.missing and len(stored_once(tmp_path / "run")) == 60
    assert remote.stats.re_executed >= 1  # the lost worker's chunk ran again elsewhere
    assert remote.stats.reclaimed >= 1  # when its lease ran out, not the visibility timeout
    seen = len(bot.senders() - before)
    assert 60 <= seen <= 60 + remote.stats.extra_starts


def test_a_killed_coordinator_resumes_with_only_the_missing(
    cluster_env: RedisServer, bot: LoopbackBot, workers: list[Worker], tmp_path: Path
) -> None:
    profiles, chatbot = write_project(tmp_path, bot.url, conversations=200)
    out = tmp_path / "run"
    before = bot.senders()
    args = [sys.executable, "-m", "sparring", "simulate", str(profiles), "-c", str(chatbot)]
    args += ["--out", str(out), "--seed", "7", "--broker", cluster_env.url]
    coordinator = subprocess.Popen(args, env={**os.environ, "SPARRING_CHUNK_SIZE": CHUNK})
    conversations = out / "conversations"
    wait_for(lambda: conversations.is_dir() and len(list(conversations.iterdir())) >= 40, 300)
    coordinator.kill()
    coordinator.wait(timeout=30)
    written = len(list(conversations.iterdir()))
    assert written < 200

    job, remote = on_workers()
    resume(out, job=job)

    assert not remote.stats.missing and len(stored_once(out)) == 200
    # the workers' session stopped starting conversations when the resume began: only
    # those in flight then can have started twice
    assert remote.stats.extra_starts <= sum(w.concurrency for w in workers)
    assert len(bot.senders() - before) <= 200 + remote.stats.extra_starts


def test_a_redis_restart_mid_run_completes(
    tmp_path: Path, bot: LoopbackBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = RedisServer(tmp_path / "redis", appendonly=True).start()
    monkeypatch.setenv("SPARRING_BROKER_URL", server.url)
    monkeypatch.setenv("SPARRING_CHUNK_SIZE", CHUNK)
    monkeypatch.setenv("SPARRING_VISIBILITY_TIMEOUT", "10")
    monkeypatch.setenv("BOT_TOKEN", TOKEN)
    env = {"BOT_TOKEN": TOKEN, "SPARRING_VISIBILITY_TIMEOUT": "10"}
    pair = [Worker(tmp_path / f"w{i}", server.url, env=env).start() for i in range(2)]
    try:
        for worker in pair:
            worker.wait_ready()
        profiles, chatbot = write_project(tmp_path, bot.url, conversations=80)
        stored: list[str] = []
        job, remote = on_workers()
        thread, box = in_thread(
            lambda: start(
                job,
                _settings(profiles, chatbot),
                tmp_path / "run",
                on_event=lambda event: stored.append(getattr(event, "item_id", "")),
            )
        )
        wait_for(lambda: len([i for i in stored if i]) >= 15, 120)
        server.stop()
        time.sleep(2)
        server.start()
        thread.join(timeout=300)
    finally:
        for worker in pair:
            worker.stop()
        server.stop()
    assert "error" not in box, box.get("error")
    assert not remote.stats.missing and len(stored_once(tmp_path / "run")) == 80


def test_requests_per_minute_holds_across_three_workers(
    cluster_env: RedisServer, bot: LoopbackBot, workers: list[Worker], tmp_path: Path
) -> None:
    third = Worker(tmp_path / "w3", cluster_env.url, env={"BOT_TOKEN": TOKEN}).start()
    try:
        third.wait_ready()
        profiles, chatbot = write_project(
            tmp_path, bot.url, conversations=8, steps=3, extra_params="  requests_per_minute: 60\n"
        )
        logs = [w.log for w in [*workers, third]]
        received = [w.read_text().count("received") for w in logs]
        began = time.time()
        job, remote = on_workers()
        start(
            job,
            _settings(profiles, chatbot).model_copy(update={"concurrency": 10}),
            tmp_path / "run",
        )
    finally:
        third.stop()
    assert not remote.stats.missing
    times = sorted(r["t"] for r in bot.requests() if r["t"] >= began)
    assert len(times) >= 20
    # slots one second apart whichever worker sends; a message may leave a little after
    # its slot (a busy process), never before
    assert (len(times) - 1) / (times[-1] - times[0]) <= 1.05
    assert max(sum(1 for t in times if s <= t < s + 10) for s in times) <= 11
    assert all(sum(1 for t in times if s <= t < s + 60) <= 60 for s in times)
    busy = [w.read_text().count("received") - n for w, n in zip(logs, received, strict=True)]
    assert sum(1 for n in busy if n) >= 2  # the chunks were spread over the workers


def test_mutate_on_two_workers_kills_as_in_process(
    cluster_env: RedisServer, workers: list[Worker], tmp_path: Path
) -> None:
    pytest.importorskip("aiml")
    from sparring.mutation import MutateJob

    settings = alice_mutants(tmp_path, 3, workers=2)
    local = start(MutateJob(), settings, tmp_path / "local").result
    spread = mutate_on_workers(settings, tmp_path / "spread")

    def kills(result: Any) -> dict[str, tuple[str, list[str]]]:
        # a timeout is what a loaded machine does on its own (the harness confirms a kill
        # by timeouts alone with a second run): compared apart from it
        return {m.id: (m.status, sorted(set(m.killed_by) - {"timeout"})) for m in result.mutants}

    assert len(local.mutants) == 3 and spread.sampled == local.sampled
    assert kills(spread) == kills(local)
    assert all(any("ran on a worker" in n for n in m.notes) for m in spread.mutants)


def test_the_celery_executor_runs_a_submitted_simulate_on_the_workers(
    cluster_env: RedisServer, bot: LoopbackBot, workers: list[Worker], tmp_path: Path
) -> None:
    from sparring.distributed import CeleryExecutor, Cluster
    from sparring.jobs import JobStatus

    profiles, chatbot = write_project(tmp_path, bot.url, conversations=12)
    executor = CeleryExecutor(Cluster.from_env())
    settings = _settings(profiles, chatbot).model_dump(mode="json")
    handle = executor.submit("simulate", settings, tmp_path / "run")

    assert executor.wait(handle, timeout=300) is JobStatus.FINISHED, executor.error(handle)
    records = stored_once(tmp_path / "run")
    assert len(records) == 12 and all(not r.errors for r in records)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["distributed"]["chunks"] == 3  # the conversations went to the workers
