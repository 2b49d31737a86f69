"""The user-simulator contract shared by the agenda and LLM simulators."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from sparring.connectors import Reply
from sparring.conversations import Turn
from sparring.dialogue_acts import DialogueAct


@dataclass
class Exchange:
    """What the simulator sees when it chooses the next utterance.

    ``reply`` is the chatbot's last reply (``None`` before the first user turn);
    ``turns`` the whole conversation so far; ``fallback`` is True when ``reply`` was
    recognised as the chatbot's fallback; ``fallbacks_in_a_row`` counts them; ``act`` is
    the dialogue act of ``reply`` (``sparring.dialogue_acts``) as the runner recorded it.
    """

    turns: Sequence[Turn]
    reply: Reply | None
    fallback: bool = False
    fallbacks_in_a_row: int = 0
    act: DialogueAct | None = None


class UserSimulator(Protocol):
    """Chooses the user's next utterance; ``None`` ends the conversation.

    ``goals_left()`` is how many goals are still unanswered (SENSEI code 1001 reports it),
    ``notes`` what the simulator could not honour (e.g. a style without a model).
    """

    notes: list[str]

    async def next_utterance(self, exchange: Exchange) -> str | None: ...

    def goals_left(self) -> int: ...


@runtime_checkable
class ChangesGoals(Protocol):
    """A user simulator that may change goal values mid-conversation (a persona's
    ``change_goal``): ``changed_variables`` maps each changed variable to the value the
    user wants at the end; the runner puts them on the record's ``variables``."""

    changed_variables: dict[str, Any]


@runtime_checkable
class ExplainsGoals(Protocol):
    """A user simulator that tracks its goals by evidence: ``goal_failures`` maps each goal
    not met to why (``goal_not_completed`` names them); ``observe`` reads a reply the
    simulator will not answer (the last one before the turn limit)."""

    def goal_failures(self) -> dict[str, str]: ...

    def observe(self, exchange: Exchange) -> Any: ...
