"""The faults of a real cluster (issue 34), each tried on real processes: Debian's
``redis-server`` on a free loopback port (skips where missing), the loopback chatbot and
``sparring worker`` processes in their own process groups.

Each test says what survived: the stored conversations (each once), the figures of
``summary.json``'s ``distributed`` and the words the operator saw.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
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
    in_thread,
    mutate_on_workers,
    on_workers,
    stored_once,
    wait_for,
    write_project,
)
from integration_support import free_port

pytest.importorskip("celery")

from sparring.runner import resume, start
from sparring.simulate import SimulateSettings

pytestmark = pytest.mark.integration

TOKEN = "bot-token-faults-2b7e"
REPO = Path(__file__).resolve().parents[2]
CHUNK = "5"


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LoopbackBot]:
    server = LoopbackBot(tmp_path_factory.mktemp("bot"), latency=0.2, token=TOKEN).start()
    yield server
    server.stop()


@pytest.fixture
def redis_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[RedisServer]:
    """A Redis of this test alone (no persistence), exported as the broker."""
    server = RedisServer(tmp_path / "redis").start()
    monkeypatch.setenv("SPARRING_BROKER_URL", server.url)
    monkeypatch.setenv("SPARRING_CHUNK_SIZE", CHUNK)
    monkeypatch.setenv("BOT_TOKEN", TOKEN)
    monkeypatch.delenv("SPARRING_QUEUE", raising=False)
    monkeypatch.delenv("SPARRING_REDIS_URL", raising=False)
    yield server
    server.stop()


class Workers:
    """Workers started for one test, all stopped at its end."""

    def __init__(self, folder: Path, broker: str) -> None:
        self.folder = folder
        self.broker = broker
        self.started: list[Worker] = []

    def start(self, n: int = 1, **options: Any) -> list[Worker]:
        env = {"BOT_TOKEN": TOKEN, "SPARRING_CHUNK_SIZE": CHUNK, **options.pop("env", {})}
        roots = options.pop("roots", (self.folder,))
        fresh = [
            Worker(
                self.folder / f"w{len(self.started) + i}",
                self.broker,
                env=env,
                roots=roots,
                **options,
            ).start()
            for i in range(n)
        ]
        self.started += fresh
        for worker in fresh:
            worker.wait_ready()
        return fresh

    def stop(self) -> None:
        for worker in self.started:
            worker.stop()


@pytest.fixture
def workers(redis_server: RedisServer, tmp_path: Path) -> Iterator[Workers]:
    pool = Workers(tmp_path, redis_server.url)
    yield pool
    pool.stop()


def _settings(profiles: Path, chatbot: Path) -> SimulateSettings:
    return SimulateSettings(profiles=[profiles], chatbot=chatbot, seed=7, concurrency=20)


def _stored(run: Path) -> int:
    folder = run / "conversations"
    return len(list(folder.iterdir())) if folder.is_dir() else 0


def _coordinate(
    tmp_path: Path, bot: LoopbackBot, conversations: int
) -> tuple[threading.Thread, dict[str, Any], Path]:
    profiles, chatbot = write_project(tmp_path, bot.url, conversations=conversations)
    return _on_workers(_settings(profiles, chatbot), tmp_path / "run")


def _on_workers(
    settings: SimulateSettings, out: Path
) -> tuple[threading.Thread, dict[str, Any], Path]:
    """The coordinator in a thread (``start`` with the job of ``on_workers``); its box's
    ``result`` is the ``RemoteSimulate``, whose ``stats`` say how the run went."""
    job, remote = on_workers()
    thread, box = in_thread(lambda: (start(job, settings, out), remote)[1])
    return thread, box, out


def test_all_workers_killed_then_fresh_ones_finish_the_run(
    redis_server: RedisServer, bot: LoopbackBot, workers: Workers, tmp_path: Path
) -> None:
    first = workers.start(2)
    thread, box, out = _coordinate(tmp_path, bot, 60)
    wait_for(lambda: _stored(out) >= 10, 180, "10 records")
    for worker in first:
        worker.kill()  # the whole process group: machines lost
    killed_at = time.monotonic()
    workers.start(2)
    thread.join(timeout=600)
    assert "error" not in box, box.get("error")
    run = box["result"]
    assert not run.stats.missing and len(stored_once(out)) == 60
    # the lost chunks were reclaimed when their leases ran out, not after the broker's
    # visibility timeout (1,800 s by default)
    assert run.stats.reclaimed >= 1 and run.stats.re_executed >= 1
    print(f"finished {time.monotonic() - killed_at:.1f} s after the kill; {run.stats}")


def test_a_run_keeps_at_most_its_window_of_chunks_out(
    redis_server: RedisServer,
    bot: LoopbackBot,
    workers: Workers,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``SPARRING_WINDOW=2``: of the run's 12 chunks, never more than 2 are out at once;
    the next is sent as one comes back. Seen from the broker (queued plus reserved by a
    worker, read at once) a chunk whose result came back may linger until its worker
    acknowledges it a moment later: at most 2 more."""
    import redis

    monkeypatch.setenv("SPARRING_WINDOW", "2")
    workers.start(1, concurrency=20)  # 4 pool processes: room for more than the window
    client = redis.Redis.from_url(redis_server.url)
    thread, box, out = _coordinate(tmp_path, bot, 60)
    seen: list[int] = []
    while thread.is_alive():
        queued, reserved = client.pipeline().llen("sparring").hlen("unacked").execute()
        seen.append(int(queued) + int(reserved))
        time.sleep(0.05)
    assert "error" not in box, box.get("error")
    run = box["result"]
    assert not run.stats.missing and len(stored_once(out)) == 60 and run.stats.chunks == 12
    assert 2 <= max(seen) <= 4, sorted(set(seen))


def test_a_slow_bot_that_outlasts_the_lease_is_not_run_again(
    redis_server: RedisServer, workers: Workers, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A live worker keeps its chunks however long the chatbot takes: every reply takes
    3 s, three times the lease (1 s here, renewed every third of it by the chunk's event
    loop while it awaits the bot). No delivery is reclaimed, no conversation is started
    twice: the lease measures whether the worker lives, not how slow the bot is."""
    monkeypatch.setenv("SPARRING_LEASE_SECONDS", "1")
    slow = LoopbackBot(tmp_path / "slow-bot", latency=3.0, token=TOKEN).start()
    try:
        workers.start(1, env={"SPARRING_LEASE_SECONDS": "1"})  # 2 pool processes × 5
        profiles, chatbot = write_project(tmp_path, slow.url, conversations=10, steps=2)
        job, remote = on_workers()
        started = time.monotonic()
        start(job, _settings(profiles, chatbot), tmp_path / "run")
        took = time.monotonic() - started
    finally:
        slow.stop()
    records = stored_once(tmp_path / "run")
    assert len(records) == 10 and all(r.turns and not r.errors for r in records)
    replies = min(sum(t.role != "user" for t in r.turns) for r in records)
    assert replies * 3.0 > 3 * 1.0  # each chunk outlived its lease several times over
    assert remote.stats.reclaimed == 0 and remote.stats.re_executed == 0, remote.stats
    print(f"{took:.1f} s, {replies}+ replies of 3 s per conversation, lease 1 s: 0 reclaimed")


def test_a_hung_worker_does_not_hold_its_chunks(
    redis_server: RedisServer,
    bot: LoopbackBot,
    workers: Workers,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One of two workers hangs: its pool processes are frozen (SIGSTOP) mid-chunk while
    its main process lives on and keeps beating. The chunks it runs stop being renewed
    (their lease is renewed by the chunk's own event loop), so the coordinator sends them
    again after ``SPARRING_LEASE_SECONDS`` and the other worker finishes the run; when the
    frozen processes wake up their deliveries no longer own anything."""
    monkeypatch.setenv("SPARRING_LEASE_SECONDS", "6")
    stuck, _ = workers.start(2, env={"SPARRING_LEASE_SECONDS": "6"})
    thread, box, out = _coordinate(tmp_path, bot, 60)
    wait_for(lambda: _stored(out) >= 10, 180, "10 records")
    frozen = stuck.pool()
    assert frozen
    for pid in frozen:
        os.kill(pid, signal.SIGSTOP)
    hung_at = time.monotonic()
    try:
        thread.join(timeout=600)
    finally:
        for pid in frozen:
            os.kill(pid, signal.SIGCONT)
    assert "error" not in box, box.get("error")
    run = box["result"]
    assert not run.stats.missing and len(stored_once(out)) == 60
    assert run.stats.reclaimed >= 1
    assert stuck.process is not None and stuck.process.poll() is None  # it never died
    print(f"finished {time.monotonic() - hung_at:.1f} s after the hang; {run.stats}")


def test_a_worker_killed_mid_mutant_loses_nothing(
    redis_server: RedisServer, workers: Workers, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``mutate --broker``: the worker running a mutant is SIGKILLed (its process group);
    the mutant's lease runs out, it is sent again to the other worker and every mutant
    gets a verdict (none ``error``)."""
    pytest.importorskip("aiml")

    monkeypatch.setenv("SPARRING_LEASE_SECONDS", "6")
    pair = workers.start(2, env={"SPARRING_LEASE_SECONDS": "6"}, roots=(tmp_path, REPO))
    settings = alice_mutants(tmp_path, 2)
    started = time.monotonic()
    thread, box = in_thread(lambda: mutate_on_workers(settings, tmp_path / "job"))

    def running() -> Worker | None:
        return next((w for w in pair if "mutate_one[" in w.log.read_text()), None)

    wait_for(lambda: running() is not None, 600, "a mutant on a worker")
    victim = running()
    assert victim is not None
    victim.kill()
    thread.join(timeout=900)
    assert "error" not in box, box.get("error")
    result = box["result"]
    assert len(result.mutants) == 2
    assert all(m.status != "error" for m in result.mutants), [m.reason for m in result.mutants]
    notes = [n for m in result.mutants for n in m.notes if "ran on a worker" in n]
    assert len(notes) == 2 and any("sent 2 times" in n for n in notes), notes
    print(f"mutate with a worker killed: {time.monotonic() - started:.1f} s; {notes}")


def test_a_broker_restart_mid_mutate_finishes(
    redis_server: RedisServer, workers: Workers, tmp_path: Path
) -> None:
    """``mutate --broker`` with Redis restarted without persistence while mutants run:
    the lost state is noticed, the mutants out are sent again and each gets a verdict."""
    pytest.importorskip("aiml")

    pair = workers.start(2, roots=(tmp_path, REPO))
    settings = alice_mutants(tmp_path, 2)
    started = time.monotonic()
    thread, box = in_thread(lambda: mutate_on_workers(settings, tmp_path / "job"))
    wait_for(lambda: any("mutate_one[" in w.log.read_text() for w in pair), 600, "a mutant sent")
    redis_server.stop()
    time.sleep(1)
    redis_server.start()  # empty
    thread.join(timeout=900)
    assert "error" not in box, box.get("error")
    result = box["result"]
    assert len(result.mutants) == 2
    assert all(m.status != "error" for m in result.mutants), [m.reason for m in result.mutants]
    print(f"mutate with Redis restarted: {time.monotonic() - started:.1f} s")


def test_a_broker_restart_without_persistence_finishes(
    redis_server: RedisServer, bot: LoopbackBot, workers: Workers, tmp_path: Path
) -> None:
    workers.start(2)
    thread, box, out = _coordinate(tmp_path, bot, 60)
    wait_for(lambda: _stored(out) >= 10, 180, "10 records")
    redis_server.stop()
    time.sleep(1)
    redis_server.start()  # empty: no append-only file, no snapshot
    thread.join(timeout=600)
    assert "error" not in box, box.get("error")
    run = box["result"]
    assert not run.stats.missing and len(stored_once(out)) == 60
    assert run.stats.resent_after_state_lost >= 1
    # a delivery sent again after the restart and reclaimed before a busy worker started
    # it is no failed start: no chunk is given up
    assert not run.stats.failed_chunks, run.stats.failed_chunks


def test_an_emptied_broker_then_resume_never_collides(
    redis_server: RedisServer, bot: LoopbackBot, workers: Workers, tmp_path: Path
) -> None:
    import redis

    workers.start(2)
    profiles, chatbot = write_project(tmp_path, bot.url, conversations=60)
    out = tmp_path / "run"
    args = [sys.executable, "-m", "sparring", "simulate", str(profiles), "-c", str(chatbot)]
    coordinator = subprocess.Popen([*args, "--out", str(out), "--seed", "7"])
    wait_for(lambda: _stored(out) >= 10, 180, "10 records")
    coordinator.kill()
    coordinator.wait(timeout=30)
    redis.Redis.from_url(redis_server.url).flushall()
    job, run = on_workers()
    resume(out, job=job)
    assert not run.stats.missing and len(stored_once(out)) == 60
    # and a second resume of the finished run finds nothing to do
    job, again = on_workers()
    resume(out, job=job)
    assert again.stats.chunks == 0 and not again.stats.missing


def test_ctrl_c_stops_the_coordinator_at_once_and_resume_finishes(
    redis_server: RedisServer, bot: LoopbackBot, workers: Workers, tmp_path: Path
) -> None:
    workers.start(1)
    profiles, chatbot = write_project(tmp_path, bot.url, conversations=100)
    out = tmp_path / "run"
    args = [sys.executable, "-m", "sparring", "simulate", str(profiles), "-c", str(chatbot)]
    coordinator = subprocess.Popen([*args, "--out", str(out), "--seed", "7"])
    wait_for(lambda: _stored(out) >= 5, 180, "5 records")
    coordinator.send_signal(signal.SIGINT)
    sent = time.monotonic()
    code = coordinator.wait(timeout=60)
    print(f"exit {code} {time.monotonic() - sent:.1f} s after Ctrl-C, {_stored(out)} stored")
    assert _stored(out) < 100  # it did not wait for the chunks out
    progress = json.loads((out / "progress.json").read_text())
    assert progress["status"] == "stopped"

    job, run = on_workers()
    resume(out, job=job)
    assert not run.stats.missing and len(stored_once(out)) == 100


def test_a_second_ctrl_c_leaves_no_process(
    redis_server: RedisServer, bot: LoopbackBot, tmp_path: Path
) -> None:
    """No worker: the coordinator waits for ever; two Ctrl-C end it."""
    profiles, chatbot = write_project(tmp_path, bot.url, conversations=20)
    out = tmp_path / "run"
    args = [sys.executable, "-m", "sparring", "simulate", str(profiles), "-c", str(chatbot)]
    coordinator = subprocess.Popen([*args, "--out", str(out)], start_new_session=True)
    wait_for(lambda: (out / "manifest.json").is_file(), 120, "the manifest")
    time.sleep(2)
    coordinator.send_signal(signal.SIGINT)
    time.sleep(0.2)
    coordinator.send_signal(signal.SIGINT)
    coordinator.wait(timeout=60)
    with pytest.raises(ProcessLookupError):  # nothing of its process group is left
        os.killpg(coordinator.pid, 0)


def test_a_forged_message_with_a_command_is_refused(
    redis_server: RedisServer, workers: Workers, tmp_path: Path
) -> None:
    """Whoever can write to the broker writes a well-formed ``sparring.mutate_one``
    message (and the run's state that makes it current): the worker refuses the serve
    command its operator did not allow, and runs nothing."""
    import redis

    from sparring.distributed import Cluster
    from sparring.distributed._app import MUTATE_ONE, make_app
    from sparring.distributed._messages import sender

    [worker] = workers.start(1)
    marker = tmp_path / "pwned"
    project = tmp_path / "project"
    project.mkdir()
    client = redis.Redis.from_url(redis_server.url)
    client.set("sparring:run:forged:session", "s1")
    client.hset("sparring:run:forged:owner", "s1/m1", "t1")
    settings = {
        "project": str(project),
        "kind": "taskyto",
        "profiles": [str(project)],
        "rules": [str(project)],
        "serve_command": ["sh", "-c", f"touch {marker}"],
    }
    payload = {
        "run": "forged",
        "session": "s1",
        "token": "t1",
        "mutant": "m1",
        "settings": settings,
        "false_positives": [],
        "max_attempts": 3,
        "files": {},
        **sender(),
    }
    make_app(Cluster.from_env()).send_task(MUTATE_ONE, args=[payload], queue="sparring")
    wait_for(lambda: "refused a mutant message" in worker.log.read_text(), 120, "a refusal")
    time.sleep(1)
    assert not marker.exists()
    assert "settings.serve_command" in worker.log.read_text()
    [raw] = client.lrange("sparring:run:forged:results", 0, -1)  # type: ignore[misc]
    result = json.loads(raw)
    assert result["status"] == "refused" and "serve_command" in result["error"]


def test_a_worker_with_no_copy_of_the_project_runs_the_chunks(
    redis_server: RedisServer, bot: LoopbackBot, tmp_path: Path
) -> None:
    """The worker starts in an empty folder, allowed to read nothing else, after the
    project was moved away: it runs every chunk from the planned specs and the chatbot's
    configuration the coordinator published, with the token of its own environment."""
    import redis

    project = tmp_path / "project"
    profiles, chatbot = write_project(project, bot.url, conversations=20)
    out = tmp_path / "run"
    thread, box, _ = _on_workers(_settings(profiles, chatbot), out)
    client = redis.Redis.from_url(redis_server.url)
    wait_for(lambda: client.keys("sparring:blob:*"), 120, "the published configuration")
    project.rename(tmp_path / "moved-away")
    empty = tmp_path / "elsewhere" / "worker"
    env = {"BOT_TOKEN": TOKEN, "SPARRING_CHUNK_SIZE": CHUNK}
    worker = Worker(empty, redis_server.url, env=env, roots=(empty,)).start()
    try:
        worker.wait_ready()
        thread.join(timeout=300)
    finally:
        worker.stop()
    assert "error" not in box, box.get("error")
    run = box["result"]
    assert not run.stats.missing and len(stored_once(out)) == 20
    assert "refused" not in worker.log.read_text()
    assert sorted(p.name for p in empty.iterdir()) == ["home", "worker.log"]


def test_a_mutate_worker_with_no_copy_of_the_project_judges_the_mutants(
    redis_server: RedisServer, workers: Workers, tmp_path: Path
) -> None:
    """``mutate --broker`` with a worker allowed to read one folder only, holding its own
    copy of the bot's code (``alice_bot.py``) at another path than the coordinator's: the
    project (12 MB of AIML), the profiles and rules come from the run's Redis by digest,
    the code from the worker's folder by digest; every mutant is judged on the worker.
    Then a worker whose copy of the code differs by one line refuses, naming the file."""
    pytest.importorskip("aiml")

    code = tmp_path / "operator-code"
    code.mkdir()
    shutil.copyfile(REPO / "examples" / "alice" / "alice_bot.py", code / "my_alice.py")
    [worker] = workers.start(1, roots=(code,))
    settings = alice_mutants(tmp_path / "coordinator", 2)
    result = mutate_on_workers(settings, tmp_path / "job")
    assert len(result.mutants) == 2
    assert all(m.status != "error" for m in result.mutants), [m.reason for m in result.mutants]
    assert all(any("ran on a worker" in n for n in m.notes) for m in result.mutants)
    assert "refused" not in worker.log.read_text()
    worker.stop()

    with (code / "my_alice.py").open("a") as changed:
        changed.write("\n# one changed line\n")
    [other] = workers.start(1, roots=(code,))
    again = mutate_on_workers(settings.model_copy(update={"sample": 1}), tmp_path / "job2")
    [mutant] = again.mutants
    assert mutant.status == "error" and "refused by the worker" in (mutant.reason or "")
    assert "settings.project (alice_bot.py): code (digest" in (mutant.reason or "")
    assert "refused a mutant message: settings.project (alice_bot.py)" in other.log.read_text()


def test_a_worker_on_other_code_refuses_with_a_located_error(
    redis_server: RedisServer,
    bot: LoopbackBot,
    workers: Workers,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A worker whose sparring differs by one line from the coordinator's refuses every
    chunk, naming both code digests; the run ends incomplete instead of planning or
    running anything differently."""
    import sparring

    monkeypatch.setenv("SPARRING_MAX_ATTEMPTS", "2")
    other = tmp_path / "other-code"
    package = Path(sparring.__file__).resolve().parent
    shutil.copytree(package, other / "sparring", ignore=shutil.ignore_patterns("__pycache__"))
    with (other / "sparring" / "simulate" / "_agenda.py").open("a") as changed:
        changed.write("\n# one changed line\n")
    [worker] = workers.start(1, env={"PYTHONPATH": str(other)})
    profiles, chatbot = write_project(tmp_path, bot.url, conversations=10)
    job, run = on_workers()
    start(job, _settings(profiles, chatbot), tmp_path / "run")
    assert run.stats.missing == 10 and _stored(tmp_path / "run") == 0
    errors = {f.error for f in run.stats.failed_chunks}
    assert len(run.stats.failed_chunks) == 2
    assert all(e.startswith("refused by the worker: sparring's code differs") for e in errors)
    assert "refused a chunk message: sparring's code differs" in worker.log.read_text()


def test_operators_are_told_when_no_worker_listens_and_when_one_comes(
    redis_server: RedisServer,
    bot: LoopbackBot,
    workers: Workers,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("SPARRING_QUEUE", "lonely")
    caplog.set_level("WARNING", logger="sparring.distributed")
    started = time.monotonic()
    thread, box, _ = _coordinate(tmp_path, bot, 10)
    words = "waiting for workers on queue lonely: none connected"
    wait_for(lambda: words in caplog.text, 60, "the waiting message")
    print(f"'{words}' after {time.monotonic() - started:.1f} s")
    workers.start(2, queue="lonely")
    thread.join(timeout=300)
    assert "error" not in box, box.get("error")
    assert not box["result"].stats.missing
    assert re.search(r"[12] worker\(s\) on queue lonely: sparring-", caplog.text), caplog.text


def test_two_workers_on_one_host_have_their_own_names_and_processes(
    redis_server: RedisServer, workers: Workers
) -> None:
    from sparring.distributed import Cluster
    from sparring.distributed._app import make_app
    from sparring.distributed._watch import WorkerWatch

    pair = workers.start(2, concurrency=12)  # chunks of 5: 3 chunks at once
    names = WorkerWatch(make_app(Cluster.from_env()), "sparring", timeout=3).workers()
    assert len(names) == 2 and all(n.startswith("sparring-") for n in names)
    assert all("concurrency: 3 (prefork)" in w.log.read_text() for w in pair)


def _sparring(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sparring", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def test_an_unreachable_broker_or_a_wrong_password_is_one_line(
    bot: LoopbackBot, tmp_path: Path
) -> None:
    profiles, chatbot = write_project(tmp_path, bot.url, conversations=2)
    nowhere = f"redis://127.0.0.1:{free_port()}/0"
    simulate = ["simulate", str(profiles), "-c", str(chatbot), "--out", str(tmp_path / "r")]
    for args in ([*simulate, "--broker", nowhere], ["worker", "--broker", nowhere]):
        done = _sparring(*args)
        assert done.returncode == 2, done.stderr
        assert f"cannot reach the broker at {nowhere}" in done.stderr
        assert "Traceback" not in done.stderr
    locked = RedisServer(tmp_path / "locked", extra=("--requirepass", "right-horse")).start()
    try:
        wrong = f"redis://:wrong-battery@127.0.0.1:{locked.port}/0"
        done = _sparring(*simulate, "--broker", wrong, "--out", str(tmp_path / "r2"))
    finally:
        locked.stop()
    assert done.returncode == 2 and "refused the credentials" in done.stderr, done.stderr
    assert "wrong-battery" not in done.stderr and "Traceback" not in done.stderr


def test_in_process_ignores_an_exported_broker(bot: LoopbackBot, tmp_path: Path) -> None:
    profiles, chatbot = write_project(tmp_path, bot.url, conversations=3)
    out = tmp_path / "run"
    env = {"SPARRING_BROKER_URL": f"redis://127.0.0.1:{free_port()}/0", "BOT_TOKEN": TOKEN}
    done = _sparring(
        "simulate", str(profiles), "-c", str(chatbot), "--out", str(out), "--in-process", env=env
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["conversations"] == 3 and "distributed" not in summary
