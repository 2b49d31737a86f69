"""Persona files (ChatChecker-style personas): loading, located errors, the offline
behaviour mapping, writing back, and a profile that names a persona."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sparring.cli import app
from sparring.errors import ConfigError
from sparring.profiles import (
    PersonaFile,
    dump_persona,
    load_persona_file,
    load_persona_files,
    load_profile,
)
from sparring.schemas import json_schema

PERSONA = """\
name: Rosa Delgado
type: challenging
gender: female
age: 67
background:
  - You live alone and order food by phone most days.
traits:
  openness: low
  conscientiousness: low
  extraversion: high
  neuroticism: high
interaction_style: You write long messages and often repeat yourself.
task: Order a large pizza with mushrooms for delivery tonight.
description: You are Rosa, a talkative retiree who is not at ease with computers.
"""


def write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_persona_file_loads_with_defaults(tmp_path: Path) -> None:
    persona = load_persona_file(write(tmp_path / "rosa.yaml", PERSONA))
    assert persona.name == "Rosa Delgado" and persona.type == "challenging"
    assert persona.interaction_style == ["You write long messages and often repeat yourself."]
    assert persona.traits.agreeableness == "medium"  # left out: medium
    assert persona.behaviours is None
    text = persona.prompt_text()
    assert text.startswith("You are Rosa") and "neuroticism high" in text
    assert "Your task: Order a large pizza" in text


def test_unknown_key_names_file_line_and_key(tmp_path: Path) -> None:
    path = write(tmp_path / "rosa.yaml", PERSONA.replace("age: 67", "age: 67\nhobby: chess"))
    with pytest.raises(ConfigError) as caught:
        load_persona_file(path)
    [problem] = caught.value.problems
    assert (problem.file, problem.line, problem.key) == (str(path), 5, "hobby")
    assert problem.message == "unknown key"
    assert str(problem) == f"{path}:5 [hobby]: unknown key"


def test_bad_values_and_missing_task_are_all_reported(tmp_path: Path) -> None:
    text = PERSONA.replace("  openness: low", "  openness: very").replace(
        "task: Order a large pizza with mushrooms for delivery tonight.\n", ""
    )
    path = write(tmp_path / "rosa.yaml", text + "behaviours: [typos, sulking]\n")
    with pytest.raises(ConfigError) as caught:
        load_persona_file(path)
    keys = {p.key: p.line for p in caught.value.problems}
    assert keys["traits.openness"] == 8
    assert keys["behaviours[1]"] == 14
    assert "task" in keys


def test_behaviours_are_derived_from_traits_and_style_unless_written(tmp_path: Path) -> None:
    persona = load_persona_file(write(tmp_path / "rosa.yaml", PERSONA))
    # conscientiousness low → typos; extraversion high → long turns; neuroticism high →
    # repeat_question; "repeat yourself" in the style → repeat_question too
    assert persona.offline_behaviours() == ["long_turns", "typos", "repeat_question"]
    written = persona.model_copy(update={"behaviours": ["short_turns", "change_goal"]})
    assert written.offline_behaviours() == ["short_turns", "change_goal"]
    none = persona.model_copy(update={"behaviours": []})
    assert none.offline_behaviours() == []
    calm = PersonaFile(name="Al", task="ask the hours", interaction_style=["short and curt"])
    assert calm.offline_behaviours() == ["short_turns"]


def test_dump_round_trips(tmp_path: Path) -> None:
    persona = load_persona_file(write(tmp_path / "rosa.yaml", PERSONA))
    again = write(tmp_path / "again.yaml", dump_persona(persona))
    assert load_persona_file(again) == persona
    assert "behaviours" not in again.read_text()


def test_folders_and_missing_files(tmp_path: Path) -> None:
    folder = tmp_path / "personas"
    folder.mkdir()
    write(folder / "b.yaml", PERSONA)
    write(folder / "a.yml", PERSONA.replace("Rosa Delgado", "Ana"))
    assert [p.name for _, p in load_persona_files([folder])] == ["Ana", "Rosa Delgado"]
    with pytest.raises(ConfigError, match="no such persona file"):
        load_persona_files([tmp_path / "nope.yaml"])


def test_schema_is_registered() -> None:
    schema = json_schema("persona")
    assert schema["additionalProperties"] is False
    assert {"name", "traits", "task", "behaviours"} <= set(schema["properties"])


PROFILE = """\
test_name: pizza
user:
  role: you order a pizza
  persona: {persona}
  goals:
    - a pizza
chatbot:
  is_starter: false
conversation:
  number: 1
  goal_style:
    steps: 3
"""


def test_profile_names_a_persona_file(tmp_path: Path) -> None:
    (tmp_path / "personas").mkdir()
    write(tmp_path / "personas" / "rosa.yaml", PERSONA)
    profile = load_profile(write(tmp_path / "p.yaml", PROFILE.format(persona="personas/rosa.yaml")))
    assert profile.persona_file is not None
    path, persona = profile.persona_file
    assert path == tmp_path / "personas" / "rosa.yaml" and persona.name == "Rosa Delgado"


def test_profile_naming_a_missing_or_bad_persona_is_located(tmp_path: Path) -> None:
    path = write(tmp_path / "p.yaml", PROFILE.format(persona="nope.yaml"))
    with pytest.raises(ConfigError) as caught:
        load_profile(path)
    [problem] = caught.value.problems
    assert (problem.line, problem.key) == (4, "user.persona")
    assert "persona file not found" in problem.message
    write(tmp_path / "bad.yaml", PERSONA + "mood: grumpy\n")
    with pytest.raises(ConfigError) as caught:
        load_profile(write(tmp_path / "p.yaml", PROFILE.format(persona="bad.yaml")))
    found = {(p.file, p.key) for p in caught.value.problems}
    assert (str(tmp_path / "p.yaml"), "user.persona") in found
    assert (str(tmp_path / "bad.yaml"), "mood") in found


def test_the_example_in_docs_loads(tmp_path: Path) -> None:
    doc = Path(__file__).resolve().parents[2] / "docs" / "personas.md"
    example = doc.read_text(encoding="utf-8").split("```yaml\n")[1].split("```")[0]
    persona = load_persona_file(write(tmp_path / "rosa.yaml", example))
    assert persona.offline_behaviours() == ["long_turns", "typos", "repeat_question"]


def test_validate_checks_persona_files(tmp_path: Path) -> None:
    good = write(tmp_path / "rosa.yaml", PERSONA)
    bad = write(tmp_path / "bad.yaml", "name: X\ntask: do it\nhobby: chess\n")
    result = CliRunner().invoke(app, ["validate", str(good), str(bad)])
    assert result.exit_code == 2
    assert f"OK persona {good}" in result.output.replace("\n", "")
    assert f"{bad}:3 [hobby]: unknown key" in result.output.replace("\n", "")
