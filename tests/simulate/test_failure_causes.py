"""A record tells a crashing chatbot from one that answers garbage, times out or is empty."""

from __future__ import annotations

import random

from sparring.connectors import Reply
from sparring.conversations import ConversationRecord, ErrorCode, FailureCause
from sparring.errors import BadPayload
from sparring.simulate._agenda import AgendaSimulator
from sparring.simulate._runner import RunnerLimits, run_conversation
from sparring.simulate._spec import ConversationSpec, StopCondition

from .fakes import FakeConnector, crashing_bot, empty_bot, pizza_bot

SPEC = ConversationSpec(
    id="pizza/0",
    profile="pizza",
    goals=("I want a pizza", "how much will it cost"),
    variables={"size": "medium"},
    stop=StopCondition("all_answered", limit=4),
)


def garbage_bot(text: str, index: int) -> Reply:
    raise BadPayload("reply is not JSON: '<html>'")


async def _run(respond, latency: float = 0.0) -> ConversationRecord:  # type: ignore[no-untyped-def]
    connector = FakeConnector(respond, latency=latency)
    return await run_conversation(
        SPEC,
        connector,
        AgendaSimulator(SPEC, random.Random(0)),
        limits=RunnerLimits(reply_timeout=0.05),
    )


async def test_each_chatbot_failure_keeps_its_cause() -> None:
    crash = (await _run(crashing_bot)).errors[0]
    garbage = (await _run(garbage_bot)).errors[0]
    empty = (await _run(empty_bot)).errors[0]
    hang = (await _run(pizza_bot, latency=5)).errors[0]
    assert crash.code == garbage.code == empty.code == ErrorCode.NO_RESPONSE
    assert isinstance(crash.code, ErrorCode) and hang.code == ErrorCode.TIMEOUT
    assert crash.cause == FailureCause.CRASH
    assert garbage.cause == FailureCause.BAD_PAYLOAD
    assert empty.cause == FailureCause.EMPTY_REPLY
    assert hang.cause == FailureCause.TIMEOUT


def test_a_foreign_error_code_is_kept_as_an_integer() -> None:
    record = ConversationRecord.model_validate(
        {"id": "x", "profile": "p", "errors": [{"code": 777, "message": "?"}]}
    )
    assert record.errors[0].code == 777 and record.errors[0].name == "error_777"
    again = ConversationRecord.model_validate_json(record.model_dump_json())
    assert again.errors[0].code == 777
