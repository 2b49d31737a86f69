"""The meaning relations of a chatbot turn (``_embedded``), with a hand-made encoder, and the
question a chatbot asks read through Markdown emphasis."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from numpy.typing import NDArray

from sparring.connectors import ChatbotInfo
from sparring.conversations import ConversationRecord, Turn
from sparring.evaluate._embedded import EMBEDDING_FEATURE_NAMES, embedding_features
from sparring.evaluate._features import FEATURE_NAMES
from sparring.evaluate._offline import record_features
from sparring.evaluate._view import last_question

U, A = "user", "assistant"
TOPICS = {"weather": 0, "rain": 0, "sunny": 0, "football": 1, "goal": 1, "pizza": 2}


def topic_encoder(texts: Sequence[str]) -> NDArray[np.float64]:
    """One axis per topic word family: texts about the same thing have cosine 1."""
    rows = np.zeros((len(texts), 4))
    for k, text in enumerate(texts):
        for word in text.lower().replace("?", " ").replace(".", " ").split():
            if word in TOPICS:
                rows[k, TOPICS[word]] += 1.0
        rows[k, 3] += 0.1  # every text shares a little
        rows[k] /= np.linalg.norm(rows[k])
    return rows


def column(matrix: NDArray[np.float64], row: int, name: str) -> float:
    return float(matrix[row, EMBEDDING_FEATURE_NAMES.index(name)])


def test_a_reply_on_the_users_topic_is_closer_than_a_change_of_subject() -> None:
    roles = [U, A, U, A]
    on_topic = embedding_features(
        roles, ["Is it sunny?", "Yes, sunny weather.", "Any rain later?", "No rain, weather fine."],
        topic_encoder,
    )  # fmt: skip
    off_topic = embedding_features(
        roles, ["Is it sunny?", "Yes, sunny weather.", "Any rain later?", "I like pizza."],
        topic_encoder,
    )  # fmt: skip
    assert on_topic.shape == (2, len(EMBEDDING_FEATURE_NAMES))
    assert column(on_topic, 1, "meaning_user") > 0.9 > 0.2 > column(off_topic, 1, "meaning_user")
    assert column(on_topic, 1, "meaning_context") > column(off_topic, 1, "meaning_context")
    # the user kept to the chatbot's topic; the reply left it
    assert column(off_topic, 1, "meaning_user_to_previous_reply") > 0.9
    assert column(off_topic, 1, "meaning_user_gain") < -0.7


def test_repetition_and_missing_turns() -> None:
    said = "Football is a great goal."
    m = embedding_features([A, U, A], [said, "Pizza?", said], topic_encoder)
    # the first turn has nothing before it: every relation is 0
    assert np.allclose(m[0], 0.0)
    assert column(m, 1, "meaning_repetition") == pytest.approx(1.0)
    assert column(m, 1, "meaning_earlier_user") == 0.0  # one user turn only


def test_each_distinct_text_is_encoded_once() -> None:
    seen: list[list[str]] = []

    def counting(texts: Sequence[str]) -> NDArray[np.float64]:
        seen.append(list(texts))
        return topic_encoder(texts)

    embedding_features([U, A, U, A], ["hi", "hello", "hi", "hello"], counting)
    assert seen == [["hi", "hello"]]
    assert embedding_features([U], ["hi"], counting).shape == (0, len(EMBEDDING_FEATURE_NAMES))


def test_record_features_put_the_meaning_after_the_lexical_features() -> None:
    record = ConversationRecord(
        id="c",
        profile="p",
        turns=[Turn(role=U, text="Is it sunny?"), Turn(role=A, text="I like pizza.")],
    )
    lexical = record_features(record, ChatbotInfo())
    both = record_features(record, ChatbotInfo(), topic_encoder)
    assert both.matrix.shape == (1, len(FEATURE_NAMES) + len(EMBEDDING_FEATURE_NAMES))
    assert np.array_equal(both.matrix[:, : len(FEATURE_NAMES)], lexical.matrix)


def test_the_question_is_read_through_markdown_emphasis() -> None:
    # ChatChecker's study-goal assistant writes its question in bold
    text = "Creativity can be a goal.   **What’s a goal you’d like to work on?**  For example: run."
    assert last_question(text) == "What’s a goal you’d like to work on?"
    assert last_question("Noted. __Which day suits you?__") == "Which day suits you?"
    assert last_question("We open at 9_30 on week_days.") == ""


def test_sentence_embeddings_or_the_install_hint() -> None:
    from sparring.errors import UserInputError
    from sparring.similarity import embeddings_installed, sentence_embeddings

    if not embeddings_installed():
        with pytest.raises(UserInputError, match=r"sparring\[embeddings\]"):
            sentence_embeddings(["Is it sunny?"])
        return
    vectors = sentence_embeddings(["Is it sunny?", "Will it rain?", "I like pizza."])
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]  # weather is nearer weather
