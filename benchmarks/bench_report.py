"""Benchmark of ``sparring report`` (issue: "the report of a 2,000-conversation run must
render in under 5 s and stay usable").

Run from the project root::

    PYTHONPATH=src python benchmarks/bench_report.py             # 2,000 conversations
    PYTHONPATH=src python benchmarks/bench_report.py --sizes 200,2000,5000 --no-browser

A run is synthesised in a temporary folder: ``n`` conversations of 10 turns (5 user, 5
chatbot, with buttons and latencies), one in ten with a generic failure (504 or 1001),
model usage on every conversation, checked with two rules (one failing on ~5% of the
conversations) through ``sparring.check``; building and checking it is not timed.

Timed: ``write_report(run)`` (reading the records and verdicts, every section, the two
plots, writing the file): the first call in the process (with the matplotlib and Jinja
imports and template compilation) and the best of ``--repeat`` further calls. Reported:
the file size and, where Debian's ``chromium`` is present, the wall time of a headless
Chromium that loads the file and runs its script (``--dump-dom``), minus the time it takes
for an empty page (start-up). Target: ``write_report`` under 5 s at 2,000 conversations.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from datetime import UTC, datetime
from pathlib import Path

from sparring.check import check, load_rules, store_verdicts
from sparring.conversations import (
    ConversationError,
    ConversationRecord,
    ModelUsage,
    OutputValue,
    RunManifest,
    RunStore,
    Turn,
)
from sparring.report import write_report
from sparring.types import Button

RULES = """\
- name: no_apology_loop
  description: The chatbot does not apologise twice in a row
  conversations: 1
  oracle: not chatbot_returns('sorry, sorry')
- name: confirms_order
  description: An order ends with a confirmation
  conversations: 1
  oracle: chatbot_returns('confirmed') or chatbot_returns('sorry')
"""


def record(i: int) -> ConversationRecord:
    """Conversation ``i``: 5 exchanges; every 10th fails generically, every 20th says
    "sorry, sorry"."""
    item = ("pizza", "drink", "salad")[i % 3]
    turns: list[Turn] = []
    for n in range(5):
        turns.append(Turn(role="user", text=f"I would like a {item}, number {n} please"))
        text = f"Sure, one {item}. Which size would you like for item {n}?"
        if n == 4:
            text = "sorry, sorry, I did not get that" if i % 20 == 0 else "Your order is confirmed."
        turns.append(
            Turn(
                role="assistant",
                text=text,
                messages=[text],
                buttons=[Button(text="Small", link="/s"), Button(text="Large")],
                latency=0.1 + (i * 7 + n * 13) % 50 / 40,
            )
        )
    errors = []
    if i % 10 == 5:
        code = 504 if i % 20 == 5 else 1001
        errors.append(ConversationError(code=code, message=f"code {code}", turn=9))
    return ConversationRecord(
        id=f"{item}/{i}",
        profile=item,
        simulator="llm",
        goals=[f"order a {item}"],
        variables={"item": item, "size": ["small", "large"][i % 2]},
        turns=turns,
        outputs={"price": OutputValue(value=10 + i % 7, type="float")},
        errors=errors,
        usage={
            "user_simulator": ModelUsage(
                calls=5, prompt_tokens=900, completion_tokens=80, cost=0.0004 + (i % 9) * 1e-5
            )
        },
        duration=4.2,
    )


def build_run(folder: Path, n: int) -> Path:
    manifest = RunManifest(
        run_id=f"bench-{n}",
        created_at=datetime.now(UTC),
        sparring_version="bench",
        chatbot={"connector": "scripted"},
    )
    store = RunStore.create(folder / f"run-{n}", manifest)
    records = [record(i) for i in range(n)]
    for item in records:
        store.write(item)
    rules = folder / "rules.yaml"
    rules.write_text(textwrap.dedent(RULES), encoding="utf-8")
    store_verdicts(check(load_rules([rules]), records), store.path)
    return store.path


def chromium_load(html: Path, blank: Path) -> float | None:
    """Seconds Chromium takes to load ``html`` and run its script, less an empty page's."""
    binary = shutil.which("chromium")
    if binary is None:
        return None

    def timed(page: Path) -> float:
        with tempfile.TemporaryDirectory() as profile:
            args = [
                binary,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                f"--user-data-dir={profile}",
                "--dump-dom",
                page.as_uri(),
            ]
            start = time.perf_counter()
            subprocess.run(args, capture_output=True, check=True, timeout=120)
            return time.perf_counter() - start

    timed(blank)  # warm the disk cache
    return max(0.0, min(timed(html) for _ in range(3)) - min(timed(blank) for _ in range(3)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000", help="comma-separated conversation counts")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-browser", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        blank = folder / "blank.html"
        blank.write_text("<!DOCTYPE html><title>blank</title>", encoding="utf-8")
        for n in (int(size) for size in args.sizes.split(",")):
            run = build_run(folder, n)
            start = time.perf_counter()
            path = write_report(run)
            first = time.perf_counter() - start
            times = []
            for _ in range(args.repeat):
                start = time.perf_counter()
                write_report(run)
                times.append(time.perf_counter() - start)
            size = path.stat().st_size / 1e6
            line = (
                f"{n:>6} conversations: write_report first {first:.2f} s, best "
                f"{min(times):.2f} s; {size:.1f} MB"
            )
            load = None if args.no_browser else chromium_load(path, blank)
            if load is not None:
                line += f"; Chromium load + script {load:.2f} s"
            print(line, flush=True)
            if n == 2000 and first > 5.0:
                print("FAIL: over 5 s", file=sys.stderr)
                sys.exit(1)


if __name__ == "__main__":
    main()
