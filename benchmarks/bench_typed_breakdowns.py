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
from sparring.evaluate._typed import TYPED_DETECTORS, typed_findings
from sparring.evaluate._view import DialogueView

ROOT = Path(__file__).resolve().parents[1]
ITEMS = ROOT / "benchmarks" / "breakdowns" / "task_items.yaml"
DBDC = ROOT.parent / "shared" / "data" / "dbdc3" / "en-dev"
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
        beyond = index >= len(record.turns) or view.roles[index] != "assistant"
        if index in view.crashes and beyond and "error reply" not in fired:
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


def own_bot_items(data: dict[str, Any], *, declared: bool = True) -> list[Judged]:
    """The labelled turns of the bots' conversations in ``task_items.yaml``; with
    ``declared`` false the chatbot's type is left for the detectors to read from the
    dialogue."""
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
            type="task-oriented" if declared else None,
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
    """Per typed detector, for the ChatChecker type it covers: turns annotated with that
    type, those the detector fired on (its recall of the type), the turns it fired on and
    its precision against any breakdown and against the type itself."""
    counts = Counter(t for j in judged for t in j.types)
    out = {}
    for detector in TYPED_DETECTORS:
        typed = [j for j in judged if detector.error_type in j.types]
        fired = [j for j in judged if detector.name in j.fired]
        found = sum(detector.name in j.fired for j in typed)
        out[detector.name] = {
            "type": detector.error_type,
            "annotated": counts.get(detector.error_type, 0),
            "found": found,
            "recall": found / len(typed) if typed else None,
            "fired": len(fired),
            "precision_any_breakdown": sum(j.breakdown for j in fired) / len(fired)
            if fired
            else None,
            "precision_type": found / len(fired) if fired else None,
        }
    return out


def dbdc_items() -> list[Judged]:
    """Every annotated system turn of DBDC3's English chat dialogues (people's labels:
    the majority label T or X is a breakdown), the chatbot's type left for the detectors
    to read from the dialogue; ``why`` holds the annotators' O/T/X counts."""
    from sparring.evaluate import load_dbdc

    judged: list[Judged] = []
    for dialogue in load_dbdc(DBDC):
        labels = {
            i: ("dbdc3", dialogue.turns[i].label in ("T", "X"), str(dialogue.turns[i].counts), [])
            for i in dialogue.labelled
        }
        judged += judge(dialogue.record(), ChatbotInfo(), labels)
    return judged


def lenient_precision(judged: list[Judged]) -> dict[str, float | None]:
    """Per typed detector, its precision when a turn counts as a breakdown where at least
    half the annotators said T or X (DBDC's ``eval.py`` reading: P(T) + P(X) ≥ P(O))."""
    out: dict[str, float | None] = {}
    for detector in TYPED_DETECTORS:
        fired = [j for j in judged if detector.name in j.fired]
        hits = 0
        for j in fired:
            o, t, x = (int(n) for n in j.why.strip("()").split(","))
            hits += t + x >= o
        out[detector.name] = hits / len(fired) if fired else None
    return out


def fmt(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def print_detectors(
    table: dict[str, dict[str, Any]], lenient: dict[str, Any] | None = None
) -> None:
    for name, row in table.items():
        extra = f" (≥ half the annotators: {fmt(lenient[name])})" if lenient else ""
        print(
            f"  {name:17} {'labels' if row['labels'] else 'hint  '} fired {row['fired']:4} "
            f"precision {fmt(row['precision'])}{extra} recall {fmt(row['recall'])}"
        )


def print_summary(name: str, row: dict[str, Any]) -> None:
    print(
        f"  {name:22} turns {row['turns']:4} breakdowns {row['breakdowns']:4} labelled "
        f"{row['labelled']:3} precision {fmt(row['precision'])} recall {fmt(row['recall'])} "
        f"AUC {fmt(row['auc'])}"
    )


def task_bots(data: dict[str, Any]) -> dict[str, Any]:
    """The labelled task-bot turns: the summary per source and per detector, with the
    chatbot's type declared, and again with it read from the dialogue."""
    task = own_bot_items(data)
    undeclared = own_bot_items(data, declared=False)
    if STUDY_GOAL.is_dir():
        task += chatchecker_items(data["chatchecker"])
    result: dict[str, Any] = {
        "task_bots": summary(task),
        "task_bots_type_read": summary(undeclared),
        "by_source": {
            s: summary([j for j in task if j.source == s]) for s in sorted({j.source for j in task})
        },
        "detectors": detector_table(task),
        "detectors_type_read": detector_table(undeclared),
    }
    print(f"labelled task-bot turns ({ITEMS.name}):")
    print_summary("all", result["task_bots"])
    for name, row in result["by_source"].items():
        print_summary(name, row)
    print_detectors(result["detectors"])
    print("own bots, the chatbot's type read from the dialogue (not declared):")
    print_summary("own bots", result["task_bots_type_read"])
    print_detectors(result["detectors_type_read"])
    return result


def study_goal() -> dict[str, Any]:
    every = study_goal_all()
    result = {
        "study_goal": summary(every),
        "study_goal_types": per_type(every),
        "study_goal_detectors": detector_table(every),
    }
    print("ChatChecker study-goal (silver):")
    print_summary("all", result["study_goal"])
    for name, row in result["study_goal_types"].items():
        print(
            f"  {name:17} ({row['type']}): annotated {row['annotated']:3} found "
            f"{row['found']:3} (recall {fmt(row['recall'])}); fired {row['fired']:3}, "
            f"precision for the type {fmt(row['precision_type'])}, for any breakdown "
            f"{fmt(row['precision_any_breakdown'])}"
        )
    return result


def dbdc() -> dict[str, Any]:
    every = dbdc_items()
    result = {
        "dbdc3": summary(every),
        "dbdc3_detectors": detector_table(every),
        "dbdc3_lenient": lenient_precision(every),
    }
    print("DBDC3 English chat dialogues (people's majority label, T+X):")
    print_summary("all", result["dbdc3"])
    print_detectors(result["dbdc3_detectors"], result["dbdc3_lenient"])
    return result


def type_read(data: dict[str, Any]) -> dict[str, Any]:
    """How many dialogues ``DialogueView.task_oriented`` reads as a task bot's, the
    chatbot's type undeclared: DBDC3's chat dialogues, the task-bot conversations of
    ``task_items.yaml`` and ChatChecker's study-goal dialogues."""
    from sparring.evaluate import load_dbdc

    def task(record: ConversationRecord) -> bool:
        return DialogueView.of(record, ChatbotInfo()).task_oriented

    sets = {
        "task_items": [
            task(ConversationRecord(id=c["id"], profile="", turns=[
                Turn(role=t["role"], text=t["text"], messages=[t["text"]] if t["text"] else [])
                for t in c["turns"]
            ]))
            for c in data["conversations"]
        ],
    }  # fmt: skip
    if STUDY_GOAL.is_dir():
        paths = sorted(STUDY_GOAL.glob("runs/*/*/dialogue_*.yaml"))
        sets["study_goal"] = [task(import_chatchecker(p)) for p in paths]
    if DBDC.is_dir():
        sets["dbdc3"] = [task(d.record()) for d in load_dbdc(DBDC)]
    result = {name: {"task": sum(read), "dialogues": len(read)} for name, read in sets.items()}
    for name, row in result.items():
        print(f"  {name:12} read as task-oriented: {row['task']} of {row['dialogues']}")
    return {"type_read": result}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    data = yaml.safe_load(ITEMS.read_text(encoding="utf-8"))
    result = task_bots(data)
    print("the chatbot's type read from the dialogue:")
    result |= type_read(data)
    if STUDY_GOAL.is_dir():
        result |= study_goal()
    if DBDC.is_dir():
        result |= dbdc()
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
