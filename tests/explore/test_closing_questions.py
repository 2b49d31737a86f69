"""A closing question ("Can I help with anything else?") or a pleasantry ("How are you?")
is never a functionality, a parameter or a goal (issue 31): the dialogue acts decide
(``sparring.dialogue_acts.is_closing_question``), not a list of one bot's sentences."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from sparring.connectors import Reply
from sparring.dialogue_acts import is_closing_question
from sparring.explore import ExploreJob, ExploreSettings
from sparring.explore._options import read_offer
from sparring.runner import start

HERE = Path(__file__).resolve().parent


class LibraryBot:
    """Renews loans and tells the opening hours; ends each task with an offer of more help."""

    def __init__(self) -> None:
        self.renewing = False

    def greeting(self) -> dict[str, object]:
        return {
            "messages": ["Hello, how are you? I can renew a loan or tell you our opening hours."]
        }

    def respond(self, text: str) -> dict[str, object]:
        said = text.lower()
        if re.search(r"\b(?:no|bye|nothing)\b", said):
            self.renewing = False
            return {"messages": ["Goodbye, happy reading!"]}
        if "renew" in said:
            self.renewing = True
            return {"messages": ["Which book would you like to renew?"]}
        if self.renewing:
            self.renewing = False
            return {
                "messages": [
                    f"Done: {text.strip()} is renewed until 12 May. Can I help with anything else?"
                ]
            }
        if "hours" in said or "open" in said:
            return {"messages": ["We open from 9:00 to 20:00. Is there anything else?"]}
        return {"messages": ["Sorry, I did not understand. I can renew a loan or give our hours."]}


def _chatbot(tmp_path: Path) -> Path:
    path = tmp_path / "library.yaml"
    target = "test_closing_questions:LibraryBot"
    path.write_text(
        json.dumps({"connector": "python", "params": {"target": target, "path": str(HERE)}})
    )
    return path


@pytest.mark.parametrize(
    "sentence",
    [
        "Anything else I can do for you?",
        "Can I help with anything else?",
        "Is there anything else?",
        "Do you have any other questions?",
        "How else can I help?",
        "How are you?",
    ],
)
def test_closing_questions_and_pleasantries(sentence: str) -> None:
    assert is_closing_question(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Which book would you like to renew?",
        "What date would you like to check in?",
        "Would you like anything else: a drink or a dessert?",
        "Anything else.",  # no question
    ],
)
def test_questions_that_ask_for_a_value_are_not_closing(sentence: str) -> None:
    assert not is_closing_question(sentence)


def test_a_confirmation_ending_with_an_offer_of_help_asks_nothing() -> None:
    offer = read_offer(Reply(messages=["Booked for Ann. Anything else I can do for you?"]))
    assert offer.question == "Booked for Ann."
    asking = read_offer(Reply(messages=["Booked. Anything else? What name should it be under?"]))
    assert asking.question == "What name should it be under?"


def test_exploration_makes_no_task_parameter_or_goal_of_a_closing_question(tmp_path: Path) -> None:
    settings = ExploreSettings(chatbot=_chatbot(tmp_path), graph_formats=[], sessions=8, turns=8)
    result = start(ExploreJob(), settings, tmp_path / "run").result
    model = result.model
    names = [f.id for f in model.functionalities]
    parameters = [p.name for f in model.functionalities for p in f.parameters]
    assert any(p == "book" for p in parameters), parameters  # the real question is kept
    closing = re.compile(r"else|anything|help|how_are|you", re.I)
    assert not [n for n in names if closing.search(n)], names
    assert not [p for p in parameters if closing.search(p)], parameters
    written = " ".join(p.text for p in result.profiles)
    assert "{{else}}" not in written and "{{anything}}" not in written
