"""Replaying follow-ups against the chatbot: ordinary run records, concurrently.

Each follow-up is one conversation through the connector: the greeting (if the bot sends
one), the story as a first user turn (question-answering seeds), then its questions in
order. The record is an ordinary ``ConversationRecord`` (so ``check``, ``evaluate`` and
``report`` read it like any other) linked to its source in ``extra["metamorphic"]``
(``MetamorphicLink``); it is written as soon as its conversation ends, and a follow-up
whose record is already stored is not replayed (resume). A chatbot that crashes or hangs
ends that follow-up with the failure recorded (codes 500/504); the others go on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from sparring.connectors import Connector
from sparring.conversations import (
    ConversationRecord,
    RunStore,
    play_utterances,
)

LINK_KEY = "metamorphic"
"""The key of a record's ``extra`` that links it to its metamorphic source."""


class MetamorphicLink(BaseModel):
    """How a record of a metamorphic run relates to its seed (``extra["metamorphic"]``).

    ``role`` is ``source`` (the seed's own question sequence replayed unchanged) or
    ``follow-up``; ``source`` the record id of
    the source conversation in the same run; ``perturbation`` the perturbation or user
    transformation; ``order`` the source round of each round; ``story_turn`` whether the
    first user turn is the story rather than a round."""

    model_config = ConfigDict(extra="forbid")

    role: str
    seed: str
    source: str
    perturbation: str | None = None
    order: list[int] = Field(default_factory=list)
    story_turn: bool = False


def link_of(record: ConversationRecord) -> MetamorphicLink | None:
    """The metamorphic link of ``record``; ``None`` for a record of another job."""
    data = record.extra.get(LINK_KEY)
    return MetamorphicLink.model_validate(data) if isinstance(data, dict) else None


class ReplayItem(BaseModel):
    """One conversation to replay: the record id, the user turns to send (the story
    first when ``link.story_turn``), the link, and the fields copied from the source
    record (profile, variables, goals) so rules read it like its source."""

    id: str
    turns: list[str]
    link: MetamorphicLink
    profile: str
    base: dict[str, Any] = Field(default_factory=dict)


def replies_of(record: ConversationRecord) -> list[str | None]:
    """The reply to each round of a replayed record (the story turn excluded); ``None``
    for a round whose question got no reply (the chatbot failed before it)."""
    link = link_of(record)
    replies: list[str | None] = []
    current: list[str] | None = None
    for turn in record.turns:
        if turn.role == "user":
            if current is not None:
                replies.append("\n".join(current) if current else None)
            current = []
        elif current is not None:
            current.append(turn.sensei_text)
    if current is not None:
        replies.append("\n".join(current) if current else None)
    if link is not None and link.story_turn:
        replies = replies[1:]
    if link is not None and link.order:
        replies += [None] * (len(link.order) - len(replies))
    return replies


async def replay_one(item: ReplayItem, connector: Connector) -> ConversationRecord:
    """Play ``item`` through ``connector``; never raises for the chatbot's failures."""
    record = ConversationRecord(
        id=item.id,
        profile=item.profile,
        simulator="metamorphic",
        extra={LINK_KEY: item.link.model_dump(mode="json")},
        **item.base,
    )
    return await play_utterances(connector, record, item.turns, keep_greeting=True)


async def replay(
    items: Iterable[ReplayItem],
    connector: Connector,
    store: RunStore,
    concurrency: int,
    on_record: Callable[[ConversationRecord], None] | None = None,
    stop: Callable[[], bool] | None = None,
) -> int:
    """Replay every item whose record ``store`` does not hold yet, ``concurrency`` at a
    time (one shared connector), writing each record as it ends; ``on_record`` sees it
    then; once ``stop()`` is true no new item starts. Returns how many ran."""
    finished = store.finished_ids()
    pending = iter([item for item in items if item.id not in finished])
    count = 0

    async def worker() -> None:
        nonlocal count
        for item in pending:
            if stop is not None and stop():
                return
            record = await replay_one(item, connector)
            await asyncio.to_thread(store.write, record)
            count += 1
            if on_record is not None:
                on_record(record)

    async with asyncio.TaskGroup() as group:
        for _ in range(max(1, concurrency)):
            group.create_task(worker())
    return count
