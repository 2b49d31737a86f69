"""Result types shared by every stage that judges conversations.

A rule (``check``), a breakdown detector (``evaluate``), a metamorphic relation and an
adversarial judge all end the same way: a ``Verdict`` on one conversation or a set of them,
with its status, why, the evidence behind it and what it cost. These types live here, in no
stage, so that a stage never imports another stage to read or write them.

Statuses:

- ``pass`` / ``fail``: the oracle held or was violated;
- ``not_applicable``: the check does not apply (a filter is false, a variable it reads is
  missing, a property over turns that do not exist);
- ``unscored``: it could not be judged (no model configured, a model reply that never
  validated, a budget spent); never read as pass or fail;
- ``error``: the oracle itself raised (the exception text is the reason).

Judges are stateless: they return these objects and never keep results on themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field

from sparring.types import Strategy

Status = Literal["pass", "fail", "not_applicable", "unscored", "error"]
STATUSES: tuple[Status, ...] = ("pass", "fail", "not_applicable", "unscored", "error")


@dataclass
class Evidence:
    """One function call's trace, kept with the verdict.

    ``function`` names the check or function that left it; ``strategy`` is how it judged;
    ``turns`` are 0-based turn indices involved; ``involved`` names, for a judgement over
    several conversations (a global rule's shared value), each conversation that shows it
    with its 0-based turns; ``prompt``/``reply`` are a model call's text (kept whether the
    call succeeded or not); ``cost`` is US dollars.
    """

    function: str
    strategy: Strategy = Strategy.OFFLINE
    reason: str | None = None
    turns: list[int] = field(default_factory=list)
    involved: dict[str, list[int]] = field(default_factory=dict)
    prompt: str | None = None
    reply: str | None = None
    cost: float = 0.0


class Verdict(BaseModel):
    """One check of one rule (or judge, detector, relation).

    ``rule`` names what was checked; ``conversations`` are the ids checked (one, an ordered
    tuple, or a population); ``reason`` says why (the oracle's non-boolean value, the
    exception text, a judge's reasoning); ``message`` is the rule's own text on failure;
    ``turns`` are the 0-based indices of the turns involved (of the first conversation);
    ``strategy`` is ``llm`` when any evidence came from a model, else ``offline``.
    """

    rule: str
    status: Status
    conversations: list[str]
    reason: str | None = None
    message: str | None = None
    evidence: list[Evidence] = Field(default_factory=list)
    turns: list[int] = Field(default_factory=list)
    strategy: Strategy = Strategy.OFFLINE

    @property
    def cost(self) -> float:
        """US dollars spent by the model calls behind this verdict."""
        return sum(item.cost for item in self.evidence)


def verdict_from_evidence(
    rule: str,
    status: Status,
    conversations: list[str],
    evidence: list[Evidence],
    *,
    reason: str | None = None,
    message: str | None = None,
) -> Verdict:
    """A verdict whose turns and strategy are read off ``evidence`` (duplicates dropped:
    an oracle and its message often call the same function)."""
    found: list[Evidence] = []
    for item in evidence:
        if item not in found:
            found.append(item)
    llm = any(item.strategy == Strategy.LLM for item in found)
    return Verdict(
        rule=rule,
        status=status,
        conversations=conversations,
        reason=reason,
        message=message,
        evidence=found,
        turns=sorted({turn for item in found for turn in item.turns}),
        strategy=Strategy.LLM if llm else Strategy.OFFLINE,
    )


class Counts(BaseModel):
    """How many checks ended in each status."""

    passed: int = Field(0, alias="pass")
    fail: int = 0
    not_applicable: int = 0
    unscored: int = 0
    error: int = 0

    model_config = {"populate_by_name": True}

    def add(self, status: Status, number: int = 1) -> None:
        attribute = "passed" if status == "pass" else status
        setattr(self, attribute, getattr(self, attribute) + number)

    @property
    def total(self) -> int:
        return self.passed + self.fail + self.not_applicable + self.unscored + self.error

    @property
    def scored(self) -> int:
        """Checks that ended in pass or fail."""
        return self.passed + self.fail
