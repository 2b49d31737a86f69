"""The answer-type oracle (``answer_type_missing``): a question for a time of day or an
amount of money gets a reply that carries one, or at least speaks of what was asked —
on replies of three domains (a bank, a dental clinic, a hotel)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sparring.check import check, load_rules
from sparring.conversations import ConversationRecord, Turn

RULE = """
name: answers_carry_the_asked_type
oracle: not answer_type_missing()
yields: '"; ".join(answer_type_missing())'
"""
CARD = (
    "If your card is lost or stolen, freeze it in the app, or call us 24/7 on 0800 123 456. "
    "A replacement arrives in 3 to 5 working days."
)


def judged(tmp_path: Path, question: str, reply: str) -> tuple[str, str]:
    said = [Turn(role="user", text=question), Turn(role="assistant", text=reply)]
    record = ConversationRecord(id="c", profile="p", turns=said)
    (tmp_path / "rule.yaml").write_text(RULE, encoding="utf-8")
    (result,) = check(load_rules([tmp_path / "rule.yaml"]), [record]).results
    (verdict,) = result.verdicts
    return verdict.status, verdict.message or verdict.reason or ""


@pytest.mark.parametrize(
    ("question", "reply"),
    [
        ("What are your opening hours?", "Our branches are open Monday to Friday, 9:00–16:30."),
        ("When is the clinic open?", "We're open from 9 am to 5 pm, and until noon on Saturdays."),
        ("How much does a filling cost?", "A filling costs €80."),
        ("What does the room cost?", "A single room costs $80 per night, a double $120."),
        ("Any fees for transfers?", "Transfers within the euro area are free."),
    ],
)
def test_a_reply_with_a_value_of_the_asked_type_passes(
    tmp_path: Path, question: str, reply: str
) -> None:
    assert judged(tmp_path, question, reply)[0] == "pass"


@pytest.mark.parametrize(
    ("question", "reply", "kind"),
    [
        ("What are your opening hours?", CARD, "time"),
        (
            "How much is a night in a suite?",
            "Check-in is at the front desk on the ground floor.",
            "money",
        ),
    ],
)
def test_a_reply_about_something_else_fails_quoting_both(
    tmp_path: Path, question: str, reply: str, kind: str
) -> None:
    status, why = judged(tmp_path, question, reply)
    assert status == "fail"
    assert f"which expects a {kind}" in why and repr(question) in why and reply[:20] in why


def test_a_reply_on_the_topic_without_a_value_it_can_read_is_unscored(tmp_path: Path) -> None:
    status, why = judged(tmp_path, "What are your opening hours?", "We are open every day.")
    assert status == "unscored" and "about the topic" in why


@pytest.mark.parametrize(
    ("question", "reply"),
    [
        # the chatbot fell back, asked back or said it does not know: nothing answered
        ("What are your opening hours?", "Sorry, I didn't understand that. Could you rephrase?"),
        ("How much does it cost?", "Which treatment would you like the price of?"),
        ("What time is it where you are?", "I don't know."),
        # no question of a known type
        ("I can't believe how much that storm rained on everything.", CARD),
        ("Where is the clinic?", CARD),
    ],
)
def test_nothing_to_judge_is_not_applicable(tmp_path: Path, question: str, reply: str) -> None:
    assert judged(tmp_path, question, reply)[0] == "not_applicable"
