"""Offline answerability: 1,000 seed dialogues × 10 rounds analysed once with spaCy, then
5 follow-ups per dialogue judged with ``DialogueAnalysis.follow_up``.

The seeds are generated (seeded) from templates over names, objects, places, verbs and
numbers: CoQA-style rounds with pronouns and ellipsis, answers of 1–12 words. Generic
questions (*Where?*, *Did she?*) recur, as they do in real dialogues, and each distinct text
is parsed once (about 5,800 of the 20,000 questions and answers). ``--distinct`` makes
every text unique (20,000 parses: the worst case). The follow-ups are MORTAR's
five dialogue-level perturbations over the round indexes: shuffle, reduction (30 % of the
rounds removed), duplication (20 % of the rounds inserted again), reduce-then-shuffle and
duplicate-then-shuffle. The spaCy model load (once per process) is timed apart.

    PYTHONPATH=$PWD/src python benchmarks/bench_answerability.py [--dialogues 1000] [--rounds 10]
        [--distinct]
"""

from __future__ import annotations

import argparse
import random
import time

from sparring.metamorphic._answerability import (
    SeedDialogue,
    SeedRound,
    analyse_offline,
    load_pipeline,
)

NAMES = ["Tom", "Anna", "Lily", "Marco", "Priya", "Kenji", "Rosa", "Omar", "Elena", "Sam"]
THINGS = ["kite", "bicycle", "red scarf", "old radio", "birthday cake", "map", "guitar", "lamp"]
PLACES = ["market", "park", "library", "harbour", "station", "bakery", "museum", "garden"]
VERBS = ["buy", "find", "lose", "paint", "fix", "borrow", "sell", "hide"]
PAST = {
    "buy": "bought",
    "find": "found",
    "lose": "lost",
    "paint": "painted",
    "fix": "fixed",
    "borrow": "borrowed",
    "sell": "sold",
    "hide": "hid",
}


def _round(rng: random.Random, n: int, distinct: bool) -> SeedRound:
    name, thing, place, verb = (
        rng.choice(NAMES),
        rng.choice(THINGS),
        rng.choice(PLACES),
        rng.choice(VERBS),
    )
    day = rng.randint(1, 28)
    forms = [
        (f"What did {name} {verb} at the {place} on day {day}?", f"A {thing}."),
        ("What did he do with it?", f"He {PAST[verb]} it near the {place} after {day} hours."),
        (f"Why did she go to the {place}?", f"To {verb} a {thing} for her friend number {n}."),
        ("Where?", f"At the {place} by gate {day}."),
        (f"Who {PAST[verb]} the {thing}?", name),
        ("Did she?", "Yes."),
        (f"How many {thing}s did they {verb} in week {day}?", f"{day} of them."),
        (
            f"What about the {thing}?",
            f"{name} kept the {thing} at the {place} for {day} days and then gave it away.",
        ),
    ]
    question, answer = rng.choice(forms)
    if distinct:  # worst case: no two texts alike, every one parsed
        question = question.replace("?", f" in case {n}?")
        answer = f"{answer} Case {n}."
    return SeedRound(question=question, answer=answer)


def _dialogues(count: int, rounds: int, seed: int, distinct: bool) -> list[SeedDialogue]:
    rng = random.Random(seed)
    return [
        SeedDialogue(
            id=f"d{i}", rounds=[_round(rng, i * rounds + k, distinct) for k in range(rounds)]
        )
        for i in range(count)
    ]


def _orders(rng: random.Random, n: int) -> list[list[int]]:
    """MORTAR's five perturbations over ``n`` round indexes (DRS, DRR, DRD, DSR, DSD)."""
    base = list(range(n))
    shuffled = rng.sample(base, n)
    kept = sorted(rng.sample(base, n - max(1, round(0.3 * n))))
    duplicated = list(base)
    for index in rng.sample(base, max(1, round(0.2 * n))):
        duplicated.insert(rng.randint(0, len(duplicated)), index)
    return [
        shuffled,
        kept,
        duplicated,
        rng.sample(kept, len(kept)),
        rng.sample(duplicated, len(duplicated)),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dialogues", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument(
        "--distinct", action="store_true", help="make every question and answer unique"
    )
    args = parser.parse_args()

    started = time.perf_counter()
    load_pipeline()
    load = time.perf_counter() - started
    dialogues = _dialogues(args.dialogues, args.rounds, args.seed, args.distinct)
    texts = {r.question for d in dialogues for r in d.rounds} | {
        r.answer for d in dialogues for r in d.rounds if r.answer
    }

    started = time.perf_counter()
    analyses = analyse_offline(dialogues)
    analysed = time.perf_counter() - started

    rng = random.Random(args.seed)
    started = time.perf_counter()
    verdicts = [
        analysis.follow_up(order)
        for analysis in analyses
        for order in _orders(rng, len(analysis.rounds))
    ]
    judged = time.perf_counter() - started

    rounds = sum(len(a.rounds) for a in analyses)
    contained = sum(r.self_contained for a in analyses for r in a.rounds)
    follow_rounds = sum(len(v) for v in verdicts)
    answerable = sum(r.answerable for v in verdicts for r in v)
    print(f"model load:            {load:6.2f} s (once per process)")
    print(
        f"offline analysis:      {analysed:6.2f} s  {len(dialogues)} dialogues, {rounds} rounds, "
        f"{len(texts)} distinct texts parsed; {contained / rounds:.0%} self-contained"
    )
    print(
        f"follow_up (5 each):    {judged:6.2f} s  {len(verdicts)} follow-ups, {follow_rounds} "
        f"rounds; {answerable / follow_rounds:.0%} answerable"
    )
    print(f"total (without load):  {analysed + judged:6.2f} s  (budget 30 s)")


if __name__ == "__main__":
    main()
