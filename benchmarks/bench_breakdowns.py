"""What the offline breakdown detector is worth: its figures on the labelled items and
its flag rate on correct bots.

Claims (docs/breakdowns-offline.md): the offline detector ranks turns and does not label
them, because on data it was not trained on its labels would be little better than a
trivial judge; it labels only chatbot crashes, so on a correct bot it flags no turn
(target: at most 10 %), and on a bot with seeded faults it finds the crash and none of
the other faults (recall measured, not hidden).

Prints, for each source of ``benchmarks/breakdowns/items.yaml`` (DBDC3 turns with
people's labels, ChatChecker turns with GPT-4o's silver labels, the FAQ bots' turns
labelled by construction; 185 items, each with its label and why):

- the detector's **labels**: turns labelled, precision and recall of its breakdowns,
  agreement per turn counting an unscored turn as "no breakdown" (what a reader who
  trusts only labels concludes), beside "always breakdown" / "never breakdown";
- its **ranking**: the AUC of 1 − score (0.5 = chance). DBDC items are scored by a model
  fitted without their corpus (held out), so none is in-sample;
- what its old threshold (0.405) **would** have flagged — the behaviour it replaced.

Then the share of chatbot turns flagged on correct bots: the FAQ bot's scripted
conversations and, with ``--run DIR`` (repeatable), the conversations of a run, e.g. a
``sparring simulate`` of the example pizzeria (Rasa 3.6) with the offline user.

    PYTHONPATH=src python benchmarks/bench_breakdowns.py [--run runs/pizzeria] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from sparring.connectors import ChatbotInfo
from sparring.conversations import ConversationRecord, RunStore, import_chatchecker
from sparring.evaluate import OfflineBreakdownDetector, load_dbdc, shipped_classifier
from sparring.evaluate._calibration import auc
from sparring.evaluate._dbdc_metrics import binary_metrics
from sparring.evaluate._training import fit, training_set

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE / "breakdowns"))
from breakdown_faq_bot import BuggyFaqBot, FaqBot  # noqa: E402
from breakdown_faq_scripts import BUGGY_SCRIPTS, CORRECT_SCRIPTS, play  # noqa: E402

ITEMS = HERE / "breakdowns" / "items.yaml"
TASK = ChatbotInfo(type="task-oriented")


def held_out_probabilities(dbdc_root: Path) -> dict[tuple[str, int], float]:
    """P(breakdown) of every annotated DBDC turn by a model fitted on the other corpora,
    keyed by (file, turn)."""
    dialogues = load_dbdc(dbdc_root)
    data = training_set(dialogues)
    corpora = np.asarray([dialogues[int(g)].corpus for g in data.groups])
    keys = [
        (dialogues[int(g)].source or "", o.turn)
        for g, o in zip(data.groups, data.gold, strict=True)
    ]
    found: dict[tuple[str, int], float] = {}
    for corpus in sorted(set(corpora)):
        train, test = corpora != corpus, corpora == corpus
        model = fit(data.x[train], data.y[train], 0.5)
        for k, p in zip(np.flatnonzero(test), model.probabilities(data.x[test]), strict=True):
            found[keys[int(k)]] = float(p)
    return found


def item_record(item: dict[str, Any], cache: dict[str, ConversationRecord]) -> ConversationRecord:
    """The conversation an item's turn belongs to."""
    key = item.get("file") or f"{item['bot']}/{item['script']}"
    if key not in cache:
        if item["source"] == "chatchecker":
            cache[key] = import_chatchecker(ROOT / item["file"])
        elif item["source"] == "dbdc":
            [dialogue] = load_dbdc(ROOT / item["file"])
            cache[key] = dialogue.record()
        else:
            bot = FaqBot() if item["bot"] == "FaqBot" else BuggyFaqBot()
            scripts = CORRECT_SCRIPTS if item["bot"] == "FaqBot" else BUGGY_SCRIPTS
            cache[key] = play(bot, scripts[item["script"]], key)
    return cache[key]


def judge_items(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each item with the detector's ``label`` (True/False/None), its ``p`` (P(breakdown))
    and what the old threshold would have said (``old``)."""
    detector = OfflineBreakdownDetector()
    threshold = shipped_classifier().threshold
    dbdc = held_out_probabilities(ROOT / "../shared/data/dbdc3/en-dev")
    cache: dict[str, ConversationRecord] = {}
    judged = []
    for item in items:
        info = ChatbotInfo(type="conversational") if item["source"] == "dbdc" else TASK
        record = item_record(item, cache)
        turn = {t.turn: t for t in detector.judge(record, info, []).turns}[item["turn"]]
        label, p = turn.breakdown, 1.0 - (turn.score or 0.0)
        if item["source"] == "dbdc":  # the shipped model saw this turn: use a held-out one
            p = dbdc[(str(ROOT / item["file"]), item["turn"])]
        judged.append({**item, "label": label, "p": p, "old": p >= threshold})
    return judged


def figures(judged: list[dict[str, Any]]) -> dict[str, Any]:
    """Label, ranking and old-threshold figures of one group of judged items."""
    gold = [bool(j["breakdown"]) for j in judged]
    labelled = [j for j in judged if j["label"] is not None]
    said = [j["label"] is True for j in judged]
    labels = binary_metrics(gold, said)
    old = binary_metrics(gold, [j["old"] for j in judged])
    return {
        "items": len(judged),
        "breakdowns": sum(gold),
        "labelled": len(labelled),
        "labelled_breakdowns": sum(said),
        "precision": labels.precision if sum(said) else None,
        "recall": labels.recall,
        "agreement": labels.accuracy,
        "always": binary_metrics(gold, [True] * len(gold)).accuracy,
        "never": binary_metrics(gold, [False] * len(gold)).accuracy,
        "auc": auc(gold, [j["p"] for j in judged]),
        "old_flagged": sum(j["old"] for j in judged) / len(judged),
        "old_precision": old.precision,
        "old_recall": old.recall,
        "old_agreement": old.accuracy,
    }


def flagged_on(records: list[ConversationRecord], info: ChatbotInfo) -> dict[str, Any]:
    """Chatbot turns, turns labelled breakdowns now, and what the old threshold flagged."""
    detector = OfflineBreakdownDetector()
    threshold = shipped_classifier().threshold
    turns = flagged = old = 0
    for record in records:
        judged = detector.judge(record, info, [])
        turns += len(judged.turns)
        flagged += sum(t.breakdown is True for t in judged.turns)
        old += sum(1.0 - (t.score or 0.0) >= threshold for t in judged.turns)
    return {"turns": turns, "flagged": flagged, "old_flagged": old}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=Path, action="append", default=[], help="a run folder")
    parser.add_argument("--json", type=Path, help="write the figures as JSON")
    args = parser.parse_args()
    items = yaml.safe_load(ITEMS.read_text(encoding="utf-8"))
    judged = judge_items(items)
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for j in judged:
        groups[j["source"] + (f" ({j['bot']})" if "bot" in j else "")].append(j)
    groups["all items"] = judged
    out: dict[str, Any] = {"items": {k: figures(v) for k, v in groups.items()}}
    print(f"{len(judged)} labelled items ({ITEMS.relative_to(ROOT)})")
    head = "source                 items  bd  labelled  prec  recall  agree  (never)  AUC"
    print(head + "   old: flagged  agree")
    for name, f in out["items"].items():
        precision = "  -  " if f["precision"] is None else f"{f['precision']:.2f} "
        print(
            f"{name:22s} {f['items']:5d} {f['breakdowns']:3d} {f['labelled']:9d}  {precision}"
            f" {f['recall']:6.2f}  {f['agreement']:5.2f}  ({f['never']:.2f})  {f['auc']:.2f}"
            f"   {f['old_flagged']:11.0%}  {f['old_agreement']:5.2f}"
        )
    correct = [play(FaqBot(), s, n) for n, s in CORRECT_SCRIPTS.items()]
    bots = {"FAQ bot (correct), scripted": flagged_on(correct, TASK)}
    for run in args.run:
        store = RunStore.open(run)
        bots[f"run {run}"] = flagged_on(list(store.iter_records()), TASK)
    out["correct_bots"] = bots
    print("\nflagged on correct bots        turns  labelled breakdowns   old threshold")
    for name, b in bots.items():
        share = b["flagged"] / b["turns"] if b["turns"] else 0.0
        old = b["old_flagged"] / b["turns"] if b["turns"] else 0.0
        print(f"{name:30s} {b['turns']:5d}  {b['flagged']:4d} ({share:5.1%})      {old:6.1%}")
    quality = shipped_classifier().quality
    if quality is not None:
        print(f"\nshipped claim: {quality.summary}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
