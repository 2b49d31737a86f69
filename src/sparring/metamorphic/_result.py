"""What ``sparring metamorphic`` found: ``<run>/metamorphic.json``, rewritten atomically
as follow-ups finish (``MetamorphicResult``)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from sparring.conversations import RunStore, Slot, job_result_file, read_json_model
from sparring.jobs import outcome as outcomes
from sparring.outcome import Outcome
from sparring.types import Strategy

METAMORPHIC = "metamorphic"
"""The job's result in its run's ``results`` slot."""
METAMORPHIC_FILE = f"results/{METAMORPHIC}.json"
"""That file, relative to the run (runs before 0.3: at its root)."""
SCHEMA_VERSION = 1

Severity = Literal["low", "medium", "high"]
Level = Literal["L1", "L2", "L3"]


class RelationCheck(BaseModel):
    """One relation checked on one round of a follow-up (a bug when ``passed`` is false).

    ``relation``: ``MR1`` context-preserving, ``MR2`` context-altering, ``MR3`` inner-group
    consistency, ``MR4`` inter-group divergence, ``EX`` exact values; ``position`` is the
    round in the follow-up, ``source_round`` the source round it came from (for MR3 and
    MR4 ``reference_position`` is the follow-up round compared with); ``similarity`` of
    the two replies (0..1, ``None`` for ``EX``) by ``method`` against ``threshold``;
    ``severity`` grows with the distance from the threshold (EX: always ``high``) and
    ``severity_reason`` says why; ``level`` (L1 source right,
    follow-up wrong; L2 source wrong, follow-up right; L3 both wrong) needs gold answers.
    """

    model_config = ConfigDict(extra="forbid")

    relation: str
    follow_up: str
    seed: str
    perturbation: str
    position: int
    source_round: int
    reference_position: int | None = None
    question: str
    follow_up_question: str
    reference: str
    """The reply compared with: the source reply (MR1, MR2, EX) or the other occurrence's."""
    reply: str
    gold: str | None = None
    source_answerable: bool | None = None
    answerable: bool | None = None
    answerability_strategy: Strategy | None = None
    answerability_reason: str = ""
    similarity: float | None = None
    method: str | None = None
    threshold: float | None = None
    passed: bool
    severity: Severity | None = None
    severity_reason: str | None = None
    level: Level | None = None
    reason: str


class FollowUpSummary(BaseModel):
    """One follow-up test: its link, how many relations were checked and violated, and
    why none was when ``checks`` is 0."""

    model_config = ConfigDict(extra="forbid")

    id: str
    seed: str
    perturbation: str
    order: list[int]
    checks: int = 0
    bugs: int = 0
    note: str = ""

    @property
    def effective(self) -> bool:
        return self.checks > 0


class Metrics(BaseModel):
    """MORTAR's metrics (§4.3): test cases (follow-ups replayed, those of user-written
    relations excepted: ``sparring check`` judges them), effective test cases
    (those on which some relation could be checked), the number of bugs (violated
    checks), unique bugs (distinct seed × source round × relation), bugs per effective
    test case, and counts per relation, perturbation, severity and level."""

    test_cases: int = 0
    effective_test_cases: int = 0
    checks: int = 0
    bugs: int = 0
    unique_bugs: int = 0
    bugs_per_test_case: float | None = None
    by_relation: dict[str, int] = Field(default_factory=dict)
    by_perturbation: dict[str, int] = Field(default_factory=dict)
    by_severity: dict[str, int] = Field(default_factory=dict)
    by_level: dict[str, int] = Field(default_factory=dict)


class SkippedSeed(BaseModel):
    seed: str
    reason: str


class MetamorphicResult(BaseModel):
    """The content of ``metamorphic.json``. ``similarity`` names the method every
    similarity was computed with (``embeddings``, else the ``tf-idf`` fallback);
    ``answerability`` the strategy of the answerability verdicts; ``complete`` is false
    while follow-ups are still being replayed."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = SCHEMA_VERSION
    seeds: str
    chatbot: str
    similarity: str
    threshold: float
    answerability: Strategy | None = None
    perturbations: list[str]
    skipped: list[SkippedSeed] = Field(default_factory=list)
    follow_ups: list[FollowUpSummary] = Field(default_factory=list)
    bugs: list[RelationCheck] = Field(default_factory=list)
    metrics: Metrics = Field(default_factory=Metrics)
    complete: bool = False
    notes: list[str] = Field(default_factory=list)

    def recount(self, checks: int) -> None:
        """Recompute ``metrics`` from ``follow_ups`` and ``bugs`` (``checks`` in all)."""
        effective = sum(1 for f in self.follow_ups if f.effective)
        judged_by_rules = sum(1 for f in self.follow_ups if f.perturbation.startswith("rule:"))
        self.metrics = Metrics(
            test_cases=len(self.follow_ups) - judged_by_rules,
            effective_test_cases=effective,
            checks=checks,
            bugs=len(self.bugs),
            unique_bugs=len({(b.seed, b.source_round, b.relation) for b in self.bugs}),
            bugs_per_test_case=len(self.bugs) / effective if effective else None,
            by_relation=dict(Counter(b.relation for b in self.bugs)),
            by_perturbation=dict(Counter(b.perturbation for b in self.bugs)),
            by_severity=dict(Counter(b.severity for b in self.bugs if b.severity)),
            by_level=dict(Counter(b.level for b in self.bugs if b.level)),
        )

    def write(self, store: RunStore) -> Path:
        """Write ``<run>/results/metamorphic.json`` atomically (the run's ``results``
        slot); return its path."""
        return store.write_result(Slot.RESULTS, METAMORPHIC, self)


def read_metamorphic(folder: Path) -> MetamorphicResult | None:
    """``<folder>/results/metamorphic.json`` (or, in a run before 0.3,
    ``<folder>/metamorphic.json``), ``None`` when absent. Raises ``ConfigError`` when
    it does not validate."""
    path = job_result_file(folder, METAMORPHIC)
    return read_json_model(path, MetamorphicResult) if path.is_file() else None


def metamorphic_outcome(result: MetamorphicResult) -> Outcome:
    """The outcome, as ``check``'s: ``fail`` when a relation was violated, ``no_verdict``
    when no follow-up was effective (nothing concluded: never reported as a pass), else
    ``pass``."""
    metrics = result.metrics
    if result.bugs:
        return outcomes.failed(
            f"{metrics.bugs} metamorphic relation violations in {metrics.test_cases} follow-ups"
        )
    if not metrics.effective_test_cases:
        return outcomes.no_verdict("no follow-up could be judged by any relation")
    return outcomes.passed(f"{metrics.effective_test_cases} follow-ups judged, no violation")


def exit_code(result: MetamorphicResult) -> int:
    """The exit code of ``metamorphic_outcome``: 1 fail, 3 no verdict, 0 pass."""
    return metamorphic_outcome(result).exit_code
