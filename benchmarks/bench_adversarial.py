"""Adversarial threads run concurrently (issue 14, "Performance").

Ten weaknesses × three rounds against a local python bot (a few milliseconds per reply),
with a ``scripted`` model that sleeps ``--latency`` seconds per call and plays the
attacker, the simulated user (three messages, then it ends) and the judge (every criterion
5/5, so each thread's difficulty keeps climbing, 5.5 → 7.93 → 8.96 → 9.31, and never
converges early). Each test makes 6 model calls (attacker 1, user 4, judge 1); the run one
more for the analysis. Timed twice: threads one at a time (``--concurrency 1``, the
sequential figure) and all at once. Target: the concurrent run in at most 1/5 of the
sequential time. Prints model calls, tokens and cost (US dollars) per weakness.

    python benchmarks/bench_adversarial.py [--weaknesses 10] [--rounds 3] [--latency 0.05]
                                           [--concurrency 10] [--cost 0.0004]
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
from pathlib import Path

import yaml

from sparring.adversarial import (
    ANALYST_ROLE,
    ATTACKER_ROLE,
    JUDGE_ROLE,
    USER_ROLE,
    AdversarialResult,
    AdversarialTestJob,
    AdversarialTestSettings,
)
from sparring.llm import ScriptedModel
from sparring.runner import start

BOT = """\
import time


class Bot:
    turns = 0

    def respond(self, text):
        time.sleep(0.002)
        self.turns += 1
        return f"Which size would you like? ({self.turns})" if "pizza" in text.lower() else "Sorry?"
"""


def responder(messages: list[dict[str, str]]) -> object:
    """Attacker, user, judge and analyst by the system prompt's first words."""
    system = messages[0]["content"]
    if system.startswith(ATTACKER_ROLE):
        weakness = re.search(r"Weakness ([\w-]+):", messages[1]["content"])
        name = weakness.group(1) if weakness else "?"
        return {"persona": f"A tester of {name}", "goal": "Order an impossible pizza",
                "tone": "pushy", "criteria": ["Says what it cannot do."]}  # fmt: skip
    if system.startswith(USER_ROLE):
        said = sum(m["role"] == "assistant" for m in messages)
        return {"message": "", "end": True} if said >= 3 else {"message": "A pizza, now."}
    if system.startswith(JUDGE_ROLE):
        count = len(re.findall(r"^\d+\. ", messages[1]["content"], flags=re.MULTILINE))
        return {"scores": [{"criterion": n, "score": 5, "reasoning": "fine"}
                           for n in range(1, count + 1)], "observations": ["Polite."]}  # fmt: skip
    if system.startswith(ANALYST_ROLE):
        return {"executive_summary": "Fine.", "patterns": [], "recommendations": []}
    raise AssertionError(system[:60])


def inputs(folder: Path, weaknesses: int) -> tuple[Path, Path]:
    (folder / "bench_bot.py").write_text(BOT, encoding="utf-8")
    chatbot = folder / "chatbot.yaml"
    chatbot.write_text(yaml.safe_dump({
        "connector": "python",
        "params": {"target": "bench_bot:Bot", "path": str(folder), "timeout": 10},
        "info": {"name": "bench bot", "description": "Takes pizza orders."},
    }), encoding="utf-8")  # fmt: skip
    path = folder / "weaknesses.yaml"
    path.write_text(yaml.safe_dump({"version": 1, "weaknesses": [
        {"id": f"weakness-{n}", "title": f"Weakness {n}", "description": "Made up."}
        for n in range(weaknesses)
    ]}), encoding="utf-8")  # fmt: skip
    return chatbot, path


def timed(
    weaknesses: int, rounds: int, latency: float, concurrency: int, cost: float
) -> tuple[float, AdversarialResult]:
    """Seconds for one run, and its results."""
    model = ScriptedModel(responder, latency=latency, cost_per_call=cost, concurrency=64)
    with tempfile.TemporaryDirectory() as folder:
        chatbot, path = inputs(Path(folder), weaknesses)
        settings = AdversarialTestSettings(
            chatbot=chatbot, weaknesses=path, model="scripted", rounds=rounds,
            concurrency=concurrency,
        )  # fmt: skip
        started = time.perf_counter()
        run = start(
            AdversarialTestJob(model=model), settings, Path(folder) / "run", report=False
        ).result
        return time.perf_counter() - started, run.result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--weaknesses", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per model call")
    parser.add_argument("--concurrency", type=int, default=10)
    parser.add_argument("--cost", type=float, default=0.0004, help="US dollars per model call")
    args = parser.parse_args()
    sequential, _ = timed(args.weaknesses, args.rounds, args.latency, 1, args.cost)
    concurrent, result = timed(
        args.weaknesses, args.rounds, args.latency, args.concurrency, args.cost
    )
    tests = len(result.tests)
    print(f"{args.weaknesses} weaknesses x {args.rounds} rounds = {tests} tests, "
          f"{args.latency * 1000:.0f} ms per model call")  # fmt: skip
    print(f"sequential (concurrency 1): {sequential:.2f} s")
    print(f"concurrent (concurrency {args.concurrency}): {concurrent:.2f} s "
          f"= 1/{sequential / concurrent:.1f} of sequential (target: at most 1/5)")  # fmt: skip
    print(f"{'weakness':<14} {'tests':>5} {'calls':>6} {'tokens':>8} {'cost US$':>9}  difficulty")
    for weakness in result.weaknesses:
        usage = result.usage_of(weakness.id)
        trajectory = " -> ".join(f"{d:.2f}" for d in result.trajectory(weakness.id))
        print(f"{weakness.id:<14} {len(result.tests_of(weakness.id)):>5} {usage.calls:>6} "
              f"{usage.prompt_tokens + usage.completion_tokens:>8} {usage.cost:>9.4f}  "
              f"{trajectory}")  # fmt: skip
    total = result.usage_of()
    print(f"total: {total.calls} calls, {total.prompt_tokens + total.completion_tokens} tokens, "
          f"US$ {total.cost:.4f} (+ analysis: {result.analysis_usage.calls} call)")  # fmt: skip
    if concurrent * 5 > sequential:
        raise SystemExit("slower than the target (1/5 of the sequential time)")


if __name__ == "__main__":
    main()
