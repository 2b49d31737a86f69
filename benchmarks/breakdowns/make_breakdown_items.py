"""Write ``items.yaml``: the labelled breakdown items of the evaluation set.

Every item is one chatbot turn with its label (``breakdown``) and why, from three
sources, read by path (the shared data are never copied here):

- ``dbdc``: DBDC3 English development turns (people's labels: the majority of 30
  annotators, T+X), 15 per corpus, every n-th annotated turn of the corpus in file order;
- ``chatchecker``: ChatChecker's study-goal dialogues (silver labels: ChatChecker's GPT-4o
  annotations), 30 turns annotated breakdowns and 30 not, every n-th in file order;
- ``faq-bot``: every chatbot turn of the FAQ bots' scripted conversations
  (``breakdown_faq_scripts.py``): the correct bot's turns are not breakdowns (each answers
  what was asked, or says what it can answer about), the buggy bot's turns at a seeded
  fault are.

Deterministic; run from the repository root::

    PYTHONPATH=src python benchmarks/breakdowns/make_breakdown_items.py
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import yaml
from breakdown_faq_bot import BuggyFaqBot, FaqBot
from breakdown_faq_scripts import BUGGY_SCRIPTS, CORRECT_SCRIPTS, FAULTS, play

from sparring.evaluate._calibration import silver_turns
from sparring.evaluate._dbdc import load_dbdc

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path("..") / "shared" / "data"
DBDC = SHARED / "dbdc3" / "en-dev"
CHATCHECKER = SHARED / "chatchecker" / "chatbots" / "study_goal_assistant" / "runs"
OUT = Path(__file__).with_name("items.yaml")
PER_CORPUS = 15
PER_CLASS = 30


def every_nth(items: list[Any], count: int) -> list[Any]:
    """``count`` items spread evenly over ``items`` (all of them when fewer)."""
    if len(items) <= count:
        return items
    step = len(items) / count
    return [items[int(i * step)] for i in range(count)]


def dbdc_items() -> list[dict[str, Any]]:
    """``PER_CORPUS`` annotated turns of each DBDC3 corpus."""
    dialogues = load_dbdc(ROOT / DBDC)
    items = []
    for corpus in sorted({d.corpus for d in dialogues}):
        turns = [(d, i) for d in dialogues if d.corpus == corpus for i in d.labelled]
        for dialogue, i in every_nth(turns, PER_CORPUS):
            turn = dialogue.turns[i]
            assert turn.counts is not None and turn.label is not None
            o, t, x = turn.counts
            items.append(
                {
                    "source": "dbdc",
                    "file": Path(dialogue.source or "").relative_to(ROOT).as_posix(),
                    "corpus": corpus,
                    "turn": i,
                    "breakdown": turn.label != "O",
                    "why": f"majority {turn.label} of {o + t + x} annotators (O {o}, T {t}, X {x})",
                }
            )
    return items


def chatchecker_items() -> list[dict[str, Any]]:
    """``PER_CLASS`` silver breakdowns and as many silver non-breakdowns."""
    turns = silver_turns(ROOT / CHATCHECKER)
    items = []
    for label in (True, False):
        for t in every_nth([t for t in turns if t.breakdown is label], PER_CLASS):
            annotation = next(
                a for a in t.record.extra["chatchecker"]["breakdowns"] if a["turn"] == t.turn
            )
            types = ", ".join(annotation.get("breakdown_types") or []) or "no type"
            items.append(
                {
                    "source": "chatchecker",
                    "file": Path(t.record.source or "").relative_to(ROOT).as_posix(),
                    "turn": t.turn,
                    "breakdown": label,
                    "why": (
                        f"ChatChecker's GPT-4o: {annotation['decision']} "
                        f"(score {annotation.get('score')}; {types})"
                    ),
                }
            )
    return items


def faq_items() -> list[dict[str, Any]]:
    """Every chatbot turn of the FAQ bots' conversations, labelled by construction."""
    items = []
    for bot, scripts in (("FaqBot", CORRECT_SCRIPTS), ("BuggyFaqBot", BUGGY_SCRIPTS)):
        for name, script in scripts.items():
            record = play(FaqBot() if bot == "FaqBot" else BuggyFaqBot(), script, name)
            for i, turn in enumerate(record.turns):
                if turn.role != "assistant":
                    continue
                asked = record.turns[i - 1].text
                fault = FAULTS.get(asked) if bot == "BuggyFaqBot" else None
                why = fault or (
                    "correct: says what it can answer about (out of scope)"
                    if "I can only answer" in turn.text
                    else "correct: answers what was asked"
                )
                items.append(
                    {
                        "source": "faq-bot",
                        "bot": bot,
                        "script": name,
                        "turn": i,
                        "breakdown": fault is not None,
                        "why": why,
                    }
                )
    return items


def main() -> None:
    items = [*dbdc_items(), *chatchecker_items(), *faq_items()]
    for n, item in enumerate(items, 1):
        item["id"] = f"b{n:03d}"
    header = (
        "# Labelled breakdown items (one chatbot turn each): written by\n"
        "# benchmarks/breakdowns/make_breakdown_items.py, read by benchmarks/bench_breakdowns.py.\n"
        "# Files are paths from the repository root into ../shared/data (never copied).\n"
    )
    body = yaml.safe_dump(
        [{"id": i.pop("id"), **i} for i in items], sort_keys=False, allow_unicode=True
    )
    OUT.write_text(header + body, encoding="utf-8")
    counts = Counter((i["source"], i["breakdown"]) for i in items)
    print(f"wrote {len(items)} items to {OUT}: {dict(sorted(counts.items()))}")


if __name__ == "__main__":
    main()
