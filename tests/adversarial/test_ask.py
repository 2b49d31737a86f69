"""``sparring adversarial ask`` and the ``adversarial test`` command line: an answer from
the stored results with a model, exit 2 naming ``--model`` without one."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from sparring.adversarial import AdversarialTestJob, AdversarialTestSettings, ask_async
from sparring.adversarial._analysis import ASK_ROLE
from sparring.cli import app
from sparring.errors import ModelRequired
from sparring.llm import ScriptedModel
from sparring.runner import start

from .test_threads import responder, write_inputs

runner = CliRunner()


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp_path = tmp_path_factory.mktemp("ask")
    chatbot, weaknesses = write_inputs(tmp_path)
    settings = AdversarialTestSettings(
        chatbot=chatbot, weaknesses=weaknesses, model="scripted", rounds=1
    )
    start(AdversarialTestJob(model=ScriptedModel(responder)), settings, tmp_path / "run")
    return tmp_path / "run"


async def test_ask_answers_from_the_stored_results(run_dir: Path) -> None:
    model = ScriptedModel(responder)
    answer = await ask_async(run_dir, "Which weakness scored lowest?", model)
    assert answer == "unavailable-topping scored lowest (1.0) in every round."
    [messages] = model.requests
    assert messages[0]["content"].startswith(ASK_ROLE)
    context = messages[1]["content"]
    assert "Weakness unavailable-topping" in context and "mean score: 1.0" in context
    assert "conversation unavailable-topping/round-1" in context
    assert "Executive summary: The bot leaks nothing" in context
    assert messages[2]["content"] == "Question: Which weakness scored lowest?"


async def test_ask_without_a_model_says_one_is_needed(run_dir: Path) -> None:
    with pytest.raises(ModelRequired, match="--model"):
        await ask_async(run_dir, "Why?", None)


def test_the_ask_command(run_dir: Path, tmp_path: Path) -> None:
    script = tmp_path / "script.yaml"
    script.write_text(yaml.safe_dump({"replies": ["borderline converged after one test."]}))
    result = runner.invoke(
        app,
        ["adversarial", "ask", str(run_dir), "What converged?", "--model", f"scripted:{script}"],
    )
    assert result.exit_code == 0, result.output
    assert "borderline converged after one test." in result.output
    offline = runner.invoke(app, ["adversarial", "ask", str(run_dir), "What converged?"])
    assert offline.exit_code == 2 and "--model" in offline.output


def test_the_test_command_without_a_model_stops_before_any_work(tmp_path: Path) -> None:
    chatbot, weaknesses = write_inputs(tmp_path)
    out = tmp_path / "run"
    result = runner.invoke(
        app,
        ["adversarial", "test", "--chatbot", str(chatbot), "--weaknesses", str(weaknesses),
         "--out", str(out)],
        env={"SPARRING_MODEL": ""},
    )  # fmt: skip
    assert result.exit_code == 2
    assert "--model" in result.output and "adversarial testing" in result.output
    assert not out.exists()
