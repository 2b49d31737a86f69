"""The results of ``sparring adversarial test``: ``<run>/adversarial.json``, rewritten
atomically after every test so an interrupted run keeps what it finished.

One ``AdversarialTest`` per test (weakness, round, difficulty, the attacker's plan, the
conversation's id, the judge's criteria scores, overall score and observations, the model
calls, tokens and cost it took), the difficulty trajectory of each weakness thread, the
observations shared between threads and, at the end, the model's analysis (executive
summary, patterns, recommendations). Scores are the Agent-Testing Agent's (arXiv
2508.17393, §3.2): criteria 1–5, overall 1–10, difficulty 1–10.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar, Literal

from pydantic import BaseModel, Field

from sparring.adversarial._weaknesses import Weakness
from sparring.types import ModelUsage, Strategy

ADVERSARIAL = "adversarial"
"""The results' name in the run's ``results`` slot."""
ADVERSARIAL_FILE = f"results/{ADVERSARIAL}.json"
"""The results file, relative to the run (runs before 0.3: at its root)."""
RESULTS_SCHEMA_VERSION = 1

TestStatus = Literal["scored", "unscored", "chatbot_failure"]
"""``scored``: the judge gave a score; ``unscored``: the judge (or the attacker) failed —
never a score; ``chatbot_failure``: the chatbot crashed or timed out, which ends the
thread."""


class TestPlan(BaseModel):
    """What the attacker model wrote for one test: who the simulated user is, what it wants,
    how it talks, how many user turns it has and what the judge checks (beyond the
    rubric)."""

    __test__: ClassVar[bool] = False  # not a pytest test class

    persona: str
    goal: str
    tone: str
    turn_limit: int = Field(ge=1)
    criteria: list[str] = Field(default_factory=list)


class CriterionScore(BaseModel):
    """One criterion's score (1–5) and the judge's reasoning."""

    criterion: str
    score: int = Field(ge=1, le=5)
    reasoning: str = ""


class ChatbotFailureInfo(BaseModel):
    """How the chatbot failed during a test: SENSEI's ``code`` (500 crash, 504 timeout),
    the ``cause`` (``crash``, ``timeout``, …), the message and the 0-based turn."""

    code: int
    cause: str | None = None
    message: str = ""
    turn: int | None = None


class AdversarialTest(BaseModel):
    """One test of one weakness: its ``round`` (0-based), the ``difficulty`` it ran at
    (1–10), the plan, the conversation's record id (``None`` when none ran), the status,
    the overall ``score`` (1–10, ``None`` unless scored), the criteria scores, the judge's
    observations, ``reason`` when unscored, the chatbot's failure if any,
    ``next_difficulty`` (the thread's difficulty after it), the model ``usage`` (calls,
    tokens, US dollars; attacker, user simulator and judge together) and ``duration``
    (seconds)."""

    weakness: str
    round: int = Field(ge=0)
    difficulty: float
    plan: TestPlan | None = None
    conversation_id: str | None = None
    status: TestStatus
    score: float | None = None
    criteria: list[CriterionScore] = Field(default_factory=list)
    observations: list[str] = Field(default_factory=list)
    reason: str | None = None
    chatbot_failure: ChatbotFailureInfo | None = None
    next_difficulty: float | None = None
    turns: int = 0
    usage: ModelUsage = Field(default_factory=ModelUsage)
    duration: float = 0.0


class Recommendation(BaseModel):
    """A change the model recommends: ``priority`` 1 (first) to 5, the weaknesses it
    addresses and what to change in the chatbot's code or data."""

    priority: int = Field(ge=1, le=5)
    weaknesses: list[str] = Field(default_factory=list)
    recommendation: str


class Analysis(BaseModel):
    """The model's reading of all the tests: an executive summary, patterns across
    weaknesses and prioritised recommendations (paper §3.3: the report)."""

    executive_summary: str
    patterns: list[str] = Field(default_factory=list)
    recommendations: list[Recommendation] = Field(default_factory=list)


class Observation(BaseModel):
    """An observation shared between threads: which weakness's test (and round) it came
    from."""

    weakness: str
    round: int
    text: str


class AdversarialResult(BaseModel):
    """``adversarial.json``: the whole run's results (see the module docstring).

    ``complete`` is false while threads are running (or after an interruption);
    ``analysis_error`` says why there is no analysis when the model failed to write it;
    ``analysis_usage`` is what writing it cost (calls, tokens, US dollars).
    """

    OLDEST_SCHEMA_VERSION: ClassVar[int] = 1

    schema_version: int = RESULTS_SCHEMA_VERSION
    strategy: Strategy = Strategy.LLM
    model: str
    rubric: str
    rounds: int
    started_at: datetime
    weaknesses: list[Weakness]
    tests: list[AdversarialTest] = Field(default_factory=list)
    observations: list[Observation] = Field(default_factory=list)
    analysis: Analysis | None = None
    analysis_error: str | None = None
    analysis_usage: ModelUsage = Field(default_factory=ModelUsage)
    complete: bool = False

    def tests_of(self, weakness: str) -> list[AdversarialTest]:
        """The tests of ``weakness``, by round."""
        return sorted((t for t in self.tests if t.weakness == weakness), key=lambda t: t.round)

    def trajectory(self, weakness: str) -> list[float]:
        """The difficulties of ``weakness``'s thread: each test's, then the next one's."""
        tests = self.tests_of(weakness)
        points = [t.difficulty for t in tests]
        if tests and tests[-1].next_difficulty is not None:
            points.append(tests[-1].next_difficulty)
        return points

    def mean_score(self, weakness: str) -> float | None:
        """The mean overall score (1–10) of ``weakness``'s scored tests; ``None`` if none."""
        scores = [t.score for t in self.tests_of(weakness) if t.score is not None]
        return round(sum(scores) / len(scores), 2) if scores else None

    def usage_of(self, weakness: str | None = None) -> ModelUsage:
        """Model calls, tokens and cost (US dollars) of ``weakness``'s tests (all: ``None``)."""
        total = ModelUsage()
        for test in self.tests:
            if weakness is None or test.weakness == weakness:
                total.calls += test.usage.calls
                total.prompt_tokens += test.usage.prompt_tokens
                total.completion_tokens += test.usage.completion_tokens
                total.cost += test.usage.cost
        return total
