"""Long replies cost the user simulator time linear in their length, never a stall (issue
36, defect 1): ``simulate`` against a local Python bot that answers 100-byte, 1 KB, 8 KB
and 64 KB replies of plain words ending in a question, 100 conversations at concurrency
20; wall time and the CPU seconds of the process. Target: each long-reply run within 1.5×
of the 100-byte run's wall time, and no conversation recorded as the bot's timeout (before
the fix, 8 KB replies gave "5 of 6 conversations got no answer" and a 480 KB reply 0
records in 300 s).

Measured 2026-11-28 on the shared 2-core machine (load 7-11), every run 100 records and
0 timeouts:

- before the bounded analyses: 1 KB 1.11x, 8 KB 2.08x, 64 KB 7.01x the 100-byte run;
- after the runner's analyses moved off the event loop and read the reply's ends
  (``sparring._window``), the variable matching indexed and the agenda user's reading
  bounded: 100 B 7.9 s, 1 KB 7.4 s (0.95x), 8 KB 10.2 s (1.29x), 64 KB 19.0 s (2.42x).
  The conversation loop itself now takes 1.4 s of a 30-conversation 64 KB run; what is
  left grows with the text written and shown (records, redaction, the report).

Profiled then (py-spy, 40 conversations of 64 KB replies: 15 MB of records and a 7.7 MB
report): the redaction pass over everything written took 4.0 s (three whole-text regex
scans), the repeated-reply check normalised both 64 KB replies at every turn, the reply
guard searched every reply twice for lone surrogates. Now redaction tries its patterns
only near ``://``, ``=`` and ``Bearer``/``Basic``/``Token`` (0.30 s for the same 23 MB),
equal replies are equal without normalising, ASCII text has no surrogate. Same machine,
load 19, 60 conversations, runs interleaved, CPU seconds of the ``simulate`` process
(the wall time swung ±50 % with the load):

- main at 788f037: 100 B 2.1 s, 64 KB 5.4 s and 5.5 s (2.57×);
- after: 100 B 2.5 s, 64 KB 3.5 s and 3.6 s (1.41× and 1.47×); wall 1.13× and 1.65×.

The whole bench after these changes (main at 5f25e79, 100 conversations):

- load 7-9: 100 B 6.9 s; 1 KB 5.9 s (0.85×); 8 KB 7.8 s (1.12×); 64 KB 9.2 s (1.33×);
  CPU 2.5 s, 2.6 s (1.04×), 3.5 s (1.39×), 4.3 s (1.69×);
- load 12-14 (a test run beside it): 0.99×, 1.47×, 1.53× wall; CPU 1.10×, 1.53×, 1.78×.

What a 64 KB run still spends beyond a 100 B one is spread thin (py-spy, 40
conversations): the report's 19 MB page, the records' JSON, the fallback check and the
dialogue acts on each reply's ends, each 1-2 % of the samples.

    python benchmarks/bench_long_replies.py [--conversations 100] [--concurrency 20]
                                            [--sizes 100,1000,8000,64000]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOT = ROOT / "tests" / "hostile"
PROFILE = """\
test_name: long
user:
  language: English
  role: You ask a chatbot for help.
  context: [you are polite]
  goals: [Hello, What can you do?]
chatbot:
  is_starter: false
  fallback: "I do not understand."
  output: []
conversation:
  number: {number}
  goal_style: {{steps: 3}}
  interaction_style: [single question]
"""


def run(size: int, conversations: int, concurrency: int) -> tuple[float, float, int, int]:
    """Wall seconds, CPU seconds (user + system), records and timeouts of one ``simulate``
    run with ``size``-character replies."""
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        (work / "profiles").mkdir()
        (work / "profiles" / "long.yaml").write_text(PROFILE.format(number=conversations))
        (work / "chatbot.yaml").write_text(
            f"connector: python\nparams:\n  target: hostile_bot:respond\n  path: {BOT}\n"
            "  timeout: 3\n"
        )
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "HOSTILE": "long"}
        env["HOSTILE_CHARS"] = str(size)
        command = [sys.executable, "-m", "sparring", "simulate", "profiles", "-c",
                   "chatbot.yaml", "-o", "out", "--concurrency", str(concurrency)]  # fmt: skip
        started, cpu = time.perf_counter(), _children_cpu()
        subprocess.run(command, cwd=work, env=env, capture_output=True, check=False)
        wall, cpu = time.perf_counter() - started, _children_cpu() - cpu
        records = [json.loads(f.read_text()) for f in (work / "out").rglob("conversations/*.json")]
        timeouts = sum(
            1 for r in records for e in r.get("errors", []) if e.get("cause") == "timeout"
        )
        return wall, cpu, len(records), timeouts


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--sizes", default="100,1000,8000,64000")
    args = parser.parse_args()
    base: tuple[float, float] | None = None
    for size in (int(s) for s in args.sizes.split(",")):
        wall, cpu, records, timeouts = run(size, args.conversations, args.concurrency)
        base = base or (wall, cpu)
        print(f"{size:>7,} chars: {wall:6.1f} s ({wall / base[0]:4.2f}× the first), "
              f"CPU {cpu:6.1f} s ({cpu / base[1]:4.2f}×), {records} records, "
              f"{timeouts} timeouts", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
