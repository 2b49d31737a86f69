"""The faults of a real cluster as an operator meets them (issue 34): every process is
one an operator would start — ``redis-server`` (Debian's, on a free loopback port, no
persistence), ``sparring worker`` processes in their own process groups, and the
coordinator as ``sparring simulate … --broker URL`` on the command line.

Run from the project root (needs ``redis-server`` and ``sparring[celery]``)::

    PYTHONPATH=src python benchmarks/bench_distributed_faults.py             # 400 conversations
    PYTHONPATH=src python benchmarks/bench_distributed_faults.py --conversations 200
    PYTHONPATH=src python benchmarks/bench_distributed_faults.py --only kill,ctrl_c

Each run: N conversations × 5 user turns against the loopback bot answering after
200 ms, chunks of 20, 2 workers × 20 conversations at once; the fault strikes 10 s after
the coordinator started. Printed per fault (JSON): the coordinator's exit code and wall
time, the conversations stored and the duplicates (planned ids stored twice: a record is
a file per id, so a duplicate would be a second record of one id in the run's folder),
``summary.json``'s ``distributed`` figures, and the words the operator saw (the last
lines of the coordinator's error output, the workers' refusals).

- ``baseline``: no fault;
- ``kill``: SIGKILL of one worker's process group (its machine lost); the time to finish
  against the baseline;
- ``broker``: Redis stopped 10 s in and started again empty on the same port;
- ``ctrl_c``: SIGINT to the coordinator once a chunk's records are stored; the seconds
  until it exits, then ``sparring simulate --resume RUN`` finishes the run;
- ``other_code``: a worker whose sparring differs by one line (a copy of ``src/sparring``
  on its ``PYTHONPATH``): every chunk refused, named; the run ends incomplete;
- ``forged``: a ``sparring.mutate_one`` message written straight to the broker, with a
  serve command ``sh -c "touch MARKER"``: refused, nothing runs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "integration"))

from distributed_support import LoopbackBot, RedisServer, Worker, write_project  # noqa: E402

TOKEN = "bench-token"
CHUNK = "20"
FAULT_AT = 10.0
FAULTS = ("baseline", "kill", "broker", "ctrl_c", "other_code", "forged")


class Bench:
    """The bot, Redis and project shared by the faults; workers per fault."""

    def __init__(self, root: Path, conversations: int) -> None:
        self.root = root
        self.conversations = conversations
        self.bot = LoopbackBot(root / "bot", latency=0.2, token=TOKEN).start()
        self.redis = RedisServer(root / "redis").start()
        self.profiles, self.chatbot = write_project(
            root / "project", self.bot.url, conversations=conversations, steps=5
        )
        profile = self.profiles / "order.yaml"
        question = '    - "How much does a pizza cost?"\n    - drink:'
        profile.write_text(profile.read_text().replace("    - drink:", question))
        self.env = {
            **os.environ,
            "BOT_TOKEN": TOKEN,
            "SPARRING_CHUNK_SIZE": CHUNK,
            "SPARRING_BROKER_URL": self.redis.url,
        }

    def workers(self, name: str, count: int = 2, env: dict[str, str] | None = None) -> list[Worker]:
        extra = {"BOT_TOKEN": TOKEN, "SPARRING_CHUNK_SIZE": CHUNK, **(env or {})}
        folder = self.root / name
        started = [
            Worker(folder / f"w{i}", self.redis.url, concurrency=20, env=extra).start()
            for i in range(count)
        ]
        for worker in started:
            worker.wait_ready(timeout=600)
        return started

    def coordinator(self, out: Path, *args: str) -> subprocess.Popen[str]:
        command = [sys.executable, "-m", "sparring", "simulate"]
        if not args:
            args = (str(self.profiles), "-c", str(self.chatbot), "--out", str(out), "--seed", "1")
        return subprocess.Popen(
            [*command, *args, "--broker", self.redis.url],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )

    def stop(self) -> None:
        self.redis.stop()
        self.bot.stop()


def _outcome(process: subprocess.Popen[str], started: float, out: Path) -> dict[str, Any]:
    _, err = process.communicate(timeout=1800)
    seconds = time.perf_counter() - started
    return {
        "exit": process.returncode,
        "seconds": round(seconds, 1),
        **_stored(out),
        "said": _said(err),
    }


def _said(err: str) -> dict[str, Any]:
    """The coordinator's error output: its line count, whether it held a traceback, and
    its last lines (the words the operator sees last)."""
    lines = [line.strip() for line in err.splitlines() if line.strip()]
    return {"lines": len(lines), "traceback": "Traceback" in err, "last": lines[-3:]}


def _stored(out: Path) -> dict[str, Any]:
    from sparring.conversations import RunStore

    if not (out / "manifest.json").is_file():
        return {"stored": 0}
    records = list(RunStore.open(out, clean=False).iter_records())
    counts = Counter(r.id for r in records)
    planned = set(RunStore.open(out, clean=False).manifest.planned)
    summary = out / "summary.json"
    distributed = (
        json.loads(summary.read_text()).get("distributed", {}) if summary.is_file() else {}
    )
    distributed.pop("re_executed_ids", None)
    failed = distributed.pop("failed_chunks", [])
    if failed:
        distributed["failed_chunks"] = len(failed)
        distributed["first_failure"] = failed[0]["error"]
    return {
        "planned": len(planned),
        "stored": len(counts),
        "duplicates": sum(n - 1 for n in counts.values()),
        "unplanned": len(set(counts) - planned),
        "distributed": distributed,
    }


def baseline(bench: Bench) -> dict[str, Any]:
    workers = bench.workers("baseline")
    try:
        started = time.perf_counter()
        return _outcome(
            bench.coordinator(bench.root / "baseline-run"), started, bench.root / "baseline-run"
        )
    finally:
        for worker in workers:
            worker.stop()


def kill(bench: Bench) -> dict[str, Any]:
    workers = bench.workers("kill")
    out = bench.root / "kill-run"
    try:
        started = time.perf_counter()
        process = bench.coordinator(out)
        time.sleep(FAULT_AT)
        workers[0].kill()  # SIGKILL of its process group
        return _outcome(process, started, out)
    finally:
        for worker in workers:
            worker.stop()


def broker(bench: Bench) -> dict[str, Any]:
    workers = bench.workers("broker")
    out = bench.root / "broker-run"
    try:
        started = time.perf_counter()
        process = bench.coordinator(out)
        time.sleep(FAULT_AT)
        bench.redis.stop()
        time.sleep(1)
        bench.redis.start()  # empty: no append-only file, no snapshot
        return _outcome(process, started, out)
    finally:
        for worker in workers:
            worker.stop()


def ctrl_c(bench: Bench) -> dict[str, Any]:
    workers = bench.workers("ctrl-c")
    out = bench.root / "ctrl-c-run"
    try:
        process = bench.coordinator(out)
        _wait_stored(out, int(CHUNK))  # a chunk back: Ctrl-C in the middle of the run
        process.send_signal(signal.SIGINT)
        interrupted = time.perf_counter()
        first = _outcome(process, interrupted, out)
        left = _left_behind(process.pid)
        progress = json.loads((out / "progress.json").read_text())["status"]
        started = time.perf_counter()
        resumed = _outcome(bench.coordinator(out, "--resume", str(out)), started, out)
    finally:
        for worker in workers:
            worker.stop()
    return {
        "interrupted": {**first, "seconds_to_exit": first.pop("seconds"), "progress": progress},
        "processes_left": left,
        "resumed": resumed,
    }


def _wait_stored(out: Path, count: int, timeout: float = 600) -> None:
    deadline = time.monotonic() + timeout
    folder = out / "conversations"
    while not folder.is_dir() or sum(1 for _ in folder.iterdir()) < count:
        if time.monotonic() > deadline:
            raise TimeoutError(f"fewer than {count} records after {timeout:.0f} s")
        time.sleep(0.1)


def _left_behind(group: int) -> int:
    """Processes still in the coordinator's process group."""
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return 0
    return sum(1 for stat in Path("/proc").glob("[0-9]*/stat") if _group_of(stat) == group)


def _group_of(stat: Path) -> int:
    try:
        return int(stat.read_text().rpartition(")")[2].split()[2])
    except (OSError, IndexError, ValueError):
        return -1


def other_code(bench: Bench) -> dict[str, Any]:
    import sparring

    other = bench.root / "other-code"
    package = Path(sparring.__file__).resolve().parent
    shutil.copytree(package, other / "sparring", ignore=shutil.ignore_patterns("__pycache__"))
    with (other / "sparring" / "simulate" / "_agenda.py").open("a") as changed:
        changed.write("\n# one changed line\n")
    [worker] = bench.workers("other", 1, env={"PYTHONPATH": str(other)})
    out = bench.root / "other-run"
    try:
        started = time.perf_counter()
        result = _outcome(bench.coordinator(out), started, out)
    finally:
        worker.stop()
    refusals = [line for line in worker.log.read_text().splitlines() if "refused a" in line]
    return {**result, "worker_log": refusals[:1], "refusals": len(refusals)}


def forged(bench: Bench) -> dict[str, Any]:
    import redis

    from sparring.distributed import Cluster
    from sparring.distributed._app import MUTATE_ONE, make_app
    from sparring.distributed._messages import sender

    [worker] = bench.workers("forged", 1)
    marker = bench.root / "pwned"
    client = redis.Redis.from_url(bench.redis.url)
    client.set("sparring:run:forged:session", "s1")
    client.hset("sparring:run:forged:owner", "s1/m1", "t1")
    project = str(bench.root / "project")
    payload = {
        "run": "forged",
        "session": "s1",
        "token": "t1",
        "mutant": "m1",
        "settings": {
            "project": project,
            "kind": "taskyto",
            "profiles": [project],
            "rules": [project],
            "serve_command": ["sh", "-c", f"touch {marker}"],
        },
        "false_positives": [],
        "max_attempts": 3,
        "files": {},
        **sender(),
    }
    sent = time.perf_counter()
    os.environ["SPARRING_BROKER_URL"] = bench.redis.url
    make_app(Cluster.from_env()).send_task(MUTATE_ONE, args=[payload], queue="sparring")
    try:
        while not client.llen("sparring:run:forged:results"):
            if time.perf_counter() - sent > 120:
                raise TimeoutError("no refusal after 120 s")
            time.sleep(0.1)
        answered = time.perf_counter() - sent
        time.sleep(2)
    finally:
        worker.stop()
    [raw] = client.lrange("sparring:run:forged:results", 0, -1)  # type: ignore[misc]
    result = json.loads(raw)
    return {
        "status": result["status"],
        "error": result.get("error"),
        "seconds_to_refuse": round(answered, 1),
        "marker_created": marker.exists(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=400)
    parser.add_argument("--only", default=",".join(FAULTS), help="comma-separated faults")
    options = parser.parse_args()
    wanted = [f for f in options.only.split(",") if f]
    unknown = set(wanted) - set(FAULTS)
    if unknown:
        parser.error(f"unknown faults: {', '.join(sorted(unknown))} (known: {', '.join(FAULTS)})")
    root = Path(tempfile.mkdtemp(prefix="sparring-faults-"))
    bench = Bench(root, options.conversations)
    figures: dict[str, Any] = {"conversations": options.conversations, "load": os.getloadavg()}
    try:
        for fault in wanted:
            figures[fault] = globals()[fault](bench)
            print(json.dumps({fault: figures[fault]}), flush=True)
    finally:
        bench.stop()
        shutil.rmtree(root, ignore_errors=True)
    if "baseline" in figures and "kill" in figures:
        figures["kill_vs_baseline"] = round(
            figures["kill"]["seconds"] / figures["baseline"]["seconds"], 2
        )
    figures["load_after"] = os.getloadavg()
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
