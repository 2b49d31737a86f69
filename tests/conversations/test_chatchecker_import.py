"""ChatChecker's runs (``dialogue_N.yaml``) import as a sparring run that ``check`` and
``RunStore`` read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from sparring.check import CheckSettings
from sparring.cli import app
from sparring.conversations import (
    ErrorCode,
    FailureCause,
    FinishReason,
    RunStore,
    crash_turns,
    import_chatchecker,
)
from sparring.errors import ConfigError, UserInputError
from sparring.importers import ImportChatCheckerSettings
from sparring.runner import start

RUN = "run_personas_2025-05-19_11-01-57_seed_1"
PERSONA = "generated_standard_persona_01"
TESTER = "01_ignore_question_tester"


def _annotation(score: float, *types: str) -> dict[str, Any]:
    decision = "breakdown" if types else "no_breakdown"
    return {"reasoning": "…", "score": score, "decision": decision, "breakdown_types": list(types)}


def _dump(path: Path, data: dict[str, Any]) -> None:
    """Write as ChatChecker does (yaml.safe_dump, indent 4, keys in order)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = yaml.safe_dump(data, indent=4, sort_keys=False, allow_unicode=True)
    path.write_text(text, encoding="utf-8")


def _turn(turn_id: int, role: str, content: str, annotation: Any = None) -> dict[str, Any]:
    return {
        "turn_id": turn_id,
        "role": role,
        "content": content,
        "breakdown_annotation": annotation,
    }


def _dialogue(
    user: str, number: int, history: list[dict[str, Any]], **fields: Any
) -> dict[str, Any]:
    return {
        "dialogue_id": f"{user}_dialogue_{number}",
        "user_name": user,
        "chat_history": history,
        "finish_reason": "user_ended_chat",
        "error": None,
        "ratings": None,
        "human_rating_annotations": None,
        "chat_statistics": {
            "start_time": "2025-05-19 11:19:42",
            "end_time": "2025-05-19 11:21:36",
            "duration": 113.74,
            "num_turns": len(history),
        },
        "simulation_cost_statistics": {
            "total_prompt_tokens": 1200,
            "total_completion_tokens": 80,
            "total_tokens": 1280,
            "cost": 0.0042,
        },
        **fields,
    }


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    """A ChatChecker ``runs/`` folder: a persona's two dialogues and a crashed tester's."""
    root = tmp_path / "pizza_bot" / "runs"
    persona_dir = root / RUN / PERSONA
    persona = {
        "persona_id": PERSONA,
        "type": "standard",
        "profile": {
            "name": "Busy Beatrice",
            "gender": "female",
            "age": 41,
            "background_info": ["You run a bakery."],
            "personality": dict.fromkeys(
                ["openness", "conscientiousness", "extraversion", "agreeableness", "neuroticism"],
                "medium",
            ),
            "interaction_style": ["You write short messages."],
        },
        "task": "Order a small pizza for pickup.",
        "generated": True,
    }
    _dump(persona_dir / "persona_info.yaml", {"run_id": RUN, "persona": persona})
    history = [
        _turn(1, "dialogue_system", "Hi! What would you like?", _annotation(1.0)),
        _turn(2, "user", "A small pizza please."),
        _turn(3, "dialogue_system", "We are open 12-23.", _annotation(0.2, "Ignore request")),
        _turn(4, "user", "Thanks, bye."),
    ]
    ratings = {"task_success": {"reasoning": "…", "rating": 2}}
    _dump(
        persona_dir / "dialogue_1.yaml",
        _dialogue(PERSONA, 1, history, ratings=ratings, breakdown_stats={"count": 1}),
    )
    ended = [_turn(1, "user", "Order a pizza"), _turn(2, "dialogue_system", "Done. Goodbye!")]
    _dump(
        persona_dir / "dialogue_2.yaml",
        _dialogue(PERSONA, 2, ended, finish_reason="chatbot_ended_chat"),
    )
    (persona_dir / "dialogue_1.txt").write_text("Chat history:\n…", encoding="utf-8")
    crash = [
        _turn(1, "user", "What time is it on Mars?"),
        _turn(2, "dialogue_system", "chatbot_error", _annotation(0, "Chatbot Crash")),
    ]
    tester = _dialogue(TESTER, 1, crash, finish_reason="chatbot_error", error="500 Server Error")
    _dump(root / RUN / TESTER / "dialogue_1.yaml", tester)
    _dump(root / RUN / TESTER / "info.yaml", {"run_id": RUN, "title": "Ignore question"})
    _dump(root / RUN / "simulation_run_info.yaml", {"chatbot_id": "pizza_bot"})
    return root


def test_a_runs_folder_imports_as_a_run(runs: Path, tmp_path: Path) -> None:
    result = start(
        "import-chatchecker", ImportChatCheckerSettings(source=runs), tmp_path / "out"
    ).result
    assert result.imported == 3
    store = RunStore.open(tmp_path / "out")
    assert store.manifest.job == "import-chatchecker"
    # natural order: 01_… first; qualified by the run (ChatChecker reuses persona ids)
    assert store.manifest.profiles == [f"{RUN}.{TESTER}", f"{RUN}.{PERSONA}"]
    crashed, first, ended = store.iter_records()
    assert first.id == f"{RUN}/{PERSONA}/dialogue_1" and first.index == 0
    assert [t.role for t in first.turns] == ["assistant", "user", "assistant", "user"]
    assert first.turns[2].text == "We are open 12-23." and first.simulator == "chatchecker"
    assert first.finish_reason is FinishReason.USER_ENDED and not first.errors
    assert first.goals == ["Order a small pizza for pickup."] and first.role == "Busy Beatrice"
    assert first.context == ["You run a bakery.", "You write short messages."]
    assert first.duration == 113.74 and first.usage["user_simulator"].prompt_tokens == 1200
    kept = first.extra["chatchecker"]
    assert kept["ratings"]["task_success"]["rating"] == 2
    assert kept["breakdowns"][1]["turn"] == 2
    assert kept["breakdowns"][1]["breakdown_types"] == ["Ignore request"]
    assert kept["persona_info.yaml"]["persona"]["persona_id"] == PERSONA
    assert ended.finish_reason is FinishReason.CHATBOT_ENDED and ended.index == 1
    assert crashed.finish_reason is FinishReason.CHATBOT_ERROR
    assert [t.text for t in crashed.turns] == ["What time is it on Mars?"]
    (error,) = crashed.errors
    assert error.code == ErrorCode.NO_RESPONSE and error.cause == FailureCause.CRASH
    [crash_annotation] = crashed.extra["chatchecker"]["breakdowns"]
    # the crash belongs to the chatbot turn that never came after the user's (turn 1):
    # where the record's error puts it for every detector and the statistics
    assert error.turn == 0 and crash_turns(crashed) == {
        1: "the chatbot failed (500): 500 Server Error"
    }
    assert crash_annotation["turn"] == 1 and crash_annotation["crash"] is True
    assert crash_annotation["breakdown_types"] == ["Chatbot Crash"]
    assert error.message == "500 Server Error"
    assert crashed.extra["chatchecker"]["info.yaml"]["title"] == "Ignore question"
    assert result.summary.failures.conversations == 1


def test_the_imported_run_is_checked(runs: Path, tmp_path: Path) -> None:
    start("import-chatchecker", ImportChatCheckerSettings(source=runs), tmp_path / "out")
    rule = tmp_path / "rules" / "mentions_pizza.yaml"
    rule.parent.mkdir()
    rule.write_text(
        "name: greets_first\n"
        "description: The chatbot speaks first\n"
        "active: True\n"
        "conversations: 1\n"
        "oracle: turns[0].role == 'assistant'\n",
        encoding="utf-8",
    )
    result = start("check", CheckSettings(rules=[rule.parent], run=tmp_path / "out")).result
    (rule_result,) = result.report.results
    assert (rule_result.counts.passed, rule_result.counts.fail) == (1, 2)
    assert result.stored is not None and result.stored.parent.name == "verdicts"


def test_one_dialogue_file_gets_its_dialogue_id(runs: Path) -> None:
    record = import_chatchecker(runs / RUN / PERSONA / "dialogue_2.yaml")
    assert record.id == f"{PERSONA}_dialogue_2" and record.profile == PERSONA


def test_a_max_turns_dialogue_records_the_loop_limit(runs: Path, tmp_path: Path) -> None:
    path = tmp_path / "dialogue_1.yaml"
    data = yaml.safe_load((runs / RUN / PERSONA / "dialogue_1.yaml").read_text())
    _dump(path, {**data, "finish_reason": "max_turns_reached"})
    record = import_chatchecker(path)
    assert record.finish_reason is FinishReason.MAX_TURNS_REACHED
    assert [e.code for e in record.errors] == [ErrorCode.EXCEEDED_LOOP_LIMIT]


def test_a_bad_dialogue_names_file_line_and_key(runs: Path, tmp_path: Path) -> None:
    path = runs / RUN / PERSONA / "dialogue_1.yaml"
    path.write_text(path.read_text().replace("role: user", "role: customer", 1))
    with pytest.raises(ConfigError) as info:
        start("import-chatchecker", ImportChatCheckerSettings(source=runs), tmp_path / "out")
    (problem,) = info.value.problems
    assert problem.file == str(path) and problem.key == "chat_history[1].role"
    assert problem.line == 13


def test_a_folder_without_dialogues_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(UserInputError, match="no ChatChecker dialogue files"):
        start(
            "import-chatchecker",
            ImportChatCheckerSettings(source=tmp_path / "empty"),
            tmp_path / "o",
        )


def test_the_cli_command(runs: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["import-chatchecker", str(runs), "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 0, result.output
    assert "Imported 3 conversations" in result.output
