"""``sparring run``: explore → profiles → simulate → check → coverage, on the in-process
pizzeria, from Python and from the command line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sparring.cli import app
from sparring.conversations import RunStore
from sparring.explore import read_coverage
from sparring.pipeline import EXPLORATION, RunJob, RunSettings
from sparring.runner import start
from tests.explore.conftest import pizza_chatbot_yaml


def test_a_run_tests_the_pizzeria_end_to_end(tmp_path: Path) -> None:
    chatbot = pizza_chatbot_yaml(tmp_path, "text")
    run = start(RunJob(), RunSettings(chatbot=chatbot, sessions=20, turns=10), tmp_path / "run")
    result, root = run.result, tmp_path / "run"
    # the exploration is a run of its own; the tested run keeps the model and profiles
    assert RunStore.open(root / EXPLORATION).manifest.job == "explore"
    assert (root / "explore" / "model.json").is_file()
    profiles = sorted((root / "explore" / "profiles").glob("*.yaml"))
    assert len(profiles) == len(result.exploration.profiles) >= 3
    store = RunStore.open(root)
    assert store.manifest.job == "run" and store.manifest.status == "finished"
    assert store.manifest.outcome == result.outcome  # stored: the report reads it
    assert len(store.manifest.planned) == len(store) and store.manifest.profiles
    assert run.report == root / "report" / "index.html" and run.report.is_file()
    assert {r.profile for r in store.iter_records()} >= {"prices", "opening hours"}
    assert result.check is not None
    names = {r.rule for r in result.check.report.results}
    assert {"no_repeated_answers", "replies_in_user_language", "no_empty_buttons_or_links"} <= names
    assert {"confirmation_mismatch", "task_completed"} <= names
    assert result.exit_code == result.check.outcome.code == 0
    saved = read_coverage(root)
    assert saved is not None and saved == result.coverage
    assert saved.functionality_share == 1.0
    assert {f.id for f in saved.functionalities if f.covered} >= {"prices", "choose_size"}
    size = next(f for f in saved.functionalities if f.id == "choose_size").parameters[0]
    assert size.covered and set(size.covered_options) <= {"Small", "Medium", "Large"}


class _Rude:
    """A pizzeria that offers a button with an empty link (the default rules catch it)."""

    START = ("Menu", "Hours", " ")

    def greeting(self) -> dict[str, object]:
        return {"messages": ["Hi! Pick one:"], "buttons": [{"text": t} for t in self.START]}

    def respond(self, text: str) -> dict[str, object]:
        if "menu" in text.lower():
            return {
                "messages": ["We sell pizza for 9.00 €."],
                "buttons": [{"text": "Order", "link": " "}],
            }
        if "hours" in text.lower():
            return {"messages": ["We open at 12:00 every day."]}
        return self.greeting()


def test_the_cli_fails_a_bot_that_breaks_a_default_rule(tmp_path: Path) -> None:
    chatbot = tmp_path / "rude.yaml"
    chatbot.write_text(
        json.dumps(
            {
                "connector": "python",
                "params": {"target": "test_run_job:_Rude", "path": str(Path(__file__).parent)},
            }
        )
    )
    outcome = CliRunner().invoke(
        app, ["run", "--chatbot", str(chatbot), "--out", str(tmp_path / "r")]
    )
    assert outcome.exit_code == 1, outcome.output
    assert "no_empty_buttons_or_links" in outcome.output
    assert "coverage" in outcome.output
    # the console says why: the first failures, each with its conversation, before FAIL
    why = outcome.output[outcome.output.index("first failures") : outcome.output.index("FAIL:")]
    failures = [line for line in why.splitlines() if "✗" in line]
    assert failures and all("no_empty_buttons_or_links" in line for line in failures)
    assert all(re.search(r"\S+/\d+", line) for line in failures)  # a conversation id


def test_a_run_does_not_overwrite_an_earlier_one(tmp_path: Path) -> None:
    chatbot = pizza_chatbot_yaml(tmp_path, "buttons")
    start(RunJob(), RunSettings(chatbot=chatbot, sessions=2, turns=4), tmp_path / "run")
    from sparring.errors import UserInputError

    with pytest.raises(UserInputError, match="already holds a run"):
        start(RunJob(), RunSettings(chatbot=chatbot, sessions=2, turns=4), tmp_path / "run")
