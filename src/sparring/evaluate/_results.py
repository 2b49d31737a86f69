"""What breakdown detection says about a conversation (shared by every detector).

After ChatChecker (Mayr, Schimpf, Bohné, 2025, §3.2): each chatbot turn is judged in its
context — breakdown or not, a score in [0, 1] (0 = complete breakdown, 1 = seamless), the
error types of the taxonomy that fit, and the reasoning. A turn no detector could judge
(an invalid model reply after the retry) is *unscored*, never a breakdown.
"""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel, Field

from sparring.connectors import ChatbotInfo
from sparring.conversations import ConversationRecord
from sparring.precision import JudgeQuality
from sparring.types import ModelUsage, Strategy

EVALUATION_SCHEMA_VERSION = 1
CHATBOT_CRASH = "chatbot crash"
"""The label of a turn where the chatbot failed (no model call is made for it)."""


class TurnBreakdown(BaseModel):
    """The judgement of one chatbot turn.

    ``turn`` is the index in ``ConversationRecord.turns``; ``breakdown`` ``None`` means
    unscored; ``score`` in [0, 1] (1 = seamless); ``error_types`` are taxonomy names;
    ``detector`` names the detector (``offline``, ``chatchecker``, ``ghassel``…);
    ``prompt``/``raw`` keep a model's input and reply; ``usage`` its tokens and cost (US
    dollars).
    """

    turn: int
    breakdown: bool | None
    score: float | None = Field(default=None, ge=0.0, le=1.0)
    error_types: list[str] = Field(default_factory=list)
    reasoning: str = ""
    detector: str
    strategy: Strategy
    prompt: str | None = None
    raw: str | None = None
    usage: ModelUsage | None = None


class ConversationBreakdowns(BaseModel):
    """Every judged chatbot turn of one conversation, by one detector."""

    conversation: str
    profile: str = ""
    detector: str
    turns: list[TurnBreakdown] = Field(default_factory=list)

    @property
    def breakdowns(self) -> list[TurnBreakdown]:
        """The turns judged a breakdown."""
        return [t for t in self.turns if t.breakdown]


def quality_of(detector: object) -> JudgeQuality | None:
    """The measured quality a detector declares (its ``quality`` attribute), else ``None``
    (not measured)."""
    quality = getattr(detector, "quality", None)
    return quality if isinstance(quality, JudgeQuality) else None


class BreakdownDetector(Protocol):
    """A breakdown detector: stateless, one call per conversation.

    ``name`` is stored on every judgement; ``strategy`` is ``offline`` or ``llm``.
    ``taxonomy`` is the list of error type names allowed for this bot (task-oriented bots
    get all 26, conversational ones the first 17). A detector may also declare its
    measured ``quality`` (a ``JudgeQuality``; see ``quality_of``).
    """

    @property
    def name(self) -> str: ...

    @property
    def strategy(self) -> Strategy: ...

    async def detect(
        self, record: ConversationRecord, chatbot: ChatbotInfo, taxonomy: list[str]
    ) -> ConversationBreakdowns: ...
