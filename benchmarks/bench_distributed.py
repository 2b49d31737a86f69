"""Benchmark of distributed runs (issue 24, "Performance").

Run from the project root (needs Debian's ``redis-server`` and ``pip install ".[celery]"``)::

    PYTHONPATH=src python benchmarks/bench_distributed.py              # all figures
    PYTHONPATH=src python benchmarks/bench_distributed.py --quick      # 200 conversations
    PYTHONPATH=src python benchmarks/bench_distributed.py --skip-mutate

1. Overhead: N conversations (default 2,000) × 5 user turns (the order, then a price
   question: every conversation takes its 5 steps) against a loopback bot that answers
   after 200 ms, total concurrency 40: one in-process run (``start("simulate", …)``, concurrency
   40) vs the same run on 2 ``sparring worker`` processes × 20 (issue 34), each started in
   an empty folder and allowed to read nothing of the project (no copy: the chunks carry
   the planned specs and the chatbot's configuration by digest).
   Target: the distributed run within 1.25× of the in-process time. Workers are started
   (and ready) before the clock starts; the coordinator's probe, planning and summary are
   timed. Then a worker lost: the same run on 2 fresh workers × 20, one of them killed
   (SIGKILL of its process group) 10 s in; the time to finish against the undisturbed
   distributed run (target: under 2×), with the chunks reclaimed and the re-executions,
   and from the kill run's records what the kill cost beyond the halved capacity: the
   longest moment after the kill with nothing running (a lease waited on), when the
   conversations run again started, when the last record ended.
2. The per-conversation figures the sizing in docs/distributed.md is computed from: Redis
   commands per conversation (``INFO stats`` before and after the distributed run), bytes
   of a record as it travels back, the coordinator's record write rate (``RunStore.write``
   of the run's records into a fresh store), and conversations per second per worker slot.
3. Scaling of mutation: 8 ALICE mutants (``examples/alice``, ``--exercised-only``, the
   capitals profile and rules) on 1 worker, then on 2; the original runs in the
   coordinator each time. The workers may read one folder only, holding their own copy of
   ``alice_bot.py``: the project, profiles and rules come by digest (issue 34). Prints
   the job's wall time, the mutants' phase and the reason of any ``error``.

The processes are those of the integration tests (``tests/integration/distributed_support``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "integration"))

from distributed_support import (  # noqa: E402
    LoopbackBot,
    RedisServer,
    Worker,
    alice_mutants,
    write_project,
)

from sparring.conversations import RunStore  # noqa: E402
from sparring.runner import start  # noqa: E402
from sparring.simulate import SimulateJob, SimulateSettings  # noqa: E402

TOKEN = "bench-token"
LATENCY = 0.2
CHUNK = 20


def _workers(
    folder: Path, broker: str, count: int, concurrency: int, roots: tuple[Path, ...]
) -> list[Worker]:
    env = {"BOT_TOKEN": TOKEN, "SPARRING_CHUNK_SIZE": str(CHUNK)}
    started = [
        Worker(folder / f"w{i}", broker, concurrency=concurrency, env=env, roots=roots).start()
        for i in range(count)
    ]
    for worker in started:
        worker.wait_ready(timeout=600)
    return started


def _commands(redis_url: str) -> int:
    import redis

    info = redis.Redis.from_url(redis_url).info("stats")
    return int(info["total_commands_processed"])


def _on_workers(settings: SimulateSettings, out: Path) -> Any:
    """``settings`` run into ``out`` by the job runner with the conversations on the
    workers (``sparring simulate --broker``); how the distribution went."""
    from sparring.distributed import Cluster, RemoteSimulate

    remote = RemoteSimulate(Cluster.from_env())
    start(SimulateJob(remote=remote), settings, out, report=False)
    return remote.stats


def overhead(root: Path, conversations: int) -> dict[str, Any]:
    bot = LoopbackBot(root / "bot", latency=LATENCY, token=TOKEN).start()
    server = RedisServer(root / "redis").start()
    os.environ.update(
        BOT_TOKEN=TOKEN, SPARRING_BROKER_URL=server.url, SPARRING_CHUNK_SIZE=str(CHUNK)
    )
    workers: list[Worker] = []
    try:
        profiles, chatbot = write_project(root, bot.url, conversations=conversations, steps=5)
        profile = profiles / "order.yaml"
        question = '    - "How much does a pizza cost?"\n    - drink:'
        profile.write_text(profile.read_text().replace("    - drink:", question))
        settings = SimulateSettings(profiles=[profiles], chatbot=chatbot, seed=1, concurrency=40)
        started = time.perf_counter()
        local = start(SimulateJob(), settings, root / "local", report=False).result
        local_seconds = time.perf_counter() - started
        assert local.summary.conversations == conversations

        workers = _workers(root / "pair", server.url, 2, 20, (root / "pair",))
        before = _commands(server.url)
        started = time.perf_counter()
        stats = _on_workers(settings, root / "spread")
        spread_seconds = time.perf_counter() - started
        commands = _commands(server.url) - before
        assert not stats.missing and len(RunStore.open(root / "spread")) == conversations
        for worker in workers:
            worker.stop()
        workers = _workers(root / "lost", server.url, 2, 20, (root / "lost",))
        started, began = time.perf_counter(), time.time()
        timer = threading.Timer(10.0, workers[0].kill)
        timer.start()
        lost = _on_workers(settings, root / "lost-run")
        lost_seconds = time.perf_counter() - started
        timer.cancel()
        assert not lost.missing and len(RunStore.open(root / "lost-run")) == conversations
    finally:
        for worker in workers:
            worker.stop()
        server.stop()
        bot.stop()
    records = list(RunStore.open(root / "spread").iter_records())
    sizes = [len(r.model_dump_json()) for r in records]
    fresh = RunStore.create(root / "rewrite", RunStore.open(root / "spread").manifest)
    started = time.perf_counter()
    for record in records:
        fresh.write(record)
    write_seconds = time.perf_counter() - started
    turns = statistics.mean(sum(t.role == "user" for t in r.turns) for r in records)
    return {
        "conversations": conversations,
        "user_turns_mean": round(turns, 2),
        "in_process_seconds": round(local_seconds, 1),
        "distributed_seconds": round(spread_seconds, 1),
        "ratio": round(spread_seconds / local_seconds, 3),
        "redis_commands_per_conversation": round(commands / conversations, 1),
        "record_bytes_mean": int(statistics.mean(sizes)),
        "chunk_result_bytes": int(statistics.mean(sizes) * CHUNK),
        "coordinator_writes_per_second": round(len(records) / write_seconds, 1),
        "conversations_per_second_per_slot": round(conversations / spread_seconds / 40, 3),
        "worker_slots": 40,
        "re_executed": stats.re_executed,
        "one_worker_killed_10s_in_seconds": round(lost_seconds, 1),
        "killed_vs_undisturbed": round(lost_seconds / spread_seconds, 3),
        "killed_reclaimed_chunks": lost.reclaimed,
        "killed_re_executed": lost.re_executed,
        **_after_the_kill(root / "lost-run", began, 10.0, set(lost.re_executed_ids)),
    }


def _after_the_kill(run: Path, began: float, kill_at: float, again: set[str]) -> dict[str, Any]:
    """What the kill cost beyond the halved capacity, from the records' start and end
    times (seconds since the clock started): the longest moment after the kill with no
    conversation running (the survivor idle, waiting on a lease), when the conversations
    run again started, and when the last record ended."""
    records = list(RunStore.open(run).iter_records())
    spans = sorted(
        (r.started_at.timestamp() - began, r.ended_at.timestamp() - began)
        for r in records
        if r.started_at is not None and r.ended_at is not None
    )
    idle, reach = 0.0, kill_at
    for first, last in spans:
        if last >= kill_at:
            idle, reach = max(idle, first - reach), max(reach, last)
    rerun = [
        r.started_at.timestamp() - began
        for r in records
        if r.id in again and r.started_at is not None
    ]
    return {
        "killed_longest_idle_after_the_kill_seconds": round(idle, 2),
        "killed_rerun_started_at_seconds": round(min(rerun), 1) if rerun else None,
        "killed_last_record_at_seconds": round(max(last for _, last in spans), 1),
    }


def mutation(root: Path, mutants: int) -> dict[str, Any]:
    from sparring.distributed import Cluster, remote_mutants
    from sparring.jobs.events import JobEvent, StageChanged
    from sparring.mutation import MutateJob

    settings = alice_mutants(root, mutants)
    code = root / "worker-code"  # the workers' own copy of the bot's code, nothing else
    code.mkdir(exist_ok=True)
    shutil.copyfile(REPO / "examples" / "alice" / "alice_bot.py", code / "alice_bot.py")
    server = RedisServer(root / "redis-mutate").start()
    os.environ["SPARRING_BROKER_URL"] = server.url
    figures: dict[str, Any] = {"mutants": mutants}
    try:
        for count in (1, 2):
            workers = _workers(root / f"mutate-{count}", server.url, count, 1, (code,))
            try:
                marks: dict[str, float] = {}

                def mark(event: JobEvent, marks: dict[str, float] = marks) -> None:
                    if isinstance(event, StageChanged) and event.stage == "mutants":
                        marks.setdefault("sampled", time.perf_counter())

                out = root / f"mutants-{count}"
                run_one = remote_mutants(Cluster.from_env(), out)
                started = time.perf_counter()
                job = MutateJob(run_one=run_one)
                result = start(job, settings, out, on_event=mark, report=False).result
                ended = time.perf_counter()
            finally:
                for worker in workers:
                    worker.stop()
            figures[f"{count}_worker_seconds"] = round(ended - started, 1)
            figures[f"{count}_worker_mutant_phase_seconds"] = round(ended - marks["sampled"], 1)
            figures[f"{count}_worker_kills"] = {m.id: m.status for m in result.mutants}
            figures[f"{count}_worker_errors"] = [m.reason for m in result.mutants if m.reason]
    finally:
        server.stop()
    one, two = figures["1_worker_mutant_phase_seconds"], figures["2_worker_mutant_phase_seconds"]
    figures["speed_up"] = round(one / two, 2)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 conversations, 4 mutants")
    parser.add_argument("--skip-mutate", action="store_true")
    parser.add_argument("--skip-overhead", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-distributed-") as folder:
        root = Path(folder)
        figures: dict[str, Any] = {}
        if not args.skip_overhead:
            figures["overhead"] = overhead(root, 200 if args.quick else 2000)
            print(json.dumps(figures["overhead"], indent=2), flush=True)
        if not args.skip_mutate:
            figures["mutation"] = mutation(root, 4 if args.quick else 8)
            print(json.dumps(figures["mutation"], indent=2), flush=True)


if __name__ == "__main__":
    main()
