"""``sparring run`` never says PASS for a run that tested nothing beyond the greeting, and
generated profiles fail when the bot never reaches its confirmation (issue 20)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

from typer.testing import CliRunner

from sparring.cli import app
from sparring.conversations import ConversationRecord, Turn
from sparring.explore import ExplorationModel, Functionality, Parameter, coverage, read_coverage
from sparring.pipeline import EXPLORATION, RunJob, RunSettings
from sparring.report import RunView
from sparring.runner import start

HERE = Path(__file__).resolve().parent


class Parrot:
    """ALICE-like: answers every message with the same friendly line."""

    def greeting(self) -> dict[str, object]:
        return {"messages": []}

    def respond(self, text: str) -> dict[str, object]:
        return {"messages": ["Hi there!"]}


class Shop:
    """Offers two tasks; the order is confirmed with a price only while ``stock`` lasts
    (the exploration uses it up, the simulated conversations never get a confirmation)."""

    stock: ClassVar[int] = 0
    MENU: ClassVar[dict[str, object]] = {
        "messages": ["Welcome! What can I do for you?"],
        "buttons": [{"text": "Order a cake"}, {"text": "Opening hours"}],
    }

    def __init__(self) -> None:
        self.asked = False

    def greeting(self) -> dict[str, object]:
        return self.MENU

    def respond(self, text: str) -> dict[str, object]:
        said = text.lower()
        if "hours" in said:
            return {"messages": ["We are open from 9:00 to 17:00."]}
        if "cake" in said:
            self.asked = True
            return {
                "messages": ["Which cake would you like?"],
                "buttons": [{"text": "Chocolate"}, {"text": "Lemon"}],
            }
        if self.asked and said in ("chocolate", "lemon"):
            if Shop.stock > 0:
                Shop.stock -= 1
                return {"messages": [f"Done: one {said} cake. The total is 12.00 €."]}
            return {"messages": ["Which cake would you like?"]}
        return self.MENU


def _chatbot(tmp_path: Path, target: str) -> Path:
    path = tmp_path / "chatbot.yaml"
    config = {"connector": "python", "params": {"target": target, "path": str(HERE)}}
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


def test_a_bot_that_only_greets_is_no_verdict_with_the_next_step(tmp_path: Path) -> None:
    chatbot = _chatbot(tmp_path, "test_no_green_without_testing:Parrot")
    outcome = CliRunner().invoke(
        app, ["run", "--chatbot", str(chatbot), "--out", str(tmp_path / "r"), "--sessions", "3"]
    )
    assert outcome.exit_code == 3, outcome.output
    text = " ".join(outcome.output.split())
    assert "NO VERDICT: nothing tested beyond the greeting" in text
    assert "--model" in text and "--project" in text and "--docs" in text
    assert "note:" in text  # the model's note about --model, as explore prints it
    assert "PASS" not in text
    # nothing to simulate: the coverage and the report sit in the explore run
    explored = tmp_path / "r" / EXPLORATION
    saved = read_coverage(explored)
    assert saved is not None and saved.untested is not None
    view = RunView.open(explored)
    assert view.verdict.status == "no verdict"
    assert "nothing tested beyond the greeting" in view.verdict.reasons[0]
    assert (explored / "report" / "index.html").is_file()


def test_a_confirmation_the_conversations_never_reach_fails_the_run(tmp_path: Path) -> None:
    Shop.stock = 2  # enough for the exploration's two cakes, none for the conversations
    chatbot = _chatbot(tmp_path, "test_no_green_without_testing:Shop")
    result = start(
        RunJob(), RunSettings(chatbot=chatbot, sessions=6, turns=6), tmp_path / "run"
    ).result
    assert result.untested is None
    assert result.check is not None
    assert result.exit_code == 1, result.check.outcome
    # the offline user records the first failure it sees: the bot repeating its sold-out
    # reply, or the order never confirmed
    summary = result.check.outcome.summary
    assert "goal_not_completed" in summary or "repeated_reply" in summary, summary
    order = [r for r in result.simulation.store.iter_records()] if result.simulation else []
    unfinished = [r for r in order if "cake" in r.profile.lower()]
    assert unfinished and all(r.errors for r in unfinished)


def test_the_same_shop_with_stock_passes(tmp_path: Path) -> None:
    Shop.stock = 1000
    chatbot = _chatbot(tmp_path, "test_no_green_without_testing:Shop")
    result = start(
        RunJob(), RunSettings(chatbot=chatbot, sessions=6, turns=6), tmp_path / "run"
    ).result
    assert result.untested is None
    assert result.exit_code == 0, result.check.outcome if result.check else None
    assert result.coverage is not None and result.coverage.functionality_share == 1.0


def test_a_free_text_cafe_is_tested_beyond_the_greeting(tmp_path: Path) -> None:
    config = {
        "connector": "python",
        "params": {"target": "cafe_bot:CafeBot", "path": str(HERE.parent / "explore")},
    }
    chatbot = tmp_path / "cafe.yaml"
    chatbot.write_text(json.dumps(config), encoding="utf-8")
    result = start(RunJob(), RunSettings(chatbot=chatbot), tmp_path / "run").result
    assert result.untested is None and result.exit_code == 0
    assert result.coverage is not None and result.coverage.functionality_share == 1.0
    assert {"menu", "opening_hours", "order_a_drink"} <= result.coverage.covered_ids


def _record(*turns: tuple[str, str]) -> ConversationRecord:
    return ConversationRecord(
        id="c/0",
        profile="p",
        simulator="agenda",
        turns=[Turn(role=role, text=text) for role, text in turns],  # type: ignore[arg-type]
    )


def test_coverage_counts_completed_functionalities_not_mentioned_ones() -> None:
    model = ExplorationModel(
        greeting="Welcome! What can I do for you?",
        functionalities=[
            Functionality(id="greeting", name="greeting", description="Welcome!"),
            Functionality(
                id="order",
                name="order",
                description="Which cake would you like?",
                utterances=["Order a cake"],
                parameters=[Parameter(name="cake", question="Which cake would you like?")],
            ),
            Functionality(
                id="hours",
                name="hours",
                description="We are open from 9:00 to 17:00.",
                utterances=["Opening hours"],
            ),
        ],
    )
    mentioned = _record(("user", "Order a cake"), ("assistant", "Sorry?"))
    measured = coverage(model, [mentioned])
    assert measured.covered_ids == set()
    assert measured.functionality_share == 0.0  # of the two beyond the greeting
    assert measured.untested is not None and "none of the 1 conversations" in measured.untested
    done = _record(("user", "Opening hours"), ("assistant", "We are open from 9:00 to 17:00."))
    measured = coverage(model, [mentioned, done])
    assert measured.covered_ids == {"hours"} and measured.functionality_share == 0.5
    assert measured.untested is None
    assert next(f for f in measured.functionalities if f.id == "greeting").greeting


def test_a_step_passed_on_the_way_to_a_completed_one_is_covered() -> None:
    """The user gave the day before the bot asked it: "What day?" never came, yet the
    booking's confirmation (a later step) was reached, so the day step was passed."""
    model = ExplorationModel(
        greeting="Hello!",
        functionalities=[
            Functionality(id="book", name="book", description="Which room would you like?"),
            Functionality(
                id="day",
                name="day",
                description="We are closed on Sundays.",
                parents=["book"],
                parameters=[Parameter(name="day", question="Which day will you arrive?")],
            ),
            Functionality(
                id="done", name="done", description="Your room is booked.", parents=["day"]
            ),
            Functionality(id="hours", name="hours", description="We are open from 9 to 5."),
        ],
    )
    booked = _record(
        ("user", "Book a double room"),
        ("assistant", "Which room would you like?"),
        ("user", "Double, on Monday"),
        ("assistant", "Your room is booked."),
    )
    measured = coverage(model, [booked])
    assert measured.covered_ids == {"book", "day", "done"}
    assert measured.functionality_share == 0.75  # the opening hours were never reached
    asked = next(f for f in measured.functionalities if f.id == "day").parameters[0]
    assert not asked.covered  # its question was never asked
