"""``play_utterances``: fixed user turns through a connector into a record — the greeting,
a chatbot that ends, hangs, crashes or answers nothing, each recorded, never raised."""

from __future__ import annotations

import asyncio

from sparring.connectors import Reply
from sparring.conversations import (
    ConversationRecord,
    ErrorCode,
    FailureCause,
    FinishReason,
    play_utterances,
)
from sparring.errors import ChatbotCrash


class Bot:
    """Replies "ok: <text>"; "bye" ends, "hang" hangs, "crash" crashes, "mute" is empty."""

    def __init__(self) -> None:
        self.greeting = Reply(messages=["Hi!"])
        self.closed = 0

    async def open(self) -> Bot:
        return self

    async def send(self, text: str) -> Reply:
        if text == "hang":
            await asyncio.sleep(5)
        if text == "crash":
            raise ChatbotCrash("boom")
        if text == "mute":
            return Reply()
        return Reply(messages=[f"ok: {text}"], ended=text == "bye")

    async def close(self) -> None:
        self.closed += 1

    async def aclose(self) -> None:
        pass


async def play(*utterances: str, **options: object) -> tuple[ConversationRecord, Bot]:
    bot = Bot()
    record = await play_utterances(bot, ConversationRecord(id="c", profile="p"), utterances,
                                   **options)  # type: ignore[arg-type]  # fmt: skip
    return record, bot


async def test_every_utterance_is_sent_and_the_user_ends() -> None:
    record, bot = await play("a", "b", keep_greeting=True)
    assert [(t.role, t.text) for t in record.turns] == [
        ("assistant", "Hi!"), ("user", "a"), ("assistant", "ok: a"),
        ("user", "b"), ("assistant", "ok: b"),
    ]  # fmt: skip
    assert record.finish_reason is FinishReason.USER_ENDED and record.ended_by_user
    assert record.errors == [] and bot.closed == 1
    assert record.duration is not None and record.ended_at is not None


async def test_the_chatbot_ending_stops_the_conversation() -> None:
    record, _ = await play("bye", "never sent")
    assert [t.text for t in record.turns] == ["bye", "ok: bye"]
    assert record.finish_reason is FinishReason.CHATBOT_ENDED and not record.ended_by_user


async def test_failures_are_recorded_at_the_last_turn_and_not_raised() -> None:
    hung, bot = await play("a", "hang", "b", reply_timeout=0.2)
    (error,) = hung.errors
    assert (error.code, error.turn, error.cause) == (504, 2, FailureCause.TIMEOUT)
    assert hung.finish_reason is FinishReason.CHATBOT_ERROR
    assert [t.text for t in hung.turns] == ["a", "ok: a", "hang"] and bot.closed == 1
    crashed, _ = await play("crash")
    assert (crashed.errors[0].cause, crashed.errors[0].turn) == (FailureCause.CRASH, 0)
    mute, _ = await play("mute", "b", empty_reply_fails=True)
    assert [(e.code, e.cause) for e in mute.errors] == [
        (ErrorCode.NO_RESPONSE, FailureCause.EMPTY_REPLY)
    ]
    assert len(mute.turns) == 2
    allowed, _ = await play("mute", "b")  # an empty reply is a reply unless asked otherwise
    assert allowed.errors == [] and len(allowed.turns) == 4
