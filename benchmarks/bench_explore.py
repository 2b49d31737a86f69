"""Exploration cost and time (issue 10): model calls, tokens and cost per discovered
functionality, and wall time, for the scripted TRACER exploration of the test pizzeria
(``tests/explore/pizza_bot.py`` with the scripted model of
``tests/explore/scripts/pizza_script.py`` plus a profile writer), at a simulated model
latency; and the offline crawl of the same bot.

Independent branch sessions and profile generations run concurrently within
``model.concurrency``: the run at ``--concurrency 1`` is the one-by-one figure the
concurrent run is compared with. Cost is the scripted model's ``--cost-per-call`` (US
dollars), so the cost per functionality is calls × that price.

    python benchmarks/bench_explore.py [--latency 0.2] [--concurrency 8] [--cost-per-call 0.0004]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sparring.explore import ExploreJob, ExploreSettings  # noqa: E402
from sparring.llm import ScriptedModel  # noqa: E402
from sparring.runner import start  # noqa: E402
from tests.explore.conftest import pizza_chatbot_yaml  # noqa: E402
from tests.explore.scripts.pizza_script import pizza_responder  # noqa: E402


def _writer(messages: list[dict[str, str]]) -> Any:
    prompt = messages[1]["content"]
    if "Group these functionalities" in prompt:
        lines = [line for line in prompt.splitlines() if "id: " in line]
        ids = [line.split("id: ", 1)[1].split()[0] for line in lines]
        return {
            "scenarios": [
                {"name": f"Scenario {i}", "role": "you use the pizzeria.", "functionalities": [n]}
                for i, n in enumerate(ids)
            ]
        }
    if "VARIABLES:" in prompt:
        return {"variables": []}
    return {"goals": ["Order a pizza"], "context": ["You are hungry."], "outputs": []}


def _responder(messages: list[dict[str, str]]) -> Any:
    if messages[0]["content"].startswith("sparring explore step:"):
        return pizza_responder(messages)
    return _writer(messages)


def run(latency: float, concurrency: int, cost: float, folder: Path) -> dict[str, Any]:
    """One scripted exploration; its figures."""
    chatbot = pizza_chatbot_yaml(folder, "buttons")
    model = ScriptedModel(_responder, latency=latency, concurrency=concurrency, cost_per_call=cost)
    settings = ExploreSettings(chatbot=chatbot, sessions=4, turns=6)
    started = time.perf_counter()
    result = start(
        ExploreJob(model=model), settings, folder / f"run-{concurrency}", report=False
    ).result
    wall = time.perf_counter() - started
    usage = result.model.usage
    calls = sum(u.calls for u in usage.values())
    requests = len(model.scripted.requests)
    tokens = sum(u.prompt_tokens + u.completion_tokens for u in usage.values())
    found = len(result.model.functionalities)
    return {
        "concurrency": concurrency,
        "functionalities": found,
        "profiles": len(result.profiles),
        "model_calls": requests,
        "exploration_calls": calls,
        "calls_per_functionality": round(requests / found, 2),
        "exploration_tokens_per_functionality": round(tokens / found),
        "cost_per_functionality_usd": round(requests * cost / found, 5),
        "wall_seconds": round(wall, 2),
    }


def offline(folder: Path) -> dict[str, Any]:
    """The offline crawl of the same bot: no model calls."""
    chatbot = pizza_chatbot_yaml(folder, "buttons")
    started = time.perf_counter()
    result = start(
        ExploreJob(),
        ExploreSettings(chatbot=chatbot, sessions=20, turns=10),
        folder / "off",
        report=False,
    ).result
    return {
        "functionalities": len(result.model.functionalities),
        "sessions": result.model.sessions,
        "user_turns": result.model.turns,
        "wall_seconds": round(time.perf_counter() - started, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per model call")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--cost-per-call", type=float, default=0.0004, help="US dollars")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        figures = {
            "latency_seconds": args.latency,
            "sequential": run(args.latency, 1, args.cost_per_call, folder),
            "concurrent": run(args.latency, args.concurrency, args.cost_per_call, folder),
            "offline": offline(folder),
        }
    seq, con = figures["sequential"]["wall_seconds"], figures["concurrent"]["wall_seconds"]
    figures["speedup"] = round(seq / con, 2) if con else None
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
