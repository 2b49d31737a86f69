"""The labelled breakdown items (benchmarks/breakdowns/items.yaml) are what they claim:
enough of them, each with a label and why, each label the one its source gives; and the
offline detector, which only ranks, labels no turn of the correct FAQ bot and the crash of
the buggy one."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from sparring.connectors import ChatbotInfo
from sparring.conversations import import_chatchecker
from sparring.evaluate import CHATBOT_CRASH, OfflineBreakdownDetector, load_dbdc

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "benchmarks" / "breakdowns"
sys.path.insert(0, str(FOLDER))
from breakdown_faq_bot import BuggyFaqBot, FaqBot  # noqa: E402
from breakdown_faq_scripts import BUGGY_SCRIPTS, CORRECT_SCRIPTS, FAULTS, play  # noqa: E402
from make_breakdown_items import faq_items  # noqa: E402


@pytest.fixture(scope="module")
def items() -> list[dict[str, Any]]:
    loaded: list[dict[str, Any]] = yaml.safe_load((FOLDER / "items.yaml").read_text())
    return loaded


def test_at_least_150_items_each_with_a_label_and_why(items: list[dict[str, Any]]) -> None:
    assert len(items) >= 150
    assert len({i["id"] for i in items}) == len(items)
    for item in items:
        assert isinstance(item["breakdown"], bool) and item["why"].strip()
        assert item["source"] in ("dbdc", "chatchecker", "faq-bot")
    sources = {i["source"] for i in items}
    assert sources == {"dbdc", "chatchecker", "faq-bot"}
    assert sum(i["breakdown"] for i in items) >= 50  # both classes are well represented


def test_the_faq_items_are_the_scripts_labelled_by_construction(
    items: list[dict[str, Any]],
) -> None:
    stored = [{k: v for k, v in i.items() if k != "id"} for i in items if i["source"] == "faq-bot"]
    assert stored == faq_items()
    seeded = [i for i in stored if i["breakdown"]]
    assert len(seeded) == 8 and all(i["bot"] == "BuggyFaqBot" for i in seeded)


def test_shared_data_labels_match_their_source(
    items: list[dict[str, Any]], shared_data: Path
) -> None:
    if not (shared_data / "dbdc3").is_dir() or not (shared_data / "chatchecker").is_dir():
        pytest.skip("the shared DBDC3 or ChatChecker data are absent")
    for item in (i for i in items if i["source"] == "dbdc"):
        [dialogue] = load_dbdc(ROOT / item["file"])
        turn = dialogue.turns[item["turn"]]
        assert turn.speaker == "S" and (turn.label != "O") is item["breakdown"]
        assert f"majority {turn.label}" in item["why"]
    for item in (i for i in items if i["source"] == "chatchecker"):
        record = import_chatchecker(ROOT / item["file"])
        annotations = record.extra["chatchecker"]["breakdowns"]
        [found] = [a for a in annotations if a["turn"] == item["turn"]]
        assert record.turns[item["turn"]].role == "assistant"
        assert (found["decision"] == "breakdown") is item["breakdown"]


def test_the_offline_detector_flags_nothing_on_the_correct_faq_bot() -> None:
    detector = OfflineBreakdownDetector()
    info = ChatbotInfo(type="task-oriented")
    turns = [
        t
        for name, script in CORRECT_SCRIPTS.items()
        for t in detector.judge(play(FaqBot(), script, name), info, []).turns
    ]
    assert len(turns) >= 40 and not any(t.breakdown for t in turns)
    assert all(t.breakdown is None and t.score is not None for t in turns)
    labelled = []
    for name, script in BUGGY_SCRIPTS.items():
        conversation = play(BuggyFaqBot(), script, name)
        for t in detector.judge(conversation, info, [CHATBOT_CRASH]).turns:
            if t.breakdown:  # every label is a seeded fault's turn
                assert conversation.turns[t.turn - 1].text in FAULTS, t.reasoning
                labelled.append(t.error_types)
    assert [CHATBOT_CRASH] in labelled and len(labelled) >= 2
