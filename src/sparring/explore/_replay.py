"""Resuming an exploration: the sessions a stopped run already stored are played again
from their records, so the strategy rebuilds what it had learnt without asking the
chatbot, then goes on live from where the run stopped.

A stored session is served turn by turn: its greeting, then for each user utterance the
same as stored, the bot's stored reply. A session the chatbot failed in fails again at
the same turn. When the strategy says something else than the record holds (a model that
answers otherwise), or wants more turns than were stored (a session cut short), the
replay goes live: a fresh conversation with the chatbot, the user turns said so far sent
again to bring it to the same point, then the new utterance. A deterministic strategy on a
deterministic bot therefore ends with the same model as a run that was never stopped.
"""

from __future__ import annotations

import itertools

from sparring.connectors import Connector, Conversation, Reply
from sparring.conversations import ConversationRecord, ErrorCode, Turn
from sparring.errors import ChatbotCrash, ChatbotFailure, ChatbotTimeout


class ReplayedConversation:
    """A ``Conversation`` that answers from ``record`` and goes live on ``connector`` once
    the strategy leaves it (see the module docstring). ``live`` is true from then on: the
    session is then new and its record is written again."""

    def __init__(self, record: ConversationRecord, connector: Connector) -> None:
        self.record = record
        self.connector = connector
        turns = list(record.turns)
        self.greeting: Reply | None = None
        if turns and turns[0].role == "assistant":
            self.greeting = _reply(turns.pop(0))
        self._pairs = _pairs(turns)
        self._sent: list[str] = []
        self._live: Conversation | None = None

    @property
    def live(self) -> bool:
        return self._live is not None

    async def send(self, text: str) -> Reply:
        if self._live is None:
            index = len(self._sent)
            if index < len(self._pairs) and self._pairs[index][0] == text:
                self._sent.append(text)
                return self._pairs[index][1]
            if index == len(self._pairs) and self.record.errors:
                raise _failure(self.record)
            self._live = await self.connector.open()
            for said in self._sent:
                await self._live.send(said)
        self._sent.append(text)
        return await self._live.send(text)

    async def close(self) -> None:
        if self._live is not None:
            await self._live.close()


def _pairs(turns: list[Turn]) -> list[tuple[str, Reply]]:
    """Each user utterance with the bot's reply to it (a user turn with no reply after it
    is left out: the session failed or was cut there)."""
    pairs = []
    for said, answer in itertools.pairwise(turns):
        if said.role == "user" and answer.role == "assistant":
            pairs.append((said.text, _reply(answer)))
    return pairs


def _reply(turn: Turn) -> Reply:
    messages = list(turn.messages) or ([turn.text] if turn.text and not turn.buttons else [])
    return Reply(messages=messages, buttons=list(turn.buttons), latency=turn.latency or 0.0)


def _failure(record: ConversationRecord) -> ChatbotFailure:
    """The stored failure raised again (a timeout as a timeout, anything else a crash)."""
    error = record.errors[0]
    kind = ChatbotTimeout if error.code == ErrorCode.TIMEOUT else ChatbotCrash
    return kind(error.message)
