"""The LLM breakdown detectors with the scripted model: judgements with prompt, raw reply,
tokens and cost; invalid replies retried then unscored; crash turns without a model call;
bounded concurrency; empty, long and undescribed conversations; Ghassel's prompt."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sparring.connectors import ChatbotInfo
from sparring.conversations import ConversationError, ConversationRecord, Turn
from sparring.evaluate import CHATBOT_CRASH
from sparring.evaluate._llm_detector import ChatCheckerDetector, GhasselDetector, crash_turns
from sparring.evaluate._prompts import CONTEXT_TURNS
from sparring.evaluate._taxonomy import load_taxonomy
from sparring.llm import CompletionRequest, ScriptedModel
from sparring.types import Strategy

PIZZA = ChatbotInfo(
    name="Pizzeria", description="Takes pizza orders for delivery.", type="task-oriented"
)
BREAKDOWN = {
    "reasoning": "The user asked for the price and the bot talks about the weather.",
    "score": 0.1,
    "decision": "breakdown",
    "breakdown_types": ["Ignore Question", "topic transition error", "not a type"],
}
FINE = {"reasoning": "Answers the question.", "score": 0.9, "decision": "no_breakdown"}


def record(*texts: str, errors: list[ConversationError] | None = None) -> ConversationRecord:
    """Turns alternating user, chatbot, user… from ``texts``."""
    turns = [
        Turn(role="user" if i % 2 == 0 else "assistant", text=text) for i, text in enumerate(texts)
    ]
    return ConversationRecord(id="c1", profile="pizza", turns=turns, errors=errors or [])


def last_utterance(messages: list[dict[str, str]]) -> str:
    return messages[-1]["content"].split("# Latest chatbot utterance to judge")[1]


def judge_weather(messages: list[dict[str, str]]) -> dict[str, Any]:
    return BREAKDOWN if "weather" in last_utterance(messages) else FINE


def names(taxonomy_for: ChatbotInfo) -> list[str]:
    return [t.name for t in load_taxonomy().types_for(taxonomy_for)]


async def test_each_chatbot_turn_is_judged_with_its_context() -> None:
    model = ScriptedModel(judge_weather, cost_per_call=0.002)
    conversation = record("How much is a margherita?", "Lovely weather today!", "Bye", "Bye!")
    result = await ChatCheckerDetector(model).detect(conversation, PIZZA, names(PIZZA))
    assert (result.conversation, result.profile, result.detector) == ("c1", "pizza", "chatchecker")
    first, second = result.turns
    assert (first.turn, first.breakdown, first.score) == (1, True, 0.1)
    assert first.error_types == ["ignore question", "topic transition error"]
    assert first.reasoning.startswith("The user asked")
    assert first.strategy is Strategy.LLM and first.detector == "chatchecker"
    assert first.raw is not None and json.loads(first.raw) == BREAKDOWN
    assert first.usage is not None and first.usage.calls == 1 and first.usage.cost == 0.002
    assert first.usage.completion_tokens > 0 and first.usage.prompt_tokens > 100
    assert first.prompt is not None and '2. Chatbot: "Lovely weather today!"' in first.prompt
    assert (second.turn, second.breakdown, second.error_types) == (3, False, [])
    assert result.breakdowns == [first]
    # the context holds the turns before the judged one, not after
    assert '3. User: "Bye"' in model.requests[1][1]["content"]
    assert "Bye" not in model.requests[0][1]["content"]


async def test_calls_run_at_temperature_zero_with_the_evaluate_module() -> None:
    model = ScriptedModel([FINE])
    seen: list[CompletionRequest] = []
    complete = model.scripted.complete

    async def spy(request: CompletionRequest) -> Any:
        seen.append(request)
        return await complete(request)

    model.scripted.complete = spy  # type: ignore[method-assign]
    await ChatCheckerDetector(model).detect(record("Hi", "Hello"), PIZZA, names(PIZZA))
    assert [r.temperature for r in seen] == [0.0]
    assert (
        seen[0].json_schema is not None and "breakdown_types" in seen[0].json_schema["properties"]
    )


async def test_the_prompt_describes_the_bot_and_its_types() -> None:
    model = ScriptedModel([FINE, FINE])
    detector = ChatCheckerDetector(model)
    await detector.detect(record("Hi", "Hello"), PIZZA, names(PIZZA))
    system = model.requests[0][0]["content"]
    assert "Takes pizza orders for delivery." in system and "- Type: task-oriented" in system
    assert "- redundancy: The chatbot asks for information" in system
    chat = ChatbotInfo(type="conversational")
    await detector.detect(record("Hi", "Hello"), chat, names(chat))
    system = model.requests[1][0]["content"]
    assert system.count("\n- ") == 17 + 1  # 17 types, one fact about the bot
    assert "redundancy" not in system


async def test_a_missing_description_makes_the_prompt_say_less() -> None:
    model = ScriptedModel([FINE])
    result = await ChatCheckerDetector(model).detect(record("Hi", "Hello"), ChatbotInfo(), [])
    system = model.requests[0][0]["content"]
    assert "## The chatbot" not in system and "(no error types given)" in system
    assert result.turns[0].breakdown is False


async def test_an_invalid_reply_is_retried_then_unscored_with_the_raw_text() -> None:
    model = ScriptedModel(["I think it is fine.", {"decision": "maybe"}])
    result = await ChatCheckerDetector(model).detect(record("Hi", "Hello"), PIZZA, names(PIZZA))
    [turn] = result.turns
    assert len(model.requests) == 2  # the first try and one correction
    assert "did not validate" in model.requests[1][-1]["content"]
    assert (turn.breakdown, turn.score, turn.error_types) == (None, None, [])
    assert turn.raw == '{"decision": "maybe"}' and turn.reasoning.startswith("unscored:")
    assert turn.prompt is not None and result.breakdowns == []


async def test_crash_turns_are_labelled_without_a_model_call() -> None:
    crashed = record(
        "Hi",
        "Hello! What pizza?",
        "A margherita",
        errors=[ConversationError(code=500, message="HTTP 502", turn=2)],
    )
    empty = record("Hi", "", errors=[ConversationError(code=500, message="empty", turn=1)])
    timeout = record("Hi", errors=[ConversationError(code=504, message="timeout", turn=0)])
    assert crash_turns(crashed) == {3: "the chatbot failed (500): HTTP 502"}
    assert list(crash_turns(empty)) == [1] and list(crash_turns(timeout)) == [1]
    model = ScriptedModel([FINE])
    detector = ChatCheckerDetector(model)
    result = await detector.detect(crashed, PIZZA, names(PIZZA))
    assert len(model.requests) == 1  # only the real reply
    assert [(t.turn, t.breakdown, t.error_types) for t in result.turns] == [
        (1, False, []),
        (3, True, [CHATBOT_CRASH]),
    ]
    assert result.turns[1].score == 0.0 and result.turns[1].prompt is None
    for conversation in (empty, timeout):
        judged = await detector.detect(conversation, PIZZA, names(PIZZA))
        assert [t.error_types for t in judged.turns] == [[CHATBOT_CRASH]]
    assert len(model.requests) == 1


async def test_no_chatbot_turn_means_no_judgement_and_no_call() -> None:
    model = ScriptedModel([])
    for conversation in (record(), record("Hello?")):
        result = await ChatCheckerDetector(model).detect(conversation, PIZZA, names(PIZZA))
        assert result.turns == []
    assert model.requests == []


async def test_a_200_turn_conversation_is_judged_turn_by_turn_with_a_bounded_context() -> None:
    texts = [f"{'user' if i % 2 == 0 else 'bot'} line {i}" for i in range(200)]
    model = ScriptedModel(lambda messages: FINE, concurrency=4)
    result = await ChatCheckerDetector(model).detect(record(*texts), PIZZA, names(PIZZA))
    assert [t.turn for t in result.turns] == list(range(1, 200, 2))
    assert len(model.requests) == 100
    last = model.requests[-1][1]["content"]
    assert f"({199 - CONTEXT_TURNS} earlier turns not shown)" in last
    assert '199. User: "user line 198"' in last and "line 2\n" not in last


async def test_turns_run_concurrently_within_the_models_concurrency() -> None:
    model = ScriptedModel(lambda messages: FINE, latency=0.05, concurrency=3)
    running, peak = 0, 0
    complete = model.scripted.complete

    async def counting(request: CompletionRequest) -> Any:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        try:
            return await complete(request)
        finally:
            running -= 1

    model.scripted.complete = counting  # type: ignore[method-assign]
    texts = [f"line {i}" for i in range(24)]
    result = await ChatCheckerDetector(model).detect(record(*texts), PIZZA, names(PIZZA))
    assert len(result.turns) == 12 and peak == 3  # concurrent, within the model's limit


@pytest.mark.parametrize(
    "reply",
    [
        [{"reasoning": "Off topic.", "decision": "BREAKDOWN", "score": 0.2}],
        {"reasoning": "Off topic.", "decision": "BREAKDOWN", "score": 0.2},
    ],
)
async def test_ghassels_zero_shot_detector(reply: Any) -> None:
    model = ScriptedModel([reply])
    result = await GhasselDetector(model).detect(
        record("How much?", "Nice weather."), PIZZA, names(PIZZA)
    )
    [turn] = result.turns
    assert (turn.breakdown, turn.score, turn.error_types) == (True, 0.2, [])
    assert turn.detector == result.detector == "ghassel"
    [message] = model.requests[0]
    assert message["role"] == "system"
    assert "Dialogue breakdown is characterized by incoherence" in message["content"]
    assert "1. User: How much?" in message["content"]
    assert "2. Bot: Nice weather." in message["content"]
    assert "Pizzeria" not in message["content"]  # the baseline knows nothing of the bot
