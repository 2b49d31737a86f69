"""The typed offline breakdown detectors measured: per-detector precision and recall, and the
offline detector's ranking AUC, on labelled task-bot turns and on ChatChecker's study-goal
evaluation.

Claims (issue 33): every typed detector that labels has precision ≥ 0.9 on the labelled
task-bot turns of ``benchmarks/breakdowns/task_items.yaml`` (written by
``make_task_items.py``: slot bots of two domains, the shared hotel bot, the FAQ bot, each
correct and with seeded faults, and a sample of ChatChecker's study-goal turns), and the
ranking (1 − score of the ``offline`` detector) reaches AUC ≥ 0.75 on the task bots. On
ChatChecker's full study-goal evaluation (1,938 annotated chatbot turns, GPT-4o's silver
labels) it prints precision and recall per ChatChecker type the detectors cover, and the
ranking's AUC.

    PYTHONPATH=src python benchmarks/bench_typed_breakdowns.py [--json out.json]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from sparring.connectors import ChatbotInfo
from sparring.conversations import (
    ConversationError,
    ConversationRecord,
    Turn,
    import_chatchecker,
)
from sparring.evaluate import OfflineBreakdownDetector
from sparring.evaluate._typed import TYPED_DETECTORS, DialogueView, typed_findings

ROOT = Path(__file__).resolve().parents[1]
ITEMS = ROOT / "benchmarks" / "breakdowns" / "task_items.yaml"
STUDY_GOAL = ROOT.parent / "shared" / "data" / "chatchecker" / "chatbots" / "study_goal_assistant"
PRECISION_TARGET, AUC_TARGET = 0.9, 0.75


@dataclass
class Judged:
    """One labelled chatbot turn and what the detectors said: ``fired`` typed detectors,
    the ranking ``score`` (1 = seamless) and whether the offline detector ``labelled`` it a
    breakdown."""

    source: str
    breakdown: bool
    why: str
    fired: list[str]
    score: float
    labelled: bool
    types: list[str] = field(default_factory=list)


def auc(positives: list[float], negatives: list[float]) -> float | None:
    """The probability that a random breakdown ranks above a random non-breakdown (ties
    half), by the risk ``1 − score``."""
    if not positives or not negatives:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in positives for n in negatives)
    return wins / (len(positives) * len(negatives))


def judge(record: ConversationRecord, info: ChatbotInfo, labels: dict[int, Any]) -> list[Judged]:
    """Run the offline detector and each typed detector on ``record``'s labelled turns;
    ``labels`` maps a turn index to ``(source, breakdown, why, types)``."""
    detector = OfflineBreakdownDetector()
    taxonomy = [d.error_type for d in TYPED_DETECTORS]
    verdicts = {t.turn: t for t in detector.judge(record, info, taxonomy).turns}
    view = DialogueView.of(record, info)
    out = []
    for index, (source, breakdown, why, types) in labels.items():
        verdict = verdicts.get(index)
        fired = (
            [d.name for d, _ in typed_findings(view, index)] if index < len(record.turns) else []
        )
        if index in view.crashes and "error reply" not in fired:
            fired.append("error reply")
        out.append(
            Judged(
                source=source,
                breakdown=breakdown,
                why=why,
                fired=fired,
                score=verdict.score if verdict and verdict.score is not None else 1.0,
                labelled=bool(verdict and verdict.breakdown),
                types=types,
            )
        )
    return out


def own_bot_items(data: dict[str, Any]) -> list[Judged]:
    """The labelled turns of the bots' conversations in ``task_items.yaml``."""
    judged: list[Judged] = []
    for conversation in data["conversations"]:
        record = ConversationRecord(
            id=conversation["id"],
            profile=conversation["source"],
            turns=[
                Turn(role=t["role"], text=t["text"], messages=[t["text"]] if t["text"] else [])
                for t in conversation["turns"]
            ],
            errors=[ConversationError.model_validate(e) for e in conversation.get("errors", [])],
        )
        chatbot = conversation["chatbot"]
        info = ChatbotInfo(
            name=chatbot.get("name"),
            description=chatbot.get("description"),
            fallback=chatbot.get("fallback"),
            type="task-oriented",
        )
        labels = {
            int(turn): (conversation["source"], label["breakdown"], label["why"], [])
            for turn, label in conversation["labels"].items()
        }
        judged += judge(record, info, labels)
    return judged


def study_goal_info() -> ChatbotInfo:
    config = yaml.safe_load((STUDY_GOAL / "config.yaml").read_text(encoding="utf-8"))
    about = config["chatbot_info"]
    return ChatbotInfo(
        name=about["name"],
        description=about["description"],
        task=about.get("task"),
        type="task-oriented",
    )


def chatchecker_items(items: Iterable[dict[str, Any]]) -> list[Judged]:
    """The sampled ChatChecker turns of ``task_items.yaml`` (silver labels)."""
    by_file: dict[str, dict[int, Any]] = defaultdict(dict)
    for item in items:
        by_file[item["file"]][item["turn"]] = ("chatchecker", item["breakdown"], item["why"], [])
    info = study_goal_info()
    judged: list[Judged] = []
    for file, labels in by_file.items():
        judged += judge(import_chatchecker(ROOT / file), info, labels)
    return judged


def study_goal_all() -> list[Judged]:
    """Every annotated chatbot turn of ChatChecker's study-goal runs, with its types."""
    info = study_goal_info()
    judged: list[Judged] = []
    for path in sorted(STUDY_GOAL.glob("runs/*/*/dialogue_*.yaml")):
        record = import_chatchecker(path)
        labels = {}
        for note in record.extra["chatchecker"].get("breakdowns", []):
            types = [t.lower() for t in note.get("breakdown_types") or []]
            labels[note["turn"]] = ("study-goal", note["decision"] == "breakdown", "", types)
        judged += judge(record, info, labels)
    return judged


def detector_table(judged: list[Judged]) -> dict[str, dict[str, Any]]:
    """Per typed detector: turns it fired on, true positives, precision, recall."""
    breakdowns = sum(j.breakdown for j in judged)
    table = {}
    for detector in TYPED_DETECTORS:
        fired = [j for j in judged if detector.name in j.fired]
        hits = sum(j.breakdown for j in fired)
        table[detector.name] = {
            "labels": detector.labels,
            "fired": len(fired),
            "true_positives": hits,
            "precision": hits / len(fired) if fired else None,
            "recall": hits / breakdowns if breakdowns else None,
            "false_positives": [j.why for j in fired if not j.breakdown][:5],
        }
    return table


def summary(judged: list[Judged]) -> dict[str, Any]:
    """Labelled turns' precision and recall, and the ranking's AUC."""
    labelled = [j for j in judged if j.labelled]
    hits = sum(j.breakdown for j in labelled)
    breakdowns = sum(j.breakdown for j in judged)
    risk = [1.0 - j.score for j in judged]
    return {
        "turns": len(judged),
        "breakdowns": breakdowns,
        "labelled": len(labelled),
        "precision": hits / len(labelled) if labelled else None,
        "recall": hits / breakdowns if breakdowns else None,
        "auc": auc(
            [r for r, j in zip(risk, judged, strict=True) if j.breakdown],
            [r for r, j in zip(risk, judged, strict=True) if not j.breakdown],
        ),
    }


def per_type(judged: list[Judged]) -> dict[str, dict[str, Any]]:
    """Per ChatChecker type a detector covers: turns of that type, those the detector of the
    type fired on (recall), and its precision against any breakdown."""
    counts = Counter(t for j in judged for t in j.types)
    out = {}
    for detector in TYPED_DETECTORS:
        typed = [j for j in judged if detector.error_type in j.types]
        fired = [j for j in judged if detector.name in j.fired]
        out[detector.error_type] = {
            "detector": detector.name,
            "annotated": counts.get(detector.error_type, 0),
            "found": sum(detector.name in j.fired for j in typed),
            "fired": len(fired),
            "precision_any_breakdown": sum(j.breakdown for j in fired) / len(fired)
            if fired
            else None,
        }
    return out


def fmt(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    data = yaml.safe_load(ITEMS.read_text(encoding="utf-8"))
    task = own_bot_items(data)
    if STUDY_GOAL.is_dir():
        task += chatchecker_items(data["chatchecker"])
    result: dict[str, Any] = {
        "task_bots": summary(task),
        "by_source": {
            s: summary([j for j in task if j.source == s]) for s in sorted({j.source for j in task})
        },
        "detectors": detector_table(task),
    }
    print(f"labelled task-bot turns ({ITEMS.name}):")
    for name, row in [("all", result["task_bots"]), *result["by_source"].items()]:
        print(
            f"  {name:12} turns {row['turns']:4} breakdowns {row['breakdowns']:3} labelled "
            f"{row['labelled']:3} precision {fmt(row['precision'])} recall {fmt(row['recall'])} "
            f"AUC {fmt(row['auc'])}"
        )
    for name, row in result["detectors"].items():
        print(
            f"  {name:17} {'labels' if row['labels'] else 'hint  '} fired {row['fired']:3} "
            f"precision {fmt(row['precision'])} recall {fmt(row['recall'])}"
        )
    if STUDY_GOAL.is_dir():
        every = study_goal_all()
        result["study_goal"] = summary(every)
        result["study_goal_types"] = per_type(every)
        result["study_goal_detectors"] = detector_table(every)
        row = result["study_goal"]
        print(
            f"ChatChecker study-goal (silver): turns {row['turns']} breakdowns "
            f"{row['breakdowns']} labelled {row['labelled']} precision {fmt(row['precision'])} "
            f"recall {fmt(row['recall'])} AUC {fmt(row['auc'])}"
        )
        for name, row in result["study_goal_types"].items():
            print(
                f"  {name:26} ({row['detector']}): annotated {row['annotated']:3} found "
                f"{row['found']:3}; fired {row['fired']:3}, of which breakdowns "
                f"{fmt(row['precision_any_breakdown'])}"
            )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
