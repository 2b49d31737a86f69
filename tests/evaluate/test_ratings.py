"""Dialogue ratings with the scripted model: ChatChecker's dimensions per chatbot type, a
structured reply with exactly the asked dimensions, the strict policy in the prompt,
unscored conversations, and located errors in a dimensions file."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from sparring.connectors import ChatbotInfo
from sparring.conversations import ConversationRecord, Turn
from sparring.errors import ConfigError
from sparring.evaluate._ratings import load_dimensions, rate_conversation, rating_schema
from sparring.llm import ScriptedModel

RECORD = ConversationRecord(
    id="c1",
    profile="pizza",
    turns=[Turn(role="user", text="A margherita please"), Turn(role="assistant", text="Done!")],
)


def ratings(keys: list[str], value: int = 4) -> dict[str, Any]:
    return {key: {"reasoning": f"{key} is fine", "rating": value} for key in keys}


def test_chatcheckers_defaults_per_chatbot_type() -> None:
    dimensions = load_dimensions()
    assert len(dimensions.dimensions) == 9
    task = [d.key for d in dimensions.for_chatbot(ChatbotInfo(type="task-oriented"))]
    assert task == ["task_success", "efficiency", "appropriateness", "naturalness", "overall"]
    assert [d.key for d in dimensions.for_chatbot(None)] == task
    chat = [d.key for d in dimensions.for_chatbot(ChatbotInfo(type="conversational"))]
    assert chat == [
        "appropriateness",
        "naturalness",
        "coherence",
        "likability",
        "informativeness",
        "overall",
    ]


async def test_a_conversation_is_rated_on_each_dimension() -> None:
    dimensions = load_dimensions().for_chatbot(None)
    keys = [d.key for d in dimensions]
    model = ScriptedModel([ratings(keys, 3)], cost_per_call=0.01)
    info = ChatbotInfo(description="Takes pizza orders.")
    result = await rate_conversation(model, RECORD, info, dimensions)
    assert result.scored and list(result.ratings) == keys
    assert result.ratings["efficiency"].rating == 3
    assert result.ratings["efficiency"].reasoning == "efficiency is fine"
    assert result.usage is not None and result.usage.cost == 0.01
    system, user = model.requests[0]
    assert "Takes pizza orders." in system["content"]
    assert "strict" in system["content"] and "- 5, excellent" in system["content"]
    assert "- Task success (key=task_success): How well did the chatbot" in system["content"]
    assert '1. User: "A margherita please"' in user["content"]
    assert result.prompt is not None and result.raw is not None


async def test_a_reply_missing_a_dimension_is_retried_then_unscored() -> None:
    dimensions = load_dimensions().for_chatbot(None)
    partial = ratings(["task_success"])
    model = ScriptedModel([partial, {**partial, "efficiency": {"reasoning": "x", "rating": 9}}])
    result = await rate_conversation(model, RECORD, None, dimensions)
    assert len(model.requests) == 2
    assert not result.scored and result.ratings == {}
    assert result.error is not None and "did not validate" in result.error
    assert result.raw is not None and '"rating": 9' in result.raw
    assert "## The chatbot" not in model.requests[0][0]["content"]


def test_the_reply_schema_holds_exactly_the_asked_keys() -> None:
    schema = rating_schema(("coherence", "overall")).model_json_schema()
    assert schema["required"] == ["coherence", "overall"]
    assert schema["additionalProperties"] is False
    assert rating_schema(("coherence", "overall")) is rating_schema(("coherence", "overall"))


def test_a_dimensions_file_with_an_unknown_key_is_located(tmp_path: Path) -> None:
    path = tmp_path / "dimensions.yaml"
    path.write_text(
        textwrap.dedent(
            """\
            dimensions:
              - key: politeness
                title: Politeness
                question: How polite was the chatbot?
                scale: 10
            """
        )
    )
    with pytest.raises(ConfigError) as caught:
        load_dimensions(path)
    [problem] = caught.value.problems
    assert (problem.file, problem.line, problem.key) == (str(path), 5, "dimensions[0].scale")


def test_defaults_must_name_known_dimensions(tmp_path: Path) -> None:
    path = tmp_path / "dimensions.yaml"
    path.write_text(
        "dimensions:\n  - {key: politeness, title: Politeness, question: Polite?}\n"
        "defaults:\n  conversational: [politeness, humour]\n"
    )
    with pytest.raises(ConfigError, match="humour"):
        load_dimensions(path)
    path.write_text("dimensions:\n  - {key: Polite-ness, title: P, question: Polite?}\n")
    with pytest.raises(ConfigError) as caught:
        load_dimensions(path)
    assert caught.value.problems[0].key == "dimensions[0].key"
