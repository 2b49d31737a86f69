"""Playing a fixed list of user utterances through a connector into a record: what an
offline probe and a metamorphic follow-up both do (the user simulators of ``simulate``
decide each utterance from the replies instead).

``play_utterances`` never raises for the chatbot: a crash, a timeout or a bad payload
ends the conversation with a ``ConversationError`` (``turn``: the 0-based index of the
last turn recorded) and the finish reason of its code, as ``simulate``'s runner records
them.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import UTC, datetime

from sparring.connectors import Connector, Conversation, Reply, greeting_of, within_timeout
from sparring.conversations._records import (
    ConversationError,
    ConversationRecord,
    ErrorCode,
    FailureCause,
    FinishReason,
    Turn,
    finish_reason_of_code,
)
from sparring.errors import ChatbotFailure


def reply_turn(reply: Reply) -> Turn:
    """The chatbot's turn for ``reply``, timestamped now."""
    return Turn(
        role="assistant",
        text=reply.text,
        messages=list(reply.messages),
        buttons=list(reply.buttons),
        timestamp=datetime.now(UTC),
        latency=reply.latency,
    )


def add_reply(record: ConversationRecord, reply: Reply) -> None:
    """Append the chatbot's turn for ``reply`` to ``record``, with the notes the connector
    boundary left on it (e.g. lone surrogates replaced) added to the record's ``notes``."""
    record.turns.append(reply_turn(reply))
    record.notes.extend(n for n in reply.notes if n not in record.notes)


def record_failure(
    record: ConversationRecord, code: ErrorCode, message: str, cause: FailureCause | None
) -> None:
    """Add a failure at the last turn recorded and end the conversation with its code's
    finish reason (unless it already ended: the first reason given stands)."""
    turn = len(record.turns) - 1 if record.turns else None
    record.errors.append(ConversationError(code=code, message=message, turn=turn, cause=cause))
    if record.finish_reason is None:
        record.finish_reason = finish_reason_of_code(code)


async def play_utterances(
    connector: Connector,
    record: ConversationRecord,
    utterances: Sequence[str],
    *,
    reply_timeout: float | None = None,
    keep_greeting: bool = False,
    empty_reply_fails: bool = False,
) -> ConversationRecord:
    """Send ``utterances`` in a new conversation of ``connector`` and fill ``record`` (its
    turns, errors, finish reason, times and ``duration`` in seconds); return it.

    ``reply_timeout`` (seconds) caps each reply on top of the connector's own timeout;
    ``keep_greeting`` records what the chatbot said on opening; ``empty_reply_fails``
    ends the conversation with ``no_response`` at a reply with neither text nor buttons.
    The conversation stops when the chatbot ends it (``chatbot_ended``); otherwise the
    user ends it after the last utterance.
    """
    record.started_at = record.started_at or datetime.now(UTC)
    clock = time.perf_counter()
    conversation: Conversation | None = None
    try:
        conversation = await connector.open()
        greeting = greeting_of(conversation) if keep_greeting else None
        if greeting is not None:
            add_reply(record, greeting)
        for utterance in utterances:
            record.turns.append(Turn(role="user", text=utterance, timestamp=datetime.now(UTC)))
            sent = conversation.send(utterance)
            reply = await (within_timeout(sent, reply_timeout) if reply_timeout else sent)
            add_reply(record, reply)
            if empty_reply_fails and not reply.messages and not reply.buttons:
                message = "the chatbot returned an empty reply"
                record_failure(record, ErrorCode.NO_RESPONSE, message, FailureCause.EMPTY_REPLY)
                break
            if reply.ended:
                record.finish_reason = FinishReason.CHATBOT_ENDED
                break
    except ChatbotFailure as exc:
        record_failure(record, ErrorCode(exc.code), str(exc) or exc.name, FailureCause(exc.cause))
    finally:
        if conversation is not None:
            await conversation.close()
    if record.finish_reason is None:
        record.finish_reason = FinishReason.USER_ENDED
        record.ended_by_user = True
    record.ended_at = datetime.now(UTC)
    record.duration = round(time.perf_counter() - clock, 6)
    return record
