"""Repeats and flakiness: per rule pass^k and the conversations whose verdict changes
between repeats of the same plan (``simulate --repeat K``).

Records carrying ``plan`` (and ``repeat``) are grouped by plan. For each single-
conversation rule and each generic failure code, a plan's repeats are *judged* when each
of them passed or failed (an error counts as a failure); then

- ``pass_k`` (pass^k, Yao et al., "τ-bench", 2024, §4) is the share of judged plans whose
  K repeats all passed: the chance the chatbot gets it right every time;
- ``pass_1`` is the share of passing repeats over the judged plans (the single-run view);
- a plan is *flaky* for the rule when its repeats' statuses differ among pass, fail and
  error (not applicable and unscored repeats are left out of the comparison).

Metamorphic and global rules mix plans, so they get no figures.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from sparring.check._verdicts import RuleResult
    from sparring.conversations import ConversationRecord

_JUDGED = frozenset({"pass", "fail", "error"})


class RuleRepeats(BaseModel):
    """pass^k figures of one rule (or generic failure code) over repeated plans.

    ``plans`` judged plans, ``k`` the most repeats any plan has; ``pass_k`` and ``pass_1``
    are fractions in [0, 1] (``None`` with no judged plan); ``flaky`` maps each flaky plan
    to the statuses of its repeats, in repeat order (``pass``/``fail``/``error``/…).
    """

    rule: str
    plans: int = 0
    k: int = 0
    pass_k: float | None = None
    pass_1: float | None = None
    flaky: dict[str, list[str]] = Field(default_factory=dict)


def plans_of(records: Iterable[ConversationRecord]) -> dict[str, list[str]]:
    """Plan → the ids of its repeats in repeat order; only plans with 2+ repeats."""
    grouped: defaultdict[str, list[tuple[int, str]]] = defaultdict(list)
    for record in records:
        if record.plan is not None:
            grouped[record.plan].append((record.repeat or 0, record.id))
    return {plan: [i for _, i in sorted(ids)] for plan, ids in grouped.items() if len(ids) > 1}


def rule_repeats(result: RuleResult, plans: Mapping[str, Sequence[str]]) -> RuleRepeats | None:
    """The figures of one rule's result (``None`` for metamorphic and global rules)."""
    if result.kind not in ("single", "generic"):
        return None
    status = {v.conversations[0]: v.status for v in result.verdicts if len(v.conversations) == 1}
    figures = RuleRepeats(rule=result.rule)
    all_passed = passes = repeats = 0
    for plan, ids in plans.items():
        statuses = [status.get(i, "not_applicable") for i in ids]
        judged = [s for s in statuses if s in _JUDGED]
        if len(set(judged)) > 1:
            figures.flaky[plan] = list(map(str, statuses))
        if not judged or len(judged) < len(statuses):
            continue
        figures.plans += 1
        figures.k = max(figures.k, len(ids))
        all_passed += all(s == "pass" for s in judged)
        passes += sum(s == "pass" for s in judged)
        repeats += len(judged)
    if figures.plans:
        figures.pass_k = all_passed / figures.plans
        figures.pass_1 = passes / repeats
    return figures


def repeat_figures(
    results: Iterable[RuleResult], records: Iterable[ConversationRecord]
) -> list[RuleRepeats]:
    """pass^k figures of every result that has some (empty when nothing was repeated)."""
    plans = plans_of(records)
    if not plans:
        return []
    found = (rule_repeats(result, plans) for result in results)
    return [figures for figures in found if figures is not None]
