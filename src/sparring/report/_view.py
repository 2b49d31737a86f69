"""``RunView``: a read-only, cached view of one run directory, what every section reads.

The report is a reader: records come through ``RunStore`` (loaded once), check's stored
results through ``sparring.check``'s public ``CheckReport``; optional files of later jobs
(``explore/model.json``, ``coverage.json``…) are found with ``optional_file`` and read by
the sections that know them.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from sparring._gc import paused_gc
from sparring.check import CheckReport, RuleResult, Verdict
from sparring.conversations import (
    ConversationError,
    ConversationRecord,
    RunManifest,
    RunStore,
    RunSummary,
    Slot,
    incomplete_run,
    job_result_file,
    summarize,
)
from sparring.errors import Problem, UserInputError
from sparring.jobs.outcome import Outcome, combine
from sparring.jobs.outcome import Verdict as OutcomeVerdict

if TYPE_CHECKING:
    from sparring.report._section import SectionOutcome

VerdictStatus = Literal["passed", "failed", "no verdict"]


@dataclass(frozen=True)
class RunVerdict:
    """The run's overall verdict as ``sparring check``'s exit code reads it: ``failed``
    when a rule failed or raised, or a conversation carries a generic failure (500, 504,
    1000, 1001…); ``no verdict`` when no rule concluded anything (or none was checked), or
    when the run is incomplete (``conversations.incomplete_run``: it holds fewer
    conversations than it planned); else ``passed``. ``reasons`` are short sentences saying why.
    ``unchecked``: *no verdict* only because no rule was checked (the reason then says how
    to check the run from the command line; the dashboard offers its own form instead)."""

    status: VerdictStatus
    reasons: list[str] = field(default_factory=list)
    unchecked: bool = False


@dataclass(frozen=True)
class GenericFailure:
    """One generic failure recorded on a conversation: the record and its error."""

    record: ConversationRecord
    error: ConversationError


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _verdict_of(outcome: Outcome) -> RunVerdict:
    """A stored outcome as the report shows it: pass → passed, fail and error → failed,
    no verdict, incomplete and recorded (nothing judged) → no verdict."""
    status: VerdictStatus = (
        "passed" if outcome.verdict == "pass"
        else "failed" if outcome.verdict in ("fail", "error")
        else "no verdict"
    )  # fmt: skip
    return RunVerdict(status, list(outcome.reasons))


def _outcome_of(section: SectionOutcome) -> Outcome:
    verdict: OutcomeVerdict = (
        "pass" if section.status == "passed"
        else "fail" if section.status == "failed"
        else "no_verdict"
    )  # fmt: skip
    return Outcome(verdict=verdict, reasons=[section.reason])


class RunView:
    """A run directory, read once. Build it with ``RunView.open(path)``; every property is
    computed on first use and cached (the records are read once, in natural order)."""

    def __init__(self, store: RunStore) -> None:
        self.store = store

    @classmethod
    def open(cls, path: str | Path) -> RunView:
        """The run at ``path``. Raises ``UserInputError`` naming the path when it is not a
        run directory (no ``manifest.json``) or its manifest does not validate."""
        path = Path(path)
        if not path.is_dir():
            raise UserInputError(Problem(str(path), None, "", "not a run directory"))
        return cls(RunStore.open(path, clean=False))

    @property
    def path(self) -> Path:
        """The run directory."""
        return self.store.path

    @property
    def manifest(self) -> RunManifest:
        """The run's ``manifest.json``."""
        return self.store.manifest

    @property
    def imported(self) -> bool:
        """Whether the run was imported from another tool's files (SENSEI)."""
        return self.manifest.job == "import-sensei"

    @cached_property
    def records(self) -> list[ConversationRecord]:
        """Every conversation record. Raises ``ConfigError`` (a ``UserInputError``) naming
        the file of a record that cannot be read or does not validate."""
        with paused_gc():  # see sparring._gc: the collector would cost most of the read
            return list(self.store.iter_records())

    @cached_property
    def records_by_id(self) -> dict[str, ConversationRecord]:
        """The records by conversation id."""
        return {record.id: record for record in self.records}

    @cached_property
    def summary(self) -> RunSummary:
        """Counts, failures, response times and usage, computed from the records (so it
        matches them even when ``summary.json`` is missing or stale)."""
        return summarize(self.records)

    @cached_property
    def check_reports(self) -> dict[str, CheckReport]:
        """The check reports stored in ``verdicts/``, by name, oldest first. Raises
        ``ConfigError`` naming a verdict file that cannot be read."""
        with paused_gc():
            reports = {
                name: self.store.read_result(Slot.VERDICTS, name, CheckReport)
                for name in self.store.result_names(Slot.VERDICTS)
            }
        return dict(sorted(reports.items(), key=lambda item: item[1].created_at))

    def rule_results(self) -> list[tuple[str, RuleResult]]:
        """Every active rule's result, with the name of its report."""
        return [(name, r) for name, report in self.check_reports.items() for r in report.results]

    @cached_property
    def verdicts_by_conversation(self) -> dict[str, list[Verdict]]:
        """Rule verdicts (not the generic rows) by each conversation they involve: the one
        judged, both of a pair, and those a global rule's evidence names (a shared value);
        a global verdict that names none is on no conversation's page."""
        found: defaultdict[str, list[Verdict]] = defaultdict(list)
        for _, result in self.rule_results():
            for verdict in result.verdicts:
                for record_id in involved_turns(verdict, result.kind):
                    found[record_id].append(verdict)
        return dict(found)

    @cached_property
    def generic_failures(self) -> dict[str, list[GenericFailure]]:
        """Generic failures by failure name (``no_response``, ``timeout``,
        ``goal_not_completed``…), in code order."""
        found: defaultdict[tuple[int, str], list[GenericFailure]] = defaultdict(list)
        for record in self.records:
            for error in record.errors:
                found[(int(error.code), error.name)].append(GenericFailure(record, error))
        return {name: items for (_, name), items in sorted(found.items())}

    @cached_property
    def simulators(self) -> Counter[str]:
        """Conversations per user simulator (``agenda``, ``llm``, ``sensei``…)."""
        return Counter(record.simulator for record in self.records)

    @cached_property
    def section_outcomes(self) -> list[SectionOutcome]:
        """What the jobs whose sections apply concluded (``ReportSection.outcome``): a
        probe or metamorphic run decides pass or fail without check's rules."""
        from sparring.report._section import sections

        found: list[SectionOutcome] = []
        for section in sections():
            try:
                outcome = section.outcome(self) if section.applies(self) else None
            except Exception:  # a broken section shows its own error box; no verdict here
                continue
            if outcome is not None:
                found.append(outcome)
        return found

    @cached_property
    def verdict(self) -> RunVerdict:
        """The overall verdict (see ``RunVerdict``): the job's outcome stored in the manifest
        when no check report was stored after it (the runner decided it, stopped or
        finished; the report does not decide again); else never ``passed`` for an
        incomplete run."""
        if self._job_outcome is not None:
            return _verdict_of(self._job_outcome)
        verdict = self._stored_verdict or self._records_verdict
        incomplete = incomplete_run(self.path)
        if incomplete is None:
            return verdict
        status: VerdictStatus = "failed" if verdict.status == "failed" else "no verdict"
        said = incomplete.reason in verdict.reasons
        return RunVerdict(status, [*verdict.reasons, *([] if said else [incomplete.reason])])

    @cached_property
    def _job_outcome(self) -> Outcome | None:
        """The verdict the runner stored once in the manifest (``RunManifest.outcome``), the
        one the CLI and the runs list show: a ``run`` or ``mutate`` job's (its checks are
        in it), or any job's on a run without check reports. ``None`` for a run written
        before 0.3 (no stored outcome) or one checked after its job: then the stored check
        outcomes, or the records, decide (``_stored_verdict``, ``_records_verdict``)."""
        manifest = self.manifest
        if manifest.outcome is None:
            return None
        if manifest.job in ("run", "mutate") or not self.check_reports:
            return manifest.outcome
        return None

    @cached_property
    def _stored_verdict(self) -> RunVerdict | None:
        """The verdict the jobs stored on a run checked after its job — the report reads
        it, it does not decide it again: the outcomes stored with the check reports, with those of
        the sections (probes, metamorphic: their jobs' stored outcomes), the gravest first
        (``sparring.jobs.outcome.combine``). ``None`` for runs written before 0.3 (a check
        report without its outcome, a section's overriding outcome): then
        ``_records_verdict`` decides from what the run holds."""
        reports = list(self.check_reports.values())
        stored = [r.outcome for r in reports if r.outcome is not None]
        sections = self.section_outcomes
        if not reports or len(stored) < len(reports) or any(o.overrides for o in sections):
            return None
        combined = combine([*stored, *(_outcome_of(o) for o in sections)])
        return _verdict_of(combined) if combined is not None else None

    @cached_property
    def _records_verdict(self) -> RunVerdict:
        """The verdict on the records the run holds (a section's overriding outcome first)."""
        held = [o for o in self.section_outcomes if o.overrides]
        if held:
            return RunVerdict(held[0].status, [o.reason for o in held])
        reasons: list[str] = []
        failed = [r.rule for _, r in self.rule_results() if r.counts.fail]
        raised = [r.rule for _, r in self.rule_results() if r.counts.error]
        if failed:
            reasons.append(f"{_plural(len(failed), 'rule')} failed: {', '.join(failed)}")
        if raised:
            reasons.append(f"{_plural(len(raised), 'rule')} raised errors: {', '.join(raised)}")
        generic = self.generic_failures
        if generic:
            detail = ", ".join(f"{name} {len(items)}" for name, items in generic.items())
            reasons.append(f"generic failures: {detail}")
        outcomes = self.section_outcomes
        reasons += [o.reason for o in outcomes if o.status == "failed"]
        if failed or raised or generic or any(o.status == "failed" for o in outcomes):
            return RunVerdict("failed", reasons)
        if not self.records:
            return RunVerdict("no verdict", ["the run holds no conversations"])
        if not self.check_reports and outcomes:
            passed_jobs = [o.reason for o in outcomes if o.status == "passed"]
            if passed_jobs:
                return RunVerdict("passed", passed_jobs)
            return RunVerdict("no verdict", [o.reason for o in outcomes])
        if not self.check_reports:
            return RunVerdict(
                "no verdict",
                [
                    f"no rules checked: run `sparring check RULES --run {self.path.name}` "
                    "in the folder that holds this run"
                ],
                unchecked=True,
            )
        if all(report.inconclusive for report in self.check_reports.values()):
            why = "every verdict of every rule is not applicable or unscored"
            return RunVerdict("no verdict", [why])
        passed = sum(r.counts.passed for _, r in self.rule_results())
        return RunVerdict("passed", [f"{_plural(passed, 'check')} passed, no generic failure"])

    def job_result(self, name: str) -> Path | None:
        """The run's job result ``name`` (``probes``, ``metamorphic``…: ``results/<name>.json``,
        or ``<name>.json`` at the root of a run before 0.3), ``None`` when it has none."""
        found = job_result_file(self.path, name)
        return self.optional_file(str(found.relative_to(self.path)))

    def optional_file(self, relative: str) -> Path | None:
        """``<run>/<relative>`` if it is a file inside the run, else ``None`` (what later
        jobs' sections use for ``explore/model.json``, ``coverage.json``…)."""
        candidate = (self.path / relative).resolve()
        inside = candidate.is_relative_to(self.path.resolve())
        return candidate if inside and candidate.is_file() else None


def involved_turns(verdict: Verdict, kind: str) -> dict[str, list[int]]:
    """The conversations a verdict blames, each with its 0-based turns: the one judged
    (single), every one of the tuple (pair rules; the turns are the first's), or those
    its evidence names (a global rule's shared value; none when it names none)."""
    named: dict[str, list[int]] = {}
    for evidence in verdict.evidence:
        for record_id, turns in evidence.involved.items():
            named.setdefault(record_id, []).extend(turns)
    if named or kind == "global":
        return named
    ids = verdict.conversations if kind == "tuple" else verdict.conversations[:1]
    return {i: verdict.turns if n == 0 else [] for n, i in enumerate(ids)}
