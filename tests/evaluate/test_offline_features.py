"""The offline detector's hand-made features on hand-made turns."""

from __future__ import annotations

import numpy as np

from sparring.evaluate._features import (
    FEATURE_NAMES,
    LONG_REPLY_WORDS,
    conversation_features,
    fallback_similarity,
    is_question,
    is_yes_no_question,
)

U, A = "user", "assistant"


def feature(features: object, row: int, name: str) -> float:
    matrix = getattr(features, "matrix")  # noqa: B009
    return float(matrix[row, FEATURE_NAMES.index(name)])


def test_one_row_per_assistant_turn_in_feature_order() -> None:
    f = conversation_features([A, U, A, U, A], ["Hi!", "Hello", "How can I help?", "x", "ok"])
    assert f.turns == [0, 2, 4]
    assert f.matrix.shape == (3, len(FEATURE_NAMES)) and np.isfinite(f.matrix).all()


def test_repetition_of_an_earlier_chatbot_turn() -> None:
    said = "Our opening hours are nine to five, Monday to Friday."
    f = conversation_features(
        [U, A, U, A, U, A],
        ["When are you open?", said, "And on Sunday?", said.upper(), "Thanks", "You are welcome."],
    )
    assert f.findings[0].repeats is None
    assert f.findings[1].repeats == 1  # turn 3 repeats turn 1 (case aside)
    assert feature(f, 1, "exact_repetition") == 1.0 and feature(f, 1, "repetition") > 0.9
    assert f.findings[2].repeats is None and feature(f, 2, "exact_repetition") == 0.0


def test_ignored_question_and_answered_ones() -> None:
    f = conversation_features(
        [U, A, U, A, U, A],
        [
            "What time does the train to Boston leave?",
            "I like pizza with pineapple.",
            "Do you sell tickets online?",
            "Yes, on our website.",
            "Which trains go to Boston?",
            "The Boston trains are the Acela and the Northeast Regional.",
        ],
    )
    assert [x.ignored_question for x in f.findings] == [True, False, False]
    assert feature(f, 0, "user_question") == 1.0 and feature(f, 0, "ignored_question") == 1.0
    assert feature(f, 1, "yes_no_answer") == 1.0
    assert feature(f, 2, "user_overlap") > 0


def test_questions() -> None:
    assert is_question("where is it") and is_question("Tell me?")
    assert not is_question("I like it") and not is_question("What")
    assert is_yes_no_question("Nice. Do you like cats?") and not is_yes_no_question("Why?")


def test_fallback_similarity_known_and_generic() -> None:
    fallback = "Sorry, I did not get that. Can you rephrase?"
    assert fallback_similarity("Sorry, I did not get that. Can you rephrase?", fallback) == 1.0
    assert fallback_similarity("Our shop opens at nine.", fallback) < 0.6
    assert fallback_similarity("Hmm, I don't understand :(", None) == 1.0
    assert fallback_similarity("Our shop opens at nine.", None) == 0.0
    f = conversation_features([U, A], ["blah", fallback], fallback)
    assert feature(f, 0, "fallback_similarity") == 1.0


def test_long_reply_and_empty_texts() -> None:
    long = " ".join(["word"] * (LONG_REPLY_WORDS + 1))
    f = conversation_features([U, A, U, A], ["tell me all", long, "", ""])
    assert f.findings[0].long_reply and not f.findings[1].long_reply
    assert np.isfinite(f.matrix).all()
    nothing = conversation_features([U, U], ["a", "b"])
    assert nothing.turns == [] and nothing.matrix.shape == (0, len(FEATURE_NAMES))


def test_a_value_of_the_asked_kind_answers_a_question() -> None:
    from sparring.evaluate._features import answers_with_value

    assert answers_with_value("how much will it cost", "The total is $14.00.")
    assert answers_with_value("how long will it take?", "Ready in about 15 minutes.")
    assert answers_with_value("How many pizzas did I order?", "You ordered 2 pizzas.")
    assert not answers_with_value("how much will it cost", "We are open until 11 pm.")
    assert not answers_with_value("what is your name?", "$14.00")
