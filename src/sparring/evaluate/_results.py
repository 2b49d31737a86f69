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


class Measurement(BaseModel):
    """How well a detector did on one labelled data set (measured, not assumed).

    ``data`` names the data and how it was held out; ``labels`` whose labels they are
    (people's majority, a model's silver labels…); ``turns`` the labelled chatbot turns;
    ``auc`` the area under the ROC curve of its score as a ranking of breakdowns (0.5 =
    chance); ``precision``/``recall``/``accuracy``/``f1`` of the breakdowns it labels;
    ``baseline`` the same figures of a trivial judge (named in ``baseline_name``).
    A figure that does not apply is ``None``.
    """

    data: str
    labels: str
    turns: int
    auc: float | None = None
    precision: float | None = None
    recall: float | None = None
    accuracy: float | None = None
    f1: float | None = None
    flagged: float | None = None
    """Share of the turns it labels breakdowns."""
    baseline_name: str | None = None
    baseline: dict[str, float] = Field(default_factory=dict)


class DetectorQuality(BaseModel):
    """What a detector's verdicts are worth: a claim shown beside them in the CLI and the
    report. ``labels`` is false for a detector that only ranks turns (its turns are
    *unscored*, with a ``score`` to sort them by); ``summary`` is the one line shown;
    ``measurements`` the figures behind it."""

    detector: str
    strategy: Strategy
    labels: bool
    summary: str
    measurements: list[Measurement] = Field(default_factory=list)


def quality_of(detector: object) -> DetectorQuality | None:
    """The measured quality a detector declares (its ``quality`` attribute), else ``None``
    (not measured)."""
    quality = getattr(detector, "quality", None)
    return quality if isinstance(quality, DetectorQuality) else None


class BreakdownDetector(Protocol):
    """A breakdown detector: stateless, one call per conversation.

    ``name`` is stored on every judgement; ``strategy`` is ``offline`` or ``llm``.
    ``taxonomy`` is the list of error type names allowed for this bot (task-oriented bots
    get all 26, conversational ones the first 17). A detector may also declare its
    measured ``quality`` (a ``DetectorQuality``; see ``quality_of``).
    """

    @property
    def name(self) -> str: ...

    @property
    def strategy(self) -> Strategy: ...

    async def detect(
        self, record: ConversationRecord, chatbot: ChatbotInfo, taxonomy: list[str]
    ) -> ConversationBreakdowns: ...
