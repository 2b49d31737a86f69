"""The relations on a hand-worked story: answerability per round decides MR1 or MR2."""

from __future__ import annotations

from datetime import date

from mt_fixtures import anna_analysis

from sparring.metamorphic import FollowUp, Similarity, check_follow_up, typed_values
from sparring.metamorphic._judge import _varied_rounds
from sparring.metamorphic._relations import is_social, severity
from sparring.metamorphic._volatile import mask_volatile

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
    }  # the order number is an identifier: a new order may get a new one
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
    assert "money" in exact[0].reason and "PZ" not in exact[0].reason
    assert exact[0].severity == "high" and "changed after the same rounds" in str(
        exact[0].severity_reason
    )
    varying = check_follow_up(
        follow_up(order),
        anna_analysis(),
        source,
        [same_context[i] for i in order],
        SIMILARITY,
        reference_date=day,
        varying={2: {"money"}},  # the total already differed between the source replays
    )
    assert not [c for c in varying if c.relation == "EX"]
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


def test_identifiers_random_ids_and_timestamps_are_masked_in_every_comparison() -> None:
    assert mask_volatile("Order C-7 placed at 17:01:21, receipt 538453d7.") == (
        "Order <id> placed at <timestamp>, receipt <id>."
    )
    assert mask_volatile("Your order number is 1234, total $12.50") == (
        "Your order number is <id>, total $12.50"
    )
    assert SIMILARITY("Order C-7 is in the oven.", "Order C-13 is in the oven.") == 1.0
    assert SIMILARITY("Order C-7 is in the oven.", "Sorry?") < SIMILARITY.threshold


def test_a_violation_says_why_it_has_its_severity() -> None:
    level, why = severity(0.05, 0.25, must_match=True)
    assert level == "high" and "80% of the way below the threshold 0.25" in why


def test_greetings_thanks_and_farewells_ask_for_nothing() -> None:
    for social in ("Hello", "Hi there!", "Thanks a lot", "Goodbye", "ok thanks"):
        assert is_social(social), social
    for question in (
        "Hello, what is the capital of Spain?",
        "What is your name?",
        "Hi I want a pizza",
    ):
        assert not is_social(question), question


def test_a_round_replayed_in_the_same_context_with_another_reply_is_seen_as_random() -> None:
    questions = [r.question for r in anna_analysis().rounds]
    same_start = follow_up([0, 1, 2, 1], perturbation="drd")  # rounds 0-2 as in the source
    random_reply = ["Well, well. Ask me later.", "It is red.", "To school.", "Red."]
    assert _varied_rounds(same_start, questions, SOURCE_REPLIES, random_reply, SIMILARITY) == [0]
    moved = follow_up([1, 0, 2])  # another context from the first round: nothing learned
    assert _varied_rounds(moved, questions, SOURCE_REPLIES, ["?", "?", "?"], SIMILARITY) == []
