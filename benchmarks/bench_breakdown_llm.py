"""LLM breakdown detection: tokens and cost per chatbot turn, and the concurrency speed-up.

A run of 20 conversations × 10 chatbot turns (200 judged turns, one turn in ten an empty
reply or a crash — labelled without a call) is evaluated by ``ChatCheckerDetector`` through
the ``evaluate`` job with a ``scripted`` model whose replies are ~80 words of reasoning (a
realistic judgement) and which sleeps ``--latency`` seconds per call. Tokens are the
scripted provider's whitespace words (a real tokenizer counts ~1.3× more); cost is priced
at ``--input-price``/``--output-price`` US dollars per million tokens (default:
gpt-4o-mini's list prices). Timed once with the model's concurrency at 1 and conversations
one at a time (sequential), then with ``--concurrency`` calls in flight.

    python benchmarks/bench_breakdown_llm.py [--conversations 20] [--turns 10]
        [--latency 0.2] [--concurrency 16] [--input-price 0.15] [--output-price 0.6]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sparring.conversations import (
    ConversationError,
    ConversationRecord,
    RunManifest,
    RunStore,
    Turn,
)
from sparring.evaluate._job import EvaluateJob, EvaluateSettings
from sparring.llm import ScriptedModel
from sparring.runner import start_async

REASONING = (
    "The user asked for the price of a large margherita and whether delivery to the city "
    "centre is possible tonight. The chatbot answers the delivery question but ignores the "
    "price, and asks again for the pizza size although the user already said large two "
    "turns earlier. The user can still continue, but has to repeat information and ask "
    "again, which disrupts the flow of the order noticeably."
)


def judge(messages: list[dict[str, str]]) -> dict[str, Any]:
    """A realistic ChatChecker judgement (~80 words), a breakdown one call in three."""
    breakdown = len(messages[-1]["content"]) % 3 == 0
    return {
        "reasoning": REASONING,
        "score": 0.3 if breakdown else 0.85,
        "decision": "breakdown" if breakdown else "no_breakdown",
        "breakdown_types": ["ignore question", "redundancy"] if breakdown else [],
    }


def make_run(path: Path, conversations: int, turns: int) -> None:
    manifest = RunManifest(
        run_id=path.name,
        created_at=datetime.now(UTC),
        sparring_version="bench",
        chatbot={
            "info": {"description": "Takes pizza orders for delivery.", "type": "task-oriented"}
        },
    )
    store = RunStore.create(path, manifest)
    for c in range(conversations):
        history: list[Turn] = []
        for t in range(turns):
            history.append(
                Turn(
                    role="user",
                    text=f"I would like {t + 1} large pizzas to {c} Main Street, please.",
                )
            )
            reply = (
                ""
                if (c + t) % 10 == 9
                else f"Sure, {t + 1} large pizzas cost {12 * (t + 1)} dollars. Anything else?"
            )
            history.append(Turn(role="assistant", text=reply, messages=[reply] if reply else []))
        errors = (
            [ConversationError(code=500, message="empty reply", turn=len(history) - 1)]
            if history[-1].text == ""
            else []
        )
        store.write(
            ConversationRecord(
                id=f"order/{c}", profile=f"persona-{c % 4}", turns=history, errors=errors
            )
        )


async def timed(run: Path, latency: float, concurrency: int, sequential: bool) -> tuple[float, Any]:
    model = ScriptedModel(
        judge, latency=latency, concurrency=concurrency, name=f"scripted-{concurrency}"
    )
    settings = EvaluateSettings(
        run=run, model="scripted", ratings=False, concurrency=1 if sequential else 8
    )
    started = time.perf_counter()
    result = (await start_async(EvaluateJob(model), settings, report=False)).result
    return time.perf_counter() - started, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=20)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--input-price", type=float, default=0.15)
    parser.add_argument("--output-price", type=float, default=0.6)
    args = parser.parse_args()
    figures = {}
    for label, concurrency, sequential in (
        ("sequential", 1, True),
        ("concurrent", args.concurrency, False),
    ):
        with tempfile.TemporaryDirectory() as folder:
            run = Path(folder) / "run"
            make_run(run, args.conversations, args.turns)
            seconds, result = asyncio.run(timed(run, args.latency, concurrency, sequential))
            figures[label] = seconds
    evaluation = result.breakdowns["chatchecker"]
    judged = [t for c in evaluation.conversations for t in c.turns]
    called = [t for t in judged if t.usage is not None]
    usage = evaluation.usage
    cost = (
        usage.prompt_tokens * args.input_price + usage.completion_tokens * args.output_price
    ) / 1e6
    print(
        f"chatbot turns judged: {len(judged)} ({len(judged) - len(called)} crashes without a call)"
    )
    print(f"model calls: {usage.calls}")
    print(f"prompt tokens per call: {usage.prompt_tokens / usage.calls:.0f} (whitespace words)")
    print(f"completion tokens per call: {usage.completion_tokens / usage.calls:.0f}")
    print(
        f"cost per judged turn: US${cost / len(judged):.6f} (US${cost:.4f} in all, "
        f"at ${args.input_price}/${args.output_price} per M tokens)"
    )
    speed_up = figures["sequential"] / figures["concurrent"]
    print(
        f"sequential: {figures['sequential']:.2f} s; concurrent ({args.concurrency} calls): "
        f"{figures['concurrent']:.2f} s; speed-up ×{speed_up:.1f}"
    )
    found = result.statistics.run.breakdowns
    print(f"breakdowns: {found.breakdowns if found else 0} (crashes included)")


if __name__ == "__main__":
    main()
