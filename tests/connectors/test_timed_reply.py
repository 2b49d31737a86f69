"""``timed_reply``: the one place connectors wait, time, parse and redact a reply."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from sparring.connectors import Reply
from sparring.connectors._base import timed_reply
from sparring.connectors._secrets import Redactor
from sparring.errors import BadPayload, ChatbotTimeout


async def answer_after(seconds: float, value: Any) -> Any:
    await asyncio.sleep(seconds)
    return value


async def test_parses_times_and_redacts() -> None:
    def parse(payload: Any) -> Reply:
        return Reply(messages=[payload["text"]], raw=payload)

    reply = await timed_reply(
        answer_after(0.05, {"text": "hi", "token": "Bearer s3cr3t-value"}),
        1.0,
        Redactor(["s3cr3t-value"]),
        parse,
    )
    assert reply.messages == ["hi"]
    assert 0.04 < reply.latency < 1.0
    assert reply.raw == {"text": "hi", "token": "Bearer ***"}


async def test_times_out_as_a_chatbot_timeout() -> None:
    with pytest.raises(ChatbotTimeout, match=r"no new conversation within 0\.05 s"):
        await timed_reply(answer_after(5, Reply()), 0.05, Redactor(), what="new conversation")


async def test_parse_errors_propagate() -> None:
    def parse(payload: Any) -> Reply:
        raise BadPayload("not a reply")

    with pytest.raises(BadPayload):
        await timed_reply(answer_after(0, 42), 1.0, Redactor(), parse)


async def test_a_parser_that_breaks_on_the_answer_records_a_bad_payload() -> None:
    def parse(payload: Any) -> Reply:
        return Reply(messages=list(payload["text"]))  # a bool has no items: TypeError

    with pytest.raises(BadPayload, match=r"unreadable reply \(TypeError"):
        await timed_reply(answer_after(0, {"text": True}), 1.0, Redactor(), parse)
