"""Processes for the distributed tests: a Redis server, a loopback chatbot, workers.

Each is a real process on loopback: ``redis-server`` (Debian's; the tests skip where it is
missing), the chatbot of ``distributed_bot.py`` and ``sparring worker`` processes, each
worker in its own working directory with its own ``HOME`` and session (so a SIGKILL of
its group takes the pool processes too, as when a machine is lost).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from integration_support import free_port

HERE = Path(__file__).resolve().parent


def _wait(condition: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} not ready after {timeout:.0f} s")
        time.sleep(0.1)


class RedisServer:
    """``redis-server`` on a free loopback port; ``appendonly`` keeps the data over a
    restart (as a broker in production should)."""

    def __init__(
        self, folder: Path, *, appendonly: bool = False, extra: tuple[str, ...] = ()
    ) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.skip("redis-server is not installed (Debian: apt-get install redis-server)")
        self.binary = binary
        self.folder = folder
        self.port = free_port()
        self.appendonly = appendonly
        self.extra = extra
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        self.folder.mkdir(parents=True, exist_ok=True)
        args = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        args += ["--dir", str(self.folder), "--daemonize", "no", "--maxmemory-policy", "noeviction"]
        args += ["--appendonly", "yes" if self.appendonly else "no", *self.extra]
        log = (self.folder / "redis.log").open("ab")
        self.process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        import redis

        client = redis.Redis.from_url(self.url)

        def answers() -> bool:
            try:
                return bool(client.ping())
            except redis.AuthenticationError:
                return True  # a password is required: it answers
            except redis.ConnectionError:
                return False

        _wait(answers, 30, "redis-server")
        return self

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()  # SIGTERM: Redis writes its append-only file and exits
            self.process.wait(timeout=30)
        self.process = None


class LoopbackBot:
    """``distributed_bot.py`` on a free port: answers after ``latency`` seconds, logs
    every request (``requests()``)."""

    def __init__(self, folder: Path, latency: float, token: str | None = None) -> None:
        self.port = free_port()
        self.log = folder / f"bot-{self.port}.jsonl"
        self.latency = latency
        self.token = token
        self.process: subprocess.Popen[bytes] | None = None
        folder.mkdir(parents=True, exist_ok=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> LoopbackBot:
        args = [sys.executable, str(HERE / "distributed_bot.py"), str(self.port)]
        args += [str(self.latency), str(self.log), *([self.token] if self.token else [])]
        self.process = subprocess.Popen(args)
        import httpx

        def answers() -> bool:
            try:
                return httpx.get(self.url, timeout=1).status_code == 200
            except httpx.HTTPError:
                return False

        _wait(answers, 60, "the loopback bot")
        return self

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=30)

    def requests(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines() if line]

    def senders(self) -> set[str]:
        """The conversations the bot saw (one sender id per conversation opened)."""
        return {r["sender"] for r in self.requests()}


class Worker:
    """``sparring worker`` in its own folder, ``HOME`` and process group, allowed to read
    the files under ``roots`` (default the folder's parent); ``extra`` arguments."""

    def __init__(
        self,
        folder: Path,
        broker: str,
        *,
        concurrency: int = 10,
        env: Mapping[str, str] | None = None,
        queue: str | None = None,
        roots: tuple[Path, ...] = (),
        extra: tuple[str, ...] = (),
    ) -> None:
        self.folder = folder
        self.roots = roots or (folder.parent,)
        self.extra = extra
        self.broker = broker
        self.concurrency = concurrency
        self.env = dict(env or {})
        self.queue = queue
        self.process: subprocess.Popen[bytes] | None = None
        self.log = folder / "worker.log"

    def start(self) -> Worker:
        home = self.folder / "home"
        home.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "HOME": str(home), **self.env}
        args = [sys.executable, "-m", "sparring", "worker", "--broker", self.broker]
        args += ["--concurrency", str(self.concurrency)]
        args += ["--queues", self.queue] if self.queue else []
        args += [a for root in self.roots for a in ("--allow-root", str(root))]
        args += list(self.extra)
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                args,
                cwd=self.folder,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        return self

    def wait_ready(self, timeout: float = 180) -> Worker:
        def ready() -> bool:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(f"worker exited: {self.log.read_text()[-3000:]}")
            return self.log.exists() and " ready." in self.log.read_text()

        _wait(ready, timeout, "sparring worker")
        return self

    def pool(self) -> list[int]:
        """The process ids of the worker's pool processes (its children)."""
        assert self.process is not None
        children = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rpartition(")")[2].split()
            except OSError:
                continue  # ended meanwhile
            if int(fields[1]) == self.process.pid:
                children.append(int(stat.parent.name))
        return children

    def kill(self) -> None:
        """SIGKILL the worker and its pool processes (a machine lost)."""
        if self.process is not None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=30)


PROFILE = """\
test_name: {name}
llm:
  model: gpt-4o-mini
user:
  language: English
  role: a customer who wants to order a pizza and a drink
  context:
    - personality: impatient
  goals:
    - "I would like to order a pizza"
    - size:
        function: random()
        type: string
        data: [small, medium, large]
    - drink:
        function: random()
        type: string
        data: [coke, water, sprite]
chatbot:
  is_starter: false
  fallback: "Sorry, I did not understand."
conversation:
  number: {number}
  goal_style:
    steps: {steps}
  interaction_style:
    - single question
"""


def write_project(
    folder: Path,
    bot_url: str,
    *,
    conversations: int,
    steps: int = 4,
    extra_params: str = "",
) -> tuple[Path, Path]:
    """A test project: ``profiles/order.yaml`` (``conversations`` conversations of
    ``steps`` user turns) and ``chatbot.yaml`` for the loopback bot (Rasa REST, the
    token from ``$BOT_TOKEN`` when the bot wants one). Returns (profiles, chatbot.yaml)."""
    profiles = folder / "profiles"
    profiles.mkdir(parents=True, exist_ok=True)
    profile = PROFILE.format(name="order", number=conversations, steps=steps)
    (profiles / "order.yaml").write_text(profile)
    chatbot = folder / "chatbot.yaml"
    chatbot.write_text(
        "connector: rasa\n"
        "params:\n"
        f"  url: {bot_url}\n"
        "  timeout: 10\n"
        "  headers:\n"
        '    Authorization: "Bearer ${BOT_TOKEN}"\n'
        f"{extra_params}"
        "info:\n"
        '  fallback: "Sorry, I did not understand."\n'
    )
    return profiles, chatbot


def essence(record: Any) -> tuple[Any, ...]:
    """What must be equal between two runs of the same plan against a deterministic bot:
    plan, variables, seed, every turn's role and text, failures, why it ended."""
    return (
        record.id,
        record.seed,
        json.dumps(record.variables, sort_keys=True),
        tuple((t.role, t.text) for t in record.turns),
        tuple(e.code for e in record.errors),
        record.finish_reason,
    )


def stored_once(run: Path) -> list[Any]:
    """The run's records, asserting each planned conversation is stored exactly once."""
    from sparring.conversations import RunStore

    store = RunStore.open(run)
    records = list(store.iter_records())
    ids = [r.id for r in records]
    assert len(ids) == len(set(ids))
    assert sorted(ids) == sorted(store.manifest.planned)
    return records


def in_thread(call: Any) -> tuple[threading.Thread, dict[str, Any]]:
    """Run ``call()`` in a daemon thread; its ``result`` or ``error`` lands in the box."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = call()
        except BaseException as exc:  # the test reports it
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread, box


def wait_for(condition: Any, timeout: float, what: str = "condition") -> None:
    """Poll ``condition`` every 0.1 s; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def alice_mutants(folder: Path, sample: int, **options: Any) -> Any:
    """``MutateSettings`` for ``sample`` mutants of ALICE (``examples/alice``, made into a
    project in ``folder / "alice-project"``) against the capitals profile and rules,
    seed 5, exercised categories only; ``options`` override settings."""
    from sparring.mutation import MutateSettings

    alice = HERE.parents[1] / "examples" / "alice"
    project = folder / "alice-project"
    made = subprocess.run(
        [sys.executable, str(alice / "alice_bot.py"), "project", str(project)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert made.returncode == 0, made.stderr
    return MutateSettings(
        project=project,
        kind="aiml",
        profiles=[alice / "profiles" / "capitals.yaml"],
        rules=[alice / "rules" / "capitals.yaml", alice / "rules" / "never_empty.yaml"],
        sample=sample,
        **{"seed": 5, "exercised_only": True, **options},
    )


def on_workers(send: Any = None) -> tuple[Any, Any]:
    """The simulate job with its conversations on the workers of ``$SPARRING_BROKER_URL``
    (run it with ``sparring.runner.start``/``resume``, as ``sparring simulate --broker``
    does) and its ``RemoteSimulate``, whose ``stats`` say how the distribution went;
    ``send`` replaces how a chunk is enqueued."""
    from sparring.distributed import Cluster, RemoteSimulate
    from sparring.simulate import SimulateJob

    remote = RemoteSimulate(Cluster.from_env(), send)
    return SimulateJob(remote=remote), remote


def mutate_on_workers(settings: Any, out: Path) -> Any:
    """The mutate job with one mutant per task on the workers of ``$SPARRING_BROKER_URL``,
    run through the runner as ``sparring mutate --broker`` does; its ``MutationResult``."""
    from sparring.distributed import Cluster, remote_mutants
    from sparring.mutation import MutateJob
    from sparring.runner import start

    remote = remote_mutants(Cluster.from_env(), Path(out))
    return start(MutateJob(run_one=remote), settings, out, report=False).result
