"""``sparring personas generate`` on a local chatbot.yaml with the scripted model."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from sparring.cli import app
from sparring.errors import UserInputError
from sparring.profiles import load_persona_file

CHATBOT = Path(__file__).parents[1] / "simulate" / "data" / "chatbot.yaml"
runner = CliRunner()

PERSONA = {
    "name": "Ann Lee",
    "gender": "female",
    "age": 29,
    "background": ["You just moved to town."],
    "traits": {"openness": "high", "conscientiousness": "low", "extraversion": "medium",
               "agreeableness": "low", "neuroticism": "high"},
    "interaction_style": ["You are sarcastic and type fast."],
    "behaviours": ["typos", "change_goal"],
    "task": "Order the cheapest pizza with a drink.",
    "description": "You are Ann, new in town and hungry.",
}  # fmt: skip


def test_generate_challenging_personas_with_a_scripted_model(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    second = {**PERSONA, "name": "Bo Ek"}
    script.write_text(json.dumps({"replies": [{"personas": [PERSONA, second]}]}))
    out = tmp_path / "personas"
    result = runner.invoke(
        app,
        ["personas", "generate", "-c", str(CHATBOT), "--type", "challenging", "-n", "2",
         "--model", f"scripted:{script}", "--out", str(out)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    files = sorted(out.iterdir())
    assert [f.name for f in files] == ["challenging-ann-lee.yaml", "challenging-bo-ek.yaml"]
    persona = load_persona_file(files[0])
    assert persona.type == "challenging" and persona.behaviours == ["typos", "change_goal"]


def test_generate_without_a_model_stops_before_any_work(tmp_path: Path) -> None:
    out = tmp_path / "personas"
    result = runner.invoke(app, ["personas", "generate", "-c", str(CHATBOT), "-o", str(out)])
    assert isinstance(result.exception, UserInputError)
    assert "--model" in str(result.exception)
    assert not out.exists()


def test_tester_personas_offline_one_per_breakdown_type(tmp_path: Path) -> None:
    types = tmp_path / "types.yaml"
    types.write_text(
        "ignore_question: The chatbot ignores the user's question.\n"
        "repetition: The chatbot repeats itself.\n"
    )
    out = tmp_path / "testers"
    result = runner.invoke(
        app,
        ["personas", "generate", "-c", str(CHATBOT), "-t", "tester", "--breakdowns", str(types),
         "-o", str(out)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    names = sorted(f.name for f in out.iterdir())
    assert names == ["tester-ignore-question.yaml", "tester-repetition.yaml"]
    assert load_persona_file(out / names[0]).targets == "ignore_question"


def test_bad_breakdown_types_file_is_located(tmp_path: Path) -> None:
    types = tmp_path / "types.yaml"
    types.write_text("- name: repetition\n  describe: typo\n")
    result = runner.invoke(
        app,
        ["personas", "generate", "-c", str(CHATBOT), "-t", "tester", "--breakdowns", str(types)],
    )
    assert isinstance(result.exception, UserInputError)
    assert f"{types}:2 [[0].describe]: unknown key" in str(result.exception)
