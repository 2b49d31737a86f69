"""Comparing two runs (``sparring diff BASELINE NEW``): what a team checks in CI against
the last release.

Each run is a run directory with its conversations and the verdicts ``sparring check``
stored in it (``verdicts/<name>.json``; the same rule set's file in both runs, else each
run's newest). The comparison, a pure function of the two runs' reports and records:

- rules that newly fail (no failure or error before, some now), that were fixed (the
  reverse), and that became flaky (flaky plans now, none before: ``check._flaky``);
- conversations whose verdict on a rule changed, with the turns whose text differs. They
  are paired by id (the same profiles and seed plan the same ids), except conversations
  imported from SENSEI, whose ids carry the execution's timestamp: those are paired by
  profile and serial number (``<n>_<profile>_…``), see ``pairing_keys``;
- the chatbot's response time (p50 and p95 over assistant turns, seconds) and the run's
  model cost (US dollars) in each run.

A *regression* — a rule that newly fails or newly flaky, or a conversation that went from
pass to fail or error — makes ``diff`` exit 1. When either run is incomplete (it holds fewer
conversations than it planned: ``conversations.incomplete_run``) and nothing regressed,
the answer is NO VERDICT (exit 3), never NO REGRESSION: the missing conversations are
named in ``incomplete``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from pydantic import BaseModel, Field

from sparring.check import CheckReport
from sparring.conversations import SENSEI, ConversationRecord, percentile
from sparring.jobs import outcome as outcomes
from sparring.outcome import Outcome

_FAILING = frozenset({"fail", "error"})
MAX_TURNS_SHOWN = 3


class TurnChange(BaseModel):
    """One turn whose text differs between the runs (``None``: the turn is missing)."""

    index: int
    role: str
    baseline: str | None
    new: str | None


class VerdictChange(BaseModel):
    """A conversation whose verdict on ``rule`` changed, with the turns that differ."""

    rule: str
    conversation: str
    baseline: str
    new: str
    turns: list[TurnChange] = Field(default_factory=list)

    @property
    def regression(self) -> bool:
        return self.baseline == "pass" and self.new in _FAILING


class Timing(BaseModel):
    """Response time (seconds, over assistant turns) and model cost (US dollars) of a run."""

    p50: float | None = None
    p95: float | None = None
    cost: float = 0.0


class RunDiff(BaseModel):
    """The comparison of a new run with its baseline (see the module docstring)."""

    newly_failing: list[str] = Field(default_factory=list)
    fixed: list[str] = Field(default_factory=list)
    newly_flaky: list[str] = Field(default_factory=list)
    changed: list[VerdictChange] = Field(default_factory=list)
    only_baseline: list[str] = Field(default_factory=list)
    only_new: list[str] = Field(default_factory=list)
    baseline_timing: Timing = Field(default_factory=Timing)
    new_timing: Timing = Field(default_factory=Timing)
    rules: list[str] = Field(default_factory=list)
    incomplete: list[str] = Field(default_factory=list)
    """Why a run is incomplete (one sentence per incomplete run, naming what is missing)."""

    @property
    def regression(self) -> bool:
        """Whether anything got worse (what makes ``diff`` exit 1)."""
        return bool(
            self.newly_failing or self.newly_flaky or any(c.regression for c in self.changed)
        )

    @property
    def no_verdict(self) -> bool:
        """Nothing regressed but a run is incomplete (what makes ``diff`` exit 3)."""
        return not self.regression and bool(self.incomplete)

    @property
    def outcome(self) -> Outcome:
        """``fail`` on a regression, ``no_verdict`` when nothing regressed but a run is
        incomplete (never a pass), else ``pass`` (the exit code: 1, 3, 0)."""
        if self.regression:
            worse = len(self.newly_failing) + len(self.newly_flaky)
            changed = sum(c.regression for c in self.changed)
            return outcomes.failed(
                f"{worse} rules newly failing or flaky, {changed} conversations pass → fail"
            )
        if self.incomplete:
            return outcomes.no_verdict(*self.incomplete)
        return outcomes.passed("no regression")


def timing(records: Iterable[ConversationRecord]) -> Timing:
    """p50/p95 response time and model cost of ``records``."""
    latencies: list[float] = []
    cost = 0.0
    for record in records:
        latencies += [t.latency for t in record.turns if t.latency is not None]
        cost += sum(usage.cost for usage in record.usage.values())
    if not latencies:
        return Timing(cost=cost)
    return Timing(p50=percentile(latencies, 50), p95=percentile(latencies, 95), cost=cost)


def pairing_keys(records: Iterable[ConversationRecord]) -> dict[str, str]:
    """Conversation id → the key that pairs it with its counterpart in another run: the id
    itself, except for a conversation imported from SENSEI (its id holds the run's
    timestamp), whose key is ``<profile>#<serial number>``; when a run holds that pair more
    than once (several executions in one folder) the k-th, in id order, gets ``~k``."""
    keys: dict[str, str] = {}
    seen: dict[str, int] = {}
    for record in sorted(records, key=lambda r: r.id):
        if record.simulator != SENSEI:
            keys[record.id] = record.id
            continue
        base = f"{record.profile}#{record.index}"
        count = seen[base] = seen.get(base, -1) + 1
        keys[record.id] = base if count == 0 else f"{base}~{count}"
    return keys


def differing_turns(
    baseline: ConversationRecord | None, new: ConversationRecord | None
) -> list[TurnChange]:
    """The turns whose text differs (at most ``MAX_TURNS_SHOWN``, from the first)."""
    if baseline is None or new is None:
        return []
    changes = []
    for index in range(max(len(baseline.turns), len(new.turns))):
        old = baseline.turns[index] if index < len(baseline.turns) else None
        now = new.turns[index] if index < len(new.turns) else None
        if old is not None and now is not None and old.text == now.text:
            continue
        role = (now or old).role  # type: ignore[union-attr]
        changes.append(
            TurnChange(index=index, role=role, baseline=old and old.text, new=now and now.text)
        )
        if len(changes) == MAX_TURNS_SHOWN:
            break
    return changes


def _statuses(report: CheckReport) -> dict[str, dict[str, str]]:
    """Rule → conversation → status, for single-conversation rules and generic codes."""
    found: dict[str, dict[str, str]] = {}
    for result in [*report.results, *report.generic]:
        if result.kind in ("single", "generic"):
            found[result.rule] = {v.conversations[0]: v.status for v in result.verdicts}
    return found


def _failing(report: CheckReport) -> set[str]:
    return {r.rule for r in [*report.results, *report.generic] if r.counts.fail or r.counts.error}


def compare(
    baseline: CheckReport,
    new: CheckReport,
    baseline_records: Sequence[ConversationRecord],
    new_records: Sequence[ConversationRecord],
) -> RunDiff:
    """Compare ``new`` with ``baseline`` (reports of the same rules, and their records)."""
    old_keys, new_keys = pairing_keys(baseline_records), pairing_keys(new_records)
    old_paired = {old_keys.get(c, c) for c in baseline.conversations}
    new_paired = {new_keys.get(c, c) for c in new.conversations}
    old_rules = {r.rule for r in [*baseline.results, *baseline.generic]}
    rules = [r.rule for r in [*new.results, *new.generic] if r.rule in old_rules]
    failing_before, failing_now = _failing(baseline), _failing(new)
    flaky_before = {r.rule for r in baseline.repeats if r.flaky}
    diff = RunDiff(
        rules=rules,
        newly_failing=[r for r in rules if r in failing_now and r not in failing_before],
        fixed=[r for r in rules if r in failing_before and r not in failing_now],
        newly_flaky=[r.rule for r in new.repeats if r.flaky and r.rule not in flaky_before],
        only_baseline=sorted(
            c for c in baseline.conversations if old_keys.get(c, c) not in new_paired
        ),
        only_new=sorted(c for c in new.conversations if new_keys.get(c, c) not in old_paired),
        baseline_timing=timing(baseline_records),
        new_timing=timing(new_records),
    )
    diff.changed = _changed(rules, baseline, new, baseline_records, new_records)
    return diff


def _changed(
    rules: Sequence[str],
    baseline: CheckReport,
    new: CheckReport,
    baseline_records: Sequence[ConversationRecord],
    new_records: Sequence[ConversationRecord],
) -> list[VerdictChange]:
    old_keys, new_keys = pairing_keys(baseline_records), pairing_keys(new_records)
    before = {
        rule: {old_keys.get(c, c): status for c, status in statuses.items()}
        for rule, statuses in _statuses(baseline).items()
    }
    now = _statuses(new)
    old_by_key: Mapping[str, ConversationRecord] = {old_keys[r.id]: r for r in baseline_records}
    new_by_id: Mapping[str, ConversationRecord] = {r.id: r for r in new_records}
    changes = []
    for rule in rules:
        for conversation, status in now.get(rule, {}).items():
            key = new_keys.get(conversation, conversation)
            old = before.get(rule, {}).get(key)
            if old is None or old == status:
                continue
            turns = differing_turns(old_by_key.get(key), new_by_id.get(conversation))
            changes.append(VerdictChange(rule=rule, conversation=conversation, baseline=old,
                                         new=status, turns=turns))  # fmt: skip
    return changes
