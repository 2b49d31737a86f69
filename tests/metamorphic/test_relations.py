"""The relations on a hand-worked story: answerability per round decides MR1 or MR2."""

from __future__ import annotations

from datetime import date

from mt_fixtures import anna_analysis

from sparring.metamorphic import FollowUp, Similarity, check_follow_up, typed_values

SIMILARITY = Similarity("tf-idf", 0.25)
SOURCE_REPLIES = ["Anna has a red bike.", "It is red.", "She rides it to school."]


def follow_up(order: list[int], perturbation: str = "drs") -> FollowUp:
    questions = [anna_analysis().rounds[i].question for i in order]
    return FollowUp(
        id="anna@x", seed="anna", perturbation=perturbation, order=order, questions=questions
    )


def test_hand_worked_answerability_per_round() -> None:
    verdicts = anna_analysis().follow_up([2, 0, 1])
    assert [v.answerable for v in verdicts] == [False, True, True]
    assert verdicts[0].missing == ["anna", "bike"]
    assert verdicts[1].self_contained and not verdicts[2].self_contained
    reduced = anna_analysis().follow_up([1, 2])
    assert [v.answerable for v in reduced] == [False, False]


def test_a_context_aware_bot_keeps_every_relation() -> None:
    replies = ["Sorry, who is she and what is it?", "Anna has a red bike.", "It is red."]
    checks = check_follow_up(
        follow_up([2, 0, 1]), anna_analysis(), SOURCE_REPLIES, replies, SIMILARITY
    )
    assert [(c.relation, c.position, c.passed) for c in checks] == [
        ("MR2", 0, True),
        ("MR1", 1, True),
        ("MR1", 2, True),
    ]


def test_a_bot_answering_without_context_violates_mr2() -> None:
    replies = ["She rides it to school.", "Anna has a red bike.", "It is red."]
    checks = check_follow_up(
        follow_up([2, 0, 1]), anna_analysis(), SOURCE_REPLIES, replies, SIMILARITY
    )
    bug = next(c for c in checks if not c.passed)
    assert (bug.relation, bug.position, bug.source_round) == ("MR2", 0, 2)
    assert bug.similarity == 1.0 and bug.severity == "high"
    assert bug.source_answerable and not bug.answerable
    assert "tf-idf" in bug.reason


def test_a_changed_reply_with_kept_context_violates_mr1_with_levels() -> None:
    replies = ["Anna has a red bike.", "Green, I think.", "She rides it to school."]
    gold = ["A red bike", "It is red", "To school"]
    checks = check_follow_up(
        follow_up([0, 1, 2], "typos"), anna_analysis(), SOURCE_REPLIES, replies, SIMILARITY, gold
    )
    bugs = [c for c in checks if not c.passed]
    assert [(b.relation, b.position, b.level) for b in bugs] == [("MR1", 1, "L1")]


def test_duplicates_give_mr3_and_mr4() -> None:
    # round 1 asked first without context (unanswerable), then twice after round 0
    order = [1, 0, 1, 1]
    consistent = ["Which thing do you mean?", "Anna has a red bike.", "It is red.", "It is red."]
    checks = check_follow_up(
        follow_up(order, "dsd"), anna_analysis(), SOURCE_REPLIES, consistent, SIMILARITY
    )
    groups = [
        (c.relation, c.position, c.reference_position, c.passed)
        for c in checks
        if c.relation in ("MR3", "MR4")
    ]
    assert groups == [("MR4", 2, 0, True), ("MR3", 3, 2, True)]
    drifting = ["It is red.", "Anna has a red bike.", "It is red.", "Which thing do you mean?"]
    checks = check_follow_up(
        follow_up(order, "dsd"), anna_analysis(), SOURCE_REPLIES, drifting, SIMILARITY
    )
    failed = {c.relation for c in checks if not c.passed}
    assert {"MR3", "MR4"} <= failed


def test_missing_replies_are_not_checked() -> None:
    checks = check_follow_up(
        follow_up([0, 1, 2]),
        anna_analysis(),
        SOURCE_REPLIES,
        ["Anna has a red bike.", None, None],
        SIMILARITY,
    )
    assert [c.position for c in checks] == [0]


def test_exact_values_must_not_change_after_the_same_rounds() -> None:
    day = date(2025, 1, 1)
    assert typed_values("Total $12.50, order PZ-1234, call 555-123-4567 at 7pm", day) == {
        "money": ["12.50 USD"],
        "phone": ["555-123-4567"],
        "time": ["19:00:00"],
        "identifier format": ["AA-9999"],
    }
    source = ["Anna has a red bike.", "It is red.", "A large pizza costs $12.50, order PZ-1234."]
    same_context = ["Anna has a red bike.", "It is red.", "A large pizza costs $14.00, order 77."]
    order = [1, 0, 2]  # round 2 still comes after rounds 0 and 1
    checks = check_follow_up(
        follow_up(order),
        anna_analysis(),
        source,
        [same_context[i] for i in order],
        SIMILARITY,
        reference_date=day,
    )
    exact = [c for c in checks if c.relation == "EX"]
    assert len(exact) == 1 and not exact[0].passed
    assert "money" in exact[0].reason and "identifier format" in exact[0].reason
    moved = [2, 0, 1]  # round 2 first: another context, no exact relation
    checks = check_follow_up(
        follow_up(moved),
        anna_analysis(),
        source,
        [same_context[i] for i in moved],
        SIMILARITY,
        reference_date=day,
    )
    assert not [c for c in checks if c.relation == "EX"]


def test_rounds_whose_source_replies_vary_are_not_checked() -> None:
    replies = ["She rides it to school.", "Anna has a red bike.", "Blue."]
    checks = check_follow_up(
        follow_up([2, 0, 1]), anna_analysis(), SOURCE_REPLIES, replies, SIMILARITY, unstable={1, 2}
    )
    assert [(c.relation, c.source_round) for c in checks] == [("MR1", 0)]
