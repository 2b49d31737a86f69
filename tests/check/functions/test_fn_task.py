"""The task-completion judge (``task_steps_missing``): the conversation reached the
chatbot's confirmation or answer, or the failure names the step that did not happen."""

from __future__ import annotations

from pathlib import Path

from sparring.check import check, load_rules
from sparring.conversations import ConversationRecord, Turn

RULE = """
name: task_completed
oracle: not task_steps_missing()
yields: '"; ".join(task_steps_missing())'
"""
GOALS = ["book a table", "for {{people}} people", "on {{day}}"]
TABLE = [
    ("user", "I want to book a table"),
    ("assistant", "For how many people?"),
    ("user", "4"),
    ("assistant", "Which day?"),
    ("user", "friday"),
]


def record(
    id: str, *, turns: list[tuple[str, str]] | None = None, variables: dict[str, str] | None = None
) -> ConversationRecord:
    said = [Turn(role=role, text=text) for role, text in turns or []]  # type: ignore[arg-type]
    return ConversationRecord(id=id, profile="p", turns=said, variables=variables or {})


def booking(turns: list[tuple[str, str]], **variables: str) -> ConversationRecord:
    made = record("c", turns=turns, variables=variables or {"people": "4", "day": "friday"})
    made.goal_templates = list(GOALS)
    return made


def judged(tmp_path: Path, conversation: ConversationRecord) -> tuple[str, str]:
    (tmp_path / "task.yaml").write_text(RULE, encoding="utf-8")
    (result,) = check(load_rules([tmp_path / "task.yaml"]), [conversation]).results
    (verdict,) = result.verdicts
    return verdict.status, verdict.message or verdict.reason or ""


def test_a_task_that_reaches_the_confirmation_passes(tmp_path: Path) -> None:
    done = booking([*TABLE, ("assistant", "Booked a table for 4 people on Friday.")])
    assert judged(tmp_path, done)[0] == "pass"


def test_a_step_the_chatbot_never_took_is_named(tmp_path: Path) -> None:
    refused = booking(
        [
            *TABLE,
            ("assistant", "Sorry, I didn't understand that."),
            ("user", "on friday please"),
            ("assistant", "Sorry, I didn't understand that."),
        ]
    )
    status, why = judged(tmp_path, refused)
    assert status == "fail"
    assert "step 'on {{day}}' (turn 4): not taken" in why and "didn't understand" in why


def test_a_step_the_user_never_got_to_is_named_with_the_last_reply(tmp_path: Path) -> None:
    stuck = booking([*TABLE[:3], ("assistant", "For how many people?")])
    status, why = judged(tmp_path, stuck)
    assert status == "fail"
    assert why.startswith("step 'for {{people}} people' (turn 2): not taken")
    lost = booking(TABLE[:2])
    assert judged(tmp_path, lost)[1].startswith("step 'for {{people}} people': the user never gave")


def test_a_question_answered_passes_and_one_unanswered_fails(tmp_path: Path) -> None:
    asked = [("user", "When do you open?")]
    answered = record("q", turns=[*asked, ("assistant", "We open at 19:00 every evening.")])
    answered.goal_templates = ["when do you open?"]
    assert judged(tmp_path, answered)[0] == "pass"
    unanswered = record("q", turns=[*asked, ("assistant", "Sorry, I did not understand.")])
    unanswered.goal_templates = ["when do you open?"]
    status, why = judged(tmp_path, unanswered)
    assert status == "fail" and why.startswith("no confirmation or answer after turn 0")


def test_a_conversation_without_goals_is_not_applicable(tmp_path: Path) -> None:
    assert judged(tmp_path, record("free"))[0] == "not_applicable"
