"""Zero-config ``run`` checks that a question for a time or an amount gets one (the
generated rule ``answers_carry_the_asked_type``, check's ``answer_type_missing``): the bank
whose opening-hours question is answered with the lost-card text (``wrong_faq``) fails,
its correct variant and the dental clinic (prices, opening hours) pass it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sparring.runner import start
from tests import bots

RULE = "answers_carry_the_asked_type"


def _verdicts(name: str, bugs: list[str], tmp_path: Path) -> tuple[list[dict[str, str]], int]:
    chatbot = bots.python_chatbot(name, bugs, tmp_path)
    run = start("run", {"chatbot": chatbot, "seed": 1}, tmp_path / "run")
    verdicts = [
        v
        for path in (tmp_path / "run" / "verdicts").glob("*.json")
        for result in json.loads(path.read_text())["results"]
        if result["rule"] == RULE
        for v in result["verdicts"]
    ]
    return verdicts, run.outcome.exit_code


def test_a_faq_answered_with_another_topics_text_fails(tmp_path: Path) -> None:
    verdicts, code = _verdicts("bank", ["wrong_faq"], tmp_path)
    failed = [v for v in verdicts if v["status"] == "fail"]
    assert code == 1 and failed
    assert all("expects a time" in v["message"] and "card is lost" in v["message"] for v in failed)


@pytest.mark.parametrize("name", ["bank", "dental"])
def test_correct_faq_answers_pass(name: str, tmp_path: Path) -> None:
    verdicts, code = _verdicts(name, [], tmp_path)
    assert code == 0
    assert [v for v in verdicts if v["status"] == "pass"]  # some question was judged
    assert not [v for v in verdicts if v["status"] in ("fail", "unscored")]
