"""A run's imported ChatChecker annotations are labels: `bench dbdc RUN_DIR` scores any
detector against them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from sparring.cli import app
from sparring.connectors import ChatbotInfo
from sparring.errors import UserInputError
from sparring.evaluate import OfflineBreakdownDetector, run_dialogues
from sparring.importers import ImportChatCheckerSettings
from sparring.runner import start


def _annotation(decision: str) -> dict[str, Any]:
    return {"reasoning": "…", "score": 0.1, "decision": decision, "breakdown_types": []}


def _dialogue(name: str, turns: list[tuple[str, str, str | None]], **extra: Any) -> dict[str, Any]:
    history = [
        {"turn_id": i + 1, "role": role, "content": text,
         "breakdown_annotation": None if decision is None else _annotation(decision)}
        for i, (role, text, decision) in enumerate(turns)
    ]  # fmt: skip
    return {"dialogue_id": f"{name}_dialogue_1", "user_name": name, "chat_history": history,
            "finish_reason": "user_ended_chat", "error": None} | extra  # fmt: skip


def _run(tmp_path: Path) -> Path:
    runs = tmp_path / "runs" / "run_1"
    dialogues = {
        "p01": _dialogue("p01", [("dialogue_system", "Hi!", "no_breakdown"),
                                 ("user", "A pizza", None),
                                 ("dialogue_system", "We sell shoes.", "breakdown")]),
        "p02": _dialogue("p02", [("user", "Hello", None),
                                 ("dialogue_system", "Hello! Pizza?", "no_breakdown")]),
        "p03": _dialogue("p03", [("user", "Hello", None), ("dialogue_system", "Hi", None)]),
    }  # fmt: skip
    for name, data in dialogues.items():
        (runs / name).mkdir(parents=True)
        (runs / name / "dialogue_1.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    start(
        "import-chatchecker", ImportChatCheckerSettings(source=tmp_path / "runs"), tmp_path / "run"
    )
    return tmp_path / "run"


def test_imported_annotations_become_labelled_dialogues(tmp_path: Path) -> None:
    dialogues = run_dialogues(_run(tmp_path))
    assert [d.corpus for d in dialogues] == ["run_1.p01", "run_1.p02"]  # p03: no label
    first = dialogues[0]
    assert [t.label for t in first.turns] == ["O", None, "X"]
    assert first.turns[2].counts == (0, 0, 1) and first.turns[1].speaker == "U"


def test_bench_dbdc_scores_a_detector_against_a_run(tmp_path: Path) -> None:
    run = _run(tmp_path)
    out = tmp_path / "scores.json"
    result = CliRunner().invoke(
        app, ["bench", "dbdc", str(run), "-d", "always", "--json", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "imported annotations (silver)" in result.output
    [always] = json.loads(out.read_text(encoding="utf-8"))
    assert always["turns"] == 3
    assert always["tx"]["accuracy"] == pytest.approx(1 / 3)  # one breakdown in three


def test_a_run_without_annotations_is_refused(tmp_path: Path) -> None:
    run = _run(tmp_path)
    for file in (run / "conversations").iterdir():
        data = json.loads(file.read_text(encoding="utf-8"))
        data.get("extra", {}).get("chatchecker", {}).pop("breakdowns", None)
        file.write_text(json.dumps(data), encoding="utf-8")
    result = CliRunner().invoke(app, ["bench", "dbdc", str(run), "-d", "always"])
    assert isinstance(result.exception, UserInputError)
    assert "no imported breakdown annotations" in str(result.exception)


def test_the_report_shows_imported_annotations_beside_a_detector(tmp_path: Path) -> None:
    from sparring.evaluate import BreakdownEvaluation, ConversationBreakdowns, TurnBreakdown
    from sparring.report import write_report
    from sparring.types import Strategy

    def judged_turn(turn: int, breakdown: bool, score: float) -> TurnBreakdown:
        return TurnBreakdown(turn=turn, breakdown=breakdown, score=score,
                             detector="chatchecker", strategy=Strategy.LLM)  # fmt: skip

    run = _run(tmp_path)
    judged = [  # a detector that agrees on p01's two labelled turns and not on p02's
        ConversationBreakdowns(
            conversation="run_1/p01/dialogue_1", detector="chatchecker",
            turns=[judged_turn(0, False, 0.9), judged_turn(2, True, 0.1)],
        ),
        ConversationBreakdowns(
            conversation="run_1/p02/dialogue_1", detector="chatchecker",
            turns=[judged_turn(1, True, 0.4)],
        ),
    ]  # fmt: skip
    stored = BreakdownEvaluation(detector="chatchecker", conversations=judged)
    (run / "evaluations").mkdir()
    (run / "evaluations" / "breakdowns-chatchecker.json").write_text(
        stored.model_dump_json(), encoding="utf-8"
    )
    html = write_report(run).read_text(encoding="utf-8")
    section = html[html.index('id="imported-breakdowns"') :]
    assert "3 chatbot turns of 2 conversations" in section and "1 breakdowns (33.3%)" in section
    assert "<td>chatchecker</td><td>3</td>" in section and "<td>66.7%</td>" in section
    assert "<td>1.000</td>" in section  # its scores rank the one breakdown first


async def test_an_imported_crash_is_scored_where_the_detector_labels_it(tmp_path: Path) -> None:
    """ChatChecker annotates its stand-in turn after a crash; the importer drops that turn
    and the detector labels the reply that never came: both are the same turn, so the
    benchmark scores the detector's crash label against ChatChecker's."""
    runs = tmp_path / "runs" / "run_1" / "p01"
    runs.mkdir(parents=True)
    crash = {**_annotation("breakdown"), "breakdown_types": ["Chatbot Crash"]}
    data = _dialogue("p01", [("dialogue_system", "Hi!", "no_breakdown"),
                             ("user", "Mars time?", None),
                             ("dialogue_system", "chatbot_error", "breakdown")],
                     finish_reason="chatbot_error", error="500 Server Error")  # fmt: skip
    data["chat_history"][2]["breakdown_annotation"] = crash
    (runs / "dialogue_1.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    start(
        "import-chatchecker", ImportChatCheckerSettings(source=tmp_path / "runs"), tmp_path / "run"
    )
    [dialogue] = run_dialogues(tmp_path / "run")
    assert [(t.speaker, t.label) for t in dialogue.turns] == [("S", "O"), ("U", None), ("S", "X")]
    judged = await OfflineBreakdownDetector().detect(dialogue.record(), ChatbotInfo(), [])
    assert [(t.turn, t.breakdown) for t in judged.turns if t.breakdown] == [(2, True)]
