"""Model-backed checks run concurrently (issue 7, item 5).

200 conversations, one rule that calls a model on each (``only_talks_about``), and a
``scripted`` model that sleeps 300 ms per call. Checked one call after another this takes
the sequential sum (200 x 0.3 s = 60 s); ``sparring check`` evaluates each rule's
conversations in ``model.concurrency`` threads whose model calls share one event loop.
Target: under 1/10 of the sequential sum (6 s). A second timing with ``concurrency=1``
shows the sequential figure the target is measured against.

    python benchmarks/bench_check_concurrency.py [--conversations 200] [--latency 0.3]
                                                 [--concurrency 20] [--sequential]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from sparring.check import check, load_rules
from sparring.conversations import ConversationRecord, Turn
from sparring.llm import ScriptedModel

RULE = """\
name: on_topic
description: the bot keeps to pizzas
active: True
conversations: 1
oracle: only_talks_about(['pizza ordering'])
"""


def conversations(n: int) -> list[ConversationRecord]:
    """``n`` short pizza-order conversations, each slightly different."""
    return [
        ConversationRecord(
            id=f"order/{i}",
            profile="order",
            turns=[
                Turn(role="user", text=f"I want {i % 5 + 1} pizzas"),
                Turn(role="assistant", text="Which size?"),
                Turn(role="user", text="Large"),
                Turn(role="assistant", text=f"{i % 5 + 1} large pizzas, {8 * (i % 5 + 1)} $"),
            ],
        )
        for i in range(n)
    ]


def timed(n: int, latency: float, concurrency: int) -> tuple[float, int]:
    """Seconds to check ``n`` conversations, and how many verdicts passed."""
    answer = {"sticks_to_topics": True, "deviating_answers": []}
    model = ScriptedModel(
        lambda _messages: json.dumps(answer), latency=latency, concurrency=concurrency
    )
    with tempfile.TemporaryDirectory() as folder:
        rule_file = Path(folder) / "rule.yaml"
        rule_file.write_text(RULE, encoding="utf-8")
        rules = load_rules([rule_file])
    records = conversations(n)
    started = time.perf_counter()
    report = check(rules, records, model=model)
    elapsed = time.perf_counter() - started
    return elapsed, report.result("on_topic").counts.passed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--conversations", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--sequential", action="store_true", help="also time concurrency=1")
    args = parser.parse_args()
    total = args.conversations * args.latency
    elapsed, passed = timed(args.conversations, args.latency, args.concurrency)
    share = elapsed / total
    print(
        f"{args.conversations} conversations x {args.latency:g} s model latency "
        f"(sequential sum {total:.1f} s), concurrency {args.concurrency}: "
        f"{elapsed:.2f} s = {share:.3f} of the sum; {passed} passed; "
        f"target < 0.1: {'met' if share < 0.1 else 'NOT met'}"
    )
    if args.sequential:
        one, _ = timed(args.conversations, args.latency, 1)
        print(f"concurrency 1: {one:.2f} s")


if __name__ == "__main__":
    main()
