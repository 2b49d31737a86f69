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


def test_a_step_the_chatbot_refused_though_it_offered_it_fails_named(tmp_path: Path) -> None:
    offered = [*TABLE[:3], ("assistant", "Which day: friday or saturday?"), ("user", "friday")]
    refused = booking(
        [
            *offered,
            ("assistant", "Sorry, I didn't understand that."),
            ("user", "on friday please"),
            ("assistant", "Sorry, I didn't understand that."),
        ]
    )
    status, why = judged(tmp_path, refused)
    assert status == "fail"
    assert "step 'on {{day}}' (turn 4): not taken" in why and "didn't understand" in why


def test_a_stop_the_chatbot_is_not_shown_guilty_of_is_unscored_naming_the_step(
    tmp_path: Path,
) -> None:
    # "friday" was the profile's, not offered: refusing it may be right
    made_up = booking([*TABLE, ("assistant", "Sorry, I didn't understand that.")])
    status, why = judged(tmp_path, made_up)
    assert status == "unscored" and "step 'on {{day}}' (turn 4): not taken" in why
    # the user never got to a step
    lost = booking(TABLE[:2])
    status, why = judged(tmp_path, lost)
    assert status == "unscored" and "step 'for {{people}} people': the user never gave" in why
    # the chatbot asks for more than the profile holds
    more = booking([*TABLE, ("assistant", "And under what name?")])
    status, why = judged(tmp_path, more)
    assert status == "unscored" and "no confirmation or answer after turn 4" in why


def test_a_chatbot_that_stops_replying_fails(tmp_path: Path) -> None:
    status, why = judged(tmp_path, booking(TABLE))
    assert status == "fail" and why.endswith("no reply followed")


def test_a_question_answered_passes_and_one_unanswered_fails(tmp_path: Path) -> None:
    asked = [("user", "When do you open?")]
    answered = record("q", turns=[*asked, ("assistant", "We open at 19:00 every evening.")])
    answered.goal_templates = ["when do you open?"]
    assert judged(tmp_path, answered)[0] == "pass"
    unanswered = record("q", turns=asked)
    unanswered.goal_templates = ["when do you open?"]
    status, why = judged(tmp_path, unanswered)
    assert status == "fail" and why.startswith("no confirmation or answer after turn 0")


def test_a_conversation_without_goals_is_not_applicable(tmp_path: Path) -> None:
    assert judged(tmp_path, record("free"))[0] == "not_applicable"


def test_a_value_in_the_chatbots_own_words_that_it_refused_fails(tmp_path: Path) -> None:
    """ "friday" refused is unscored (the profile's word); refused while the chatbot wrote it
    itself in a confirmation (``stated``, case-insensitive) it is the chatbot's fault."""
    refused = booking([*TABLE, ("assistant", "Sorry, I didn't understand that.")])
    rule = RULE.replace("task_steps_missing()", 'task_steps_missing(["Friday"])')
    (tmp_path / "task.yaml").write_text(rule, encoding="utf-8")
    (result,) = check(load_rules([tmp_path / "task.yaml"]), [refused]).results
    (verdict,) = result.verdicts
    assert verdict.status == "fail"
    assert "'friday' is in the chatbot's own words" in (verdict.message or "")
    other = RULE.replace("task_steps_missing()", 'task_steps_missing(["saturday"])')
    (tmp_path / "task.yaml").write_text(other, encoding="utf-8")
    (result,) = check(load_rules([tmp_path / "task.yaml"]), [refused]).results
    assert result.verdicts[0].status == "unscored"
