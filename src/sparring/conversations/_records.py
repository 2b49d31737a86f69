"""The run record: one typed, versioned record per conversation plus a run manifest.

This is the only contract between the stages that produce conversations (``simulate``,
SENSEI import) and the ones that read them (``check``, reports). Records are written as
JSON, one file per conversation, when the conversation ends.
"""

from __future__ import annotations

from datetime import datetime
from enum import IntEnum
from typing import Any, Literal

from pydantic import BaseModel, Field

from sparring.connectors._reply import Button, render_sensei_text

SCHEMA_VERSION = 1

SENSEI_BUTTONS_HEADER = "AVAILABLE BUTTONS:"
"""The line that opens SENSEI's rendering of a turn's buttons."""
EMPTY_RESPONSE = "<EMPTY-RESPONSE>"
"""What rules see for a chatbot turn with no text, messages or buttons (SENSEI's idiom:
``not chatbot_returns('<EMPTY-RESPONSE>')``). Such a reply also ends the conversation
with failure 500 (``no_response``)."""


class ErrorCode(IntEnum):
    """Generic failure codes, SENSEI's numbers and names (plus 1002, ours)."""

    NO_RESPONSE = 500
    TIMEOUT = 504
    EXCEEDED_LOOP_LIMIT = 1000
    GOAL_NOT_COMPLETED = 1001
    REPEATED_REPLY = 1002
    SIMULATOR_ERROR = 1003
    EXCEEDED_MAX_COST = 2000
    EXCEEDED_CONVERSATION_COST = 2001

    @property
    def rule_name(self) -> str:
        """The row name SENSEI-check gives this failure in its results CSV."""
        return _RULE_NAMES[self]


_RULE_NAMES = {
    ErrorCode.NO_RESPONSE: "no_response",
    ErrorCode.TIMEOUT: "timeout",
    ErrorCode.EXCEEDED_LOOP_LIMIT: "exceeded_loop_limit",
    ErrorCode.GOAL_NOT_COMPLETED: "goal_not_completed",
    ErrorCode.REPEATED_REPLY: "repeated_reply",
    ErrorCode.SIMULATOR_ERROR: "simulator_error",
    ErrorCode.EXCEEDED_MAX_COST: "exceeded_max_cost",
    ErrorCode.EXCEEDED_CONVERSATION_COST: "exceeded_conversation_cost",
}


class ConversationError(BaseModel):
    """A generic failure recorded on a conversation. ``turn`` is the 0-based turn index."""

    code: int
    message: str
    turn: int | None = None

    @property
    def name(self) -> str:
        try:
            return ErrorCode(self.code).rule_name
        except ValueError:
            return f"error_{self.code}"


class Turn(BaseModel):
    """One utterance. ``latency`` (seconds) is set on assistant turns only."""

    role: Literal["user", "assistant"]
    text: str
    messages: list[str] = Field(default_factory=list)
    buttons: list[Button] = Field(default_factory=list)
    timestamp: datetime | None = None
    latency: float | None = None

    @property
    def sensei_text(self) -> str:
        """The text with buttons rendered as SENSEI does (what rules match on).

        A text that already carries SENSEI's button block (``AVAILABLE BUTTONS:``, as in
        imported SENSEI conversations) is returned verbatim; an empty chatbot turn is
        ``EMPTY_RESPONSE``.
        """
        if SENSEI_BUTTONS_HEADER in self.text:
            return self.text
        if self.role == "assistant" and not (self.text.strip() or self.messages or self.buttons):
            return EMPTY_RESPONSE
        if self.role == "assistant" and (self.messages or self.buttons):
            return render_sensei_text(self.messages or [self.text], self.buttons)
        return self.text


class OutputValue(BaseModel):
    """An extracted output data item. ``strategy`` is ``llm``, ``offline`` or ``imported``;
    ``confidence`` is ``high``, ``low`` (offline: a sentence names the output but no span
    could be isolated, so ``value`` is ``None``) or ``None`` (not assessed)."""

    value: Any = None
    type: str = "string"
    strategy: str = "offline"
    evidence: str | None = None
    confidence: Literal["high", "low"] | None = None


class ModelUsage(BaseModel):
    """Tokens and cost (US dollars) spent by one module (``user_simulator``, ...)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0


class ConversationRecord(BaseModel):
    """Everything about one conversation.

    ``variables`` holds the picked value of each goal variable (a list for multi-value
    selections such as ``random(rand)``); ``settings`` the profile's ``conversation``
    block as given; ``notes`` what the simulator could not honour (e.g. an interaction
    style without a model).
    """

    schema_version: int = SCHEMA_VERSION
    id: str
    profile: str
    profile_path: str | None = None
    index: int = 0
    seed: int | None = None
    plan: str | None = None
    """The planned conversation this one repeats (``simulate --repeat``), else ``None``."""
    repeat: int | None = None
    """Which repeat of ``plan`` (0-based), else ``None``."""
    simulator: str = "agenda"
    language: str | None = None
    role: str | None = None
    context: list[str] = Field(default_factory=list)
    goals: list[str] = Field(default_factory=list)
    goal_templates: list[Any] = Field(default_factory=list)
    variables: dict[str, Any] = Field(default_factory=dict)
    interaction_styles: list[Any] = Field(default_factory=list)
    settings: dict[str, Any] = Field(default_factory=dict)
    turns: list[Turn] = Field(default_factory=list)
    outputs: dict[str, OutputValue] = Field(default_factory=dict)
    errors: list[ConversationError] = Field(default_factory=list)
    usage: dict[str, ModelUsage] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    started_at: datetime | None = None
    ended_at: datetime | None = None
    duration: float | None = None
    """Wall-clock seconds from the first to the last turn."""
    source: str | None = None
    """Where the record came from when imported (a SENSEI YAML path)."""
    extra: dict[str, Any] = Field(default_factory=dict)
    """Fields of a foreign format that have no place above, kept so an export reproduces
    them; keyed by format (``extra["sensei"]``: serial, response time report, verbatim
    values; see ``sparring.conversations.export_sensei``)."""

    @property
    def response_times(self) -> list[float]:
        """Assistant latencies in seconds, in turn order."""
        return [t.latency for t in self.turns if t.role == "assistant" and t.latency is not None]

    @property
    def cost(self) -> float:
        """Total model cost of the conversation in US dollars."""
        return sum(u.cost for u in self.usage.values())


class RunManifest(BaseModel):
    """The run directory's ``manifest.json``: what was asked, so ``--resume`` can finish it."""

    schema_version: int = SCHEMA_VERSION
    run_id: str
    created_at: datetime
    sparring_version: str
    chatbot: dict[str, Any] = Field(default_factory=dict)
    chatbot_path: str | None = None
    profiles: list[str] = Field(default_factory=list)
    simulator: str = "agenda"
    model: str | None = None
    seed: int = 0
    concurrency: int = 1
    planned: list[str] = Field(default_factory=list)
    """Ids of every conversation the run will write."""
    options: dict[str, Any] = Field(default_factory=dict)
