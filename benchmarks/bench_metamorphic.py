"""The metamorphic job's performance (issue 13).

1. Perturbation and offline answerability: 1,000 seed dialogues of 10 rounds, the five
   dialogue-level perturbations (5,000 follow-ups), the offline answerability analysis
   of every seed (``analyse_offline``, spaCy, when the analysers are installed) and the
   verdict of every follow-up round (``DialogueAnalysis.follow_up``). Target: under 30 s.
2. Replay concurrency: follow-ups replayed against a local bot that takes ``--latency``
   seconds per reply; the wall time of the batch against the sequential sum of the bot's
   latencies (the sum of the recorded reply latencies). Target: at most 1/10.

    PYTHONPATH=src python benchmarks/bench_metamorphic.py [--dialogues 1000] [--rounds 10]
        [--replay 40] [--latency 0.05] [--concurrency 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from sparring.conversations import RunStore
from sparring.metamorphic import (
    DIALOGUE_PERTURBATIONS,
    MetamorphicJob,
    MetamorphicSettings,
    make_follow_ups,
)
from sparring.metamorphic._answerability import (
    DialogueAnalysis,
    RoundAnalysis,
    SeedDialogue,
    SeedRound,
)
from sparring.metamorphic._seeds import Seed
from sparring.runner import start_async
from sparring.types import Strategy

SUBJECTS = ["the pizza", "my order", "the delivery", "Anna", "the red bike", "the school"]
VERBS = ["costs", "arrives", "needs", "likes", "has", "leaves"]

BOT = """
import asyncio

class SlowBot:
    async def respond(self, text):
        await asyncio.sleep({latency})
        return "You asked: " + text
"""


def dialogues(count: int, rounds: int, rng: random.Random) -> list[SeedDialogue]:
    """``count`` dialogues of ``rounds`` questions, with pronouns after the first round."""
    out = []
    for d in range(count):
        questions = []
        for r in range(rounds):
            subject = rng.choice(SUBJECTS) if r == 0 or rng.random() < 0.5 else "it"
            questions.append(f"What {rng.choice(VERBS)} {subject} on day {r}?")
        out.append(SeedDialogue(id=f"d{d}", rounds=[SeedRound(question=q) for q in questions]))
    return out


def analyse(seeds: Sequence[SeedDialogue]) -> tuple[list[DialogueAnalysis], str]:
    try:
        from sparring.metamorphic._answerability import analyse_offline  # type: ignore[attr-defined]
    except ImportError:
        return [trivial(d) for d in seeds], "not installed (self-contained stand-in)"
    return list(analyse_offline(seeds)), "analyse_offline (spaCy)"


def trivial(dialogue: SeedDialogue) -> DialogueAnalysis:
    rounds = [
        RoundAnalysis(index=i, question=r.question, self_contained=True)
        for i, r in enumerate(dialogue.rounds)
    ]
    return DialogueAnalysis(dialogue_id=dialogue.id, strategy=Strategy.OFFLINE, rounds=rounds)


def bench_perturbation(count: int, rounds: int) -> dict[str, object]:
    rng = random.Random(0)
    seeds = dialogues(count, rounds, rng)
    started = time.perf_counter()
    follow_ups, _ = make_follow_ups(
        [Seed(dialogue=d) for d in seeds], DIALOGUE_PERTURBATIONS, 0, "tf-idf"
    )
    perturbed = time.perf_counter()
    analyses, analyser = analyse(seeds)
    analysed = time.perf_counter()
    by_id = {a.dialogue_id: a for a in analyses}
    verdicts = sum(len(by_id[f.seed].follow_up(f.order)) for f in follow_ups)
    ended = time.perf_counter()
    return {
        "dialogues": count,
        "rounds": rounds,
        "follow_ups": len(follow_ups),
        "round_verdicts": verdicts,
        "analyser": analyser,
        "perturbation_s": round(perturbed - started, 2),
        "answerability_s": round(analysed - perturbed, 2),
        "verdicts_s": round(ended - analysed, 2),
        "total_s": round(ended - started, 2),
        "target_s": 30,
    }


async def bench_replay(seeds: int, latency: float, concurrency: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "slowbot.py").write_text(BOT.format(latency=latency))
        (root / "chatbot.yaml").write_text(
            "connector: python\nparams:\n  target: slowbot:SlowBot\n  path: .\n"
        )
        data = {
            "data": [
                {
                    "id": f"s{i}",
                    "story": "",
                    "questions": [{"input_text": f"q{r} of {i}", "turn_id": r} for r in range(5)],
                    "answers": [],
                }
                for i in range(seeds)
            ]
        }
        (root / "seeds.json").write_text(json.dumps(data))

        async def analyser(ds: Sequence[SeedDialogue]) -> list[DialogueAnalysis]:
            return [trivial(d) for d in ds]

        settings = MetamorphicSettings(
            seeds=root / "seeds.json",
            chatbot=root / "chatbot.yaml",
            concurrency=concurrency,
            similarity="tf-idf",
            probe=False,
        )
        started = time.perf_counter()
        await start_async(MetamorphicJob(analyser=analyser), settings, root / "run", report=False)
        wall = time.perf_counter() - started
        records = list(RunStore.open(root / "run").iter_records())
        latency_sum = sum(sum(r.response_times) for r in records)
    return {
        "conversations": len(records),
        "replies": sum(len(r.response_times) for r in records),
        "bot_latency_s": latency,
        "concurrency": concurrency,
        "sequential_sum_s": round(latency_sum, 2),
        "wall_s": round(wall, 2),
        "ratio": round(wall / latency_sum, 3),
        "target_ratio": 0.1,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dialogues", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument(
        "--replay", type=int, default=40, help="seed dialogues replayed (0: skip the replay)"
    )
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=20)
    args = parser.parse_args()
    print(json.dumps(bench_perturbation(args.dialogues, args.rounds), indent=2))
    if args.replay > 0:
        replay = asyncio.run(bench_replay(args.replay, args.latency, args.concurrency))
        print(json.dumps(replay, indent=2))


if __name__ == "__main__":
    main()
