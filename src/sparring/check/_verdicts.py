"""Verdicts: what checking a rule on a conversation (or a tuple of them) concluded.

Rules are stateless; ``check`` returns these objects and never stores them on a rule.
A ``Verdict`` is ``pass``, ``fail``, ``not_applicable`` (the filter ``when`` or premise
``if`` is false, raised, or a variable the rule reads is missing), ``unscored`` (a
model-backed function could not judge: no model configured, or its reply never validated)
or ``error`` (the oracle raised; the exception text is the reason).

SENSEI-check's results table (``rule,checks,pass,fail,not_applicable,fail_rate``) counts
an oracle that raises as *not applicable* for single-conversation and global rules, and as
a *failure* for metamorphic ones (``metamorphic/rules.py`` of user-simulator 1.1.5, which
aborts the whole check instead when no pair was judged before); ``RuleResult.sensei_row``
follows that mapping so the table is comparable, and adds an ``errors`` column (appended
after SENSEI's) counting those checks, so that a rule raising on most conversations never
hides behind a "0.00%" fail rate.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from sparring.check._flaky import RuleRepeats
from sparring.outcome import Outcome
from sparring.results import Counts, Verdict

ResultKind = Literal["single", "tuple", "global", "generic"]
SENSEI_COLUMNS = ("rule", "checks", "pass", "fail", "not_applicable", "fail_rate", "errors")
REPORT_SCHEMA_VERSION = 1
MAX_LISTED_PASSES = 100_000
"""Passing tuples of a metamorphic rule listed in ``RuleResult.passed``; more are counted."""


class RuleResult(BaseModel):
    """Every verdict of one rule (or one generic failure code) on a conversation set.

    For metamorphic rules (``kind == "tuple"``) the passing tuples are listed compactly in
    ``passed`` (up to ``MAX_LISTED_PASSES``) and the tuples the filter excluded are only
    counted; ``verdicts`` then holds
    the failures, errors and unscored checks. ``duration`` is seconds.
    """

    rule: str
    kind: ResultKind
    description: str = ""
    file: str | None = None
    arity: int | None = None
    counts: Counts = Field(default_factory=Counts)
    verdicts: list[Verdict] = Field(default_factory=list)
    passed: list[list[str]] = Field(default_factory=list)
    passed_omitted: int = 0
    """Passing tuples counted but not listed (past ``MAX_LISTED_PASSES``)."""
    duration: float = 0.0
    outcome: Outcome | None = None
    """The check job's outcome (verdict, reasons), stored with the report so the report
    and the dashboard read it instead of deciding again; ``None`` in reports written
    before 0.3 or by ``check()`` alone."""

    @property
    def failed(self) -> bool:
        """Whether any check failed or raised (what makes ``sparring check`` exit 1)."""
        return self.counts.fail > 0 or self.counts.error > 0

    def sensei_row(self) -> dict[str, str | int]:
        """This result as a row of SENSEI-check's results CSV."""
        counts = self.counts
        errors_fail = self.kind == "tuple"
        passed = counts.passed
        fail = counts.fail + (counts.error if errors_fail else 0)
        not_applicable = counts.not_applicable + counts.unscored
        not_applicable += 0 if errors_fail else counts.error
        rate = 100.0 * fail / (passed + fail) if passed + fail else 0.0
        return {
            "rule": self.rule,
            "checks": passed + fail + not_applicable,
            "pass": passed,
            "fail": fail,
            "not_applicable": not_applicable,
            "fail_rate": f"{rate:.2f}%",
            "errors": counts.error,
        }


class CheckReport(BaseModel):
    """The outcome of ``sparring check``: one ``RuleResult`` per active rule, then one per
    generic failure code (``generic``), with what was checked. ``duration`` is seconds."""

    schema_version: int = REPORT_SCHEMA_VERSION
    created_at: datetime
    rule_files: list[str] = Field(default_factory=list)
    ruleset: str = ""
    source: str | None = None
    conversations: list[str] = Field(default_factory=list)
    model: str | None = None
    results: list[RuleResult] = Field(default_factory=list)
    generic: list[RuleResult] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    repeats: list[RuleRepeats] = Field(default_factory=list)
    """pass^k and flaky conversations per rule when the run has repeats (``_flaky``)."""
    duration: float = 0.0
    outcome: Outcome | None = None
    """The check job's outcome (verdict, reasons), stored with the report so the report
    and the dashboard read it instead of deciding again; ``None`` in reports written
    before 0.3 or by ``check()`` alone."""

    @property
    def failed(self) -> bool:
        """Whether any active rule failed or raised."""
        return any(result.failed for result in self.results)

    def result(self, rule: str) -> RuleResult:
        """The result of the rule (or generic code) named ``rule``; ``KeyError`` if none."""
        for result in [*self.results, *self.generic]:
            if result.rule == rule:
                return result
        raise KeyError(rule)

    def sensei_rows(self) -> list[dict[str, str | int]]:
        """SENSEI-check's results table: the rules, then the generic failure codes."""
        return [result.sensei_row() for result in [*self.results, *self.generic]]

    @property
    def generic_failed(self) -> bool:
        """Whether any conversation carries a generic failure (no response, timeout, loop
        limit, goals not completed, …), as SENSEI-check's generic rows count them."""
        return any(result.counts.fail for result in self.generic)

    @property
    def inconclusive(self) -> bool:
        """Whether the rules concluded nothing: every verdict of every active rule is not
        applicable or unscored (also when there is no active rule). Never a pass."""
        return not any(r.counts.passed or r.counts.fail or r.counts.error for r in self.results)
