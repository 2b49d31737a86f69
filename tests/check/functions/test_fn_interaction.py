"""chatbot_returns, empty_responses, conversation_length, data_collected, missing_slots on
hand-made records."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from sparring.check._context import FunctionContext
from sparring.check.functions import (
    chatbot_returns,
    conversation_length,
    data_collected,
    empty_responses,
    missing_slots,
)
from sparring.connectors._reply import Button
from sparring.conversations import ConversationRecord
from sparring.errors import UserInputError

Make = Callable[..., ConversationRecord]
Ctx = Callable[..., FunctionContext]


def test_chatbot_returns_finds_buttons_without_links(record: Make, context: Ctx) -> None:
    conv = record(
        ("user", "hi"),
        ("assistant", "Pick one", [Button(text="Menu", link="https://x.org"), Button(text="Help")]),
        ("user", "LINK: <empty>"),  # the user's words never count
        ("assistant", "Done", [Button(text="Menu", link="https://x.org")]),
    )
    ctx = context(conv)
    assert chatbot_returns(ctx, "LINK: <empty>") == [1]
    assert ctx.evidence[-1].turns == [1]
    assert chatbot_returns(ctx, "nowhere") == []


def test_chatbot_returns_and_not_looks_after_the_first_match(record: Make, context: Ctx) -> None:
    conv = record(
        ("assistant", "AVAILABLE BUTTONS:"),  # an empty button list
        ("user", "ok"),
        ("assistant", "Pick", [Button(text="A")]),
        ("assistant", "- BUTTON TEXT: x then AVAILABLE BUTTONS: and nothing after"),
    )
    found = chatbot_returns(context(conv), "AVAILABLE BUTTONS:", and_not="- BUTTON TEXT:")
    assert found == [0, 3]


def test_conversation_length(record: Make, context: Ctx) -> None:
    conv = record(
        ("user", "a"), ("assistant", "b"), ("assistant", "c"), ("user", "d"), ("assistant", "e")
    )
    ctx = context(conv)
    assert conversation_length(ctx) == 5
    assert conversation_length(ctx, "User") == 2
    assert conversation_length(ctx, "assistant") == 3
    assert conversation_length(ctx, "chatbot") == 3
    with pytest.raises(ValueError, match="expected 'user'"):
        conversation_length(ctx, "system")


def test_data_collected_and_missing_slots(record: Make, context: Ctx) -> None:
    conv = record(outputs={"price": "12 €", "order_id": None, "drink": "None", "size": "small"})
    ctx = context(conv)
    assert data_collected(ctx) is False
    assert "order_id" in (ctx.evidence[-1].reason or "")
    assert missing_slots(ctx) == ["order_id", "drink"]
    full = context(record(outputs={"price": 0, "size": ""}))  # falsy values are values
    assert data_collected(full) is True
    assert missing_slots(full) == []
    assert data_collected(context(record())) is True


def test_per_conversation_functions_refuse_global_rules() -> None:
    ctx = FunctionContext(conversation=None)
    for call in (
        lambda: chatbot_returns(ctx, "x"),
        lambda: conversation_length(ctx),
        lambda: missing_slots(ctx),
    ):
        with pytest.raises(UserInputError, match="conversations: all"):
            call()


def test_empty_responses_are_chatbot_turns_with_nothing_in_them(record: Make, context: Ctx) -> None:
    conv = record(
        ("user", "hi"),
        ("assistant", "  \n"),
        ("user", ""),  # the user's silence is not the chatbot's
        ("assistant", "", [Button(text="Menu")]),  # buttons alone are a reply
        ("assistant", "Welcome"),
        ("assistant", ""),
    )
    ctx = context(conv)
    assert empty_responses(ctx) == [1, 5]
    assert ctx.evidence[-1].turns == [1, 5]
    assert empty_responses(context(record(("user", "hi"), ("assistant", "hello")))) == []
