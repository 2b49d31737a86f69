"""``sparring validate`` and ``sparring schema``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import BaseModel
from typer.testing import CliRunner

from sparring.cli import app
from sparring.schemas import json_schema, register_schema, schema_names

runner = CliRunner()

GOOD = """\
user:
  role: r
  goals:
    - "a {{size}} pizza"
    - size: {function: random(), type: string, data: [s, m]}
  context: [{personality: personalities/rude-user.yml}]
chatbot: {fallback: f}
conversation: {number: 1, goal_style: {steps: 2}}
"""


def test_validate_prints_ok_per_file(write: Callable[..., Path]) -> None:
    first, second = write(GOOD, "a.yml"), write(GOOD, "b.yml")
    result = runner.invoke(app, ["validate", str(first), str(second)])
    assert result.exit_code == 0, result.output
    assert f"OK profile {first}" in result.stdout and f"OK profile {second}" in result.stdout


def test_validate_reports_every_problem_and_exits_2(
    write: Callable[..., Path], tmp_path: Path
) -> None:
    write(GOOD, "profiles/good.yml")
    write(GOOD.replace("random()", "randm()").replace("steps: 2", "stepz: 2"), "profiles/bad.yml")
    write("context: [x]\n", "profiles/personalities/mine.yml")  # not a profile: skipped
    result = runner.invoke(app, ["validate", str(tmp_path / "profiles")])
    assert result.exit_code == 2
    assert "OK" in result.stdout and "good.yml" in result.stdout
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 2
    assert any(
        "[user.goals[1].size.function]" in e and "did you mean random()" in e for e in errors
    )
    assert any("[conversation.goal_style.stepz]" in e for e in errors)
    assert "mine.yml" not in result.output


def test_validate_shows_warnings_without_failing(write: Callable[..., Path]) -> None:
    path = write(GOOD.replace("goals:", "ask_about:"))
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 0
    assert "warning:" in result.stderr and "ask_about" in result.stderr


def test_validate_missing_path_and_empty_folder(tmp_path: Path) -> None:
    missing = runner.invoke(app, ["validate", str(tmp_path / "nope.yml")])
    assert missing.exit_code == 2 and "cannot read file" in missing.stderr
    (tmp_path / "empty").mkdir()
    with pytest.raises(Exception, match="no YAML files found"):
        runner.invoke(app, ["validate", str(tmp_path / "empty")], catch_exceptions=False)


def test_schema_profile_is_json_schema() -> None:
    result = runner.invoke(app, ["schema", "profile"])
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    assert schema["$schema"].startswith("https://json-schema.org/")
    assert set(schema["required"]) == {"user", "chatbot", "conversation"}
    llm = schema["$defs"]["LlmSettings"]["properties"]
    assert "model_prov" in llm  # SENSEI's key names, not our attribute names
    goal_style = schema["$defs"]["GoalStyle"]["properties"]
    assert "random steps" in goal_style


@pytest.mark.usefixtures("registries")
def test_schema_registry_accepts_other_formats() -> None:
    class Rules(BaseModel):
        rule: str

    register_schema("test-rules", Rules)
    register_schema("test-callable", lambda: {"type": "object", "title": "custom"})
    assert {"profile", "test-rules", "test-callable"} <= set(schema_names())
    assert json_schema("test-rules")["properties"]["rule"]["type"] == "string"
    assert runner.invoke(app, ["schema", "test-callable"]).stdout.count('"custom"') == 1
    with pytest.raises(Exception, match=r"no schema named 'nonsense'; known: .*profile"):
        json_schema("nonsense")
