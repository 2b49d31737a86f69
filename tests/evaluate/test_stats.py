"""Dialogue statistics on hand-made records, with exact numbers: ChatChecker's columns."""

from __future__ import annotations

import pytest

from sparring.conversations import ConversationError, ConversationRecord, ModelUsage, Turn
from sparring.evaluate import CHATBOT_CRASH, ConversationBreakdowns, TurnBreakdown
from sparring.evaluate._ratings import ConversationRatings, DimensionRating
from sparring.evaluate._stats import (
    FiveNumbers,
    breakdown_stats,
    conversation_stats,
    five_numbers,
    mtld,
    run_stats,
    tokens,
)
from sparring.types import Strategy


def judged(turn: int, breakdown: bool | None, *types: str, cost: float = 0.0) -> TurnBreakdown:
    return TurnBreakdown(
        turn=turn,
        breakdown=breakdown,
        score=None if breakdown is None else (0.2 if breakdown else 0.8),
        error_types=list(types),
        detector="chatchecker",
        strategy=Strategy.LLM,
        usage=ModelUsage(calls=1, cost=cost),
    )


def conversation(id: str, *texts: str, profile: str = "p") -> ConversationRecord:
    turns = [Turn(role="user" if i % 2 == 0 else "assistant", text=t) for i, t in enumerate(texts)]
    return ConversationRecord(id=id, profile=profile, turns=turns)


def test_five_number_summaries_interpolate_linearly() -> None:
    assert five_numbers([4, 1, 3, 2]) == FiveNumbers(min=1, q1=1.75, median=2.5, q3=3.25, max=4)
    assert five_numbers([7]) == FiveNumbers(min=7, q1=7, median=7, q3=7, max=7)
    assert five_numbers([]) is None


def test_mtld_of_a_known_text() -> None:
    text = "The cat sat on the mat, and the dog sat on the log."
    words = tokens(text)
    assert len(words) == 13
    # Forward, the type-token ratio first falls below 0.72 at the 10th token ("sat": 7
    # types / 10 tokens = 0.70): one factor; the last 3 tokens (all new, TTR 1) add a
    # partial factor of (1 - 1) / (1 - 0.72) = 0, so MTLD = 13 / 1. Backward, the 10th token
    # ("on", 7/10) closes the factor and the rest adds 0 again: 13. Mean: 13.
    assert mtld(words) == pytest.approx(13.0)
    # Twelve times the same word: a factor at 10 tokens (TTR 0.1), then a partial factor
    # of (1 - 0.5) / 0.28 for the last two: 12 / (1 + 0.5 / 0.28).
    assert mtld(["yes"] * 12) == pytest.approx(12 / (1 + 0.5 / 0.28))
    assert mtld([]) is None


def test_conversation_columns() -> None:
    record = conversation(
        "c1",
        "The cat sat on the mat and",
        "Hello there friend",
        "the dog sat on the log",
        "",
    )
    record.errors = [ConversationError(code=500, message="empty", turn=3)]
    record.usage = {"user_simulator": ModelUsage(calls=2, cost=0.5)}
    breakdowns = ConversationBreakdowns(
        conversation="c1",
        detector="chatchecker",
        turns=[
            judged(1, True, "ignore question", "redundancy", cost=0.01),
            judged(3, True, CHATBOT_CRASH),
        ],
    )
    ratings = ConversationRatings(
        conversation="c1",
        ratings={"overall": DimensionRating(reasoning="meh", rating=2)},
        usage=ModelUsage(calls=1, cost=0.02),
    )
    stats = conversation_stats(record, breakdowns, ratings)
    assert (stats.user_turns, stats.chatbot_turns, stats.crashes) == (2, 2, 1)
    assert stats.user_words == FiveNumbers(min=6, q1=6.25, median=6.5, q3=6.75, max=7)
    assert stats.chatbot_words == FiveNumbers(min=0, q1=0.75, median=1.5, q3=2.25, max=3)
    assert stats.user_mtld == pytest.approx(13.0)
    assert stats.breakdowns is not None
    assert (stats.breakdowns.breakdowns, stats.breakdowns.unique_types) == (2, 3)
    assert stats.breakdowns.breakdowns_per_chatbot_turn == 1.0
    assert stats.breakdowns.first_breakdown_turn == 2
    assert stats.ratings == {"overall": 2}
    assert stats.simulation_cost == 0.5
    assert stats.evaluation_cost == pytest.approx(0.03)


def test_breakdown_columns_over_a_run() -> None:
    runs = [
        ConversationBreakdowns(
            conversation="a",
            detector="chatchecker",
            turns=[judged(1, False), judged(3, True, "repetition"), judged(5, True, "repetition")],
        ),
        ConversationBreakdowns(
            conversation="b", detector="chatchecker", turns=[judged(1, True, "wrong information")]
        ),
        ConversationBreakdowns(conversation="c", detector="chatchecker", turns=[judged(1, None)]),
        ConversationBreakdowns(conversation="d", detector="chatchecker", turns=[]),
    ]
    stats = breakdown_stats("chatchecker", runs)
    assert (stats.judged_turns, stats.unscored_turns) == (5, 1)
    assert (stats.dialogues_with_breakdowns, stats.breakdowns) == (2, 3)
    # over every chatbot turn judged (the unscored one too), the labelled ones beside
    assert stats.breakdowns_per_chatbot_turn == 3 / 5 and stats.labelled_turns == 4
    assert stats.types == {"repetition": 2, "wrong information": 1}
    assert stats.unique_types == 2
    assert stats.first_breakdown_turn == (4 + 2) / 2
    assert stats.mean_score == pytest.approx((0.8 + 0.2 + 0.2 + 0.2) / 4)
    empty = breakdown_stats("chatchecker", [runs[3]])
    assert empty.breakdowns_per_chatbot_turn is None and empty.first_breakdown_turn is None


def test_run_columns() -> None:
    records = [
        conversation("a", "one two", "three four five", "six", "seven"),
        conversation("b", "eight nine ten eleven"),
        conversation("c"),
    ]
    ratings = {
        "a": ConversationRatings(
            conversation="a", ratings={"overall": DimensionRating(reasoning="", rating=4)}
        ),
        "b": ConversationRatings(
            conversation="b", ratings={"overall": DimensionRating(reasoning="", rating=1)}
        ),
    }
    rows = [conversation_stats(r, None, ratings.get(r.id)) for r in records]
    stats = run_stats(records, rows)
    assert (stats.conversations, stats.user_turns, stats.chatbot_turns) == (3, 3, 2)
    assert stats.user_turns_per_conversation == FiveNumbers(min=0, q1=0.5, median=1, q3=1.5, max=2)
    assert stats.user_words == FiveNumbers(min=1, q1=1.5, median=2, q3=3, max=4)
    assert stats.chatbot_words == FiveNumbers(min=1, q1=1.5, median=2, q3=2.5, max=3)
    assert stats.mean_ratings == {"overall": 2.5} and stats.rated_conversations == 2
    assert stats.breakdowns is None and stats.crashes == 0
    assert rows[2].user_words is None and rows[2].user_mtld is None
