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
from typing import Literal

from sparring._gc import paused_gc
from sparring.check import CheckReport, RuleResult, Verdict
from sparring.conversations import (
    ConversationError,
    ConversationRecord,
    RunManifest,
    RunStore,
    RunSummary,
    Slot,
    job_result_file,
    summarize,
)
from sparring.errors import Problem, UserInputError
from sparring.outcome import Outcome, combine

VerdictStatus = Literal["passed", "failed", "no verdict"]


@dataclass(frozen=True)
class RunVerdict:
    """The run's verdict as the report shows it (``RunView.verdict``: the one the runner
    stored): ``passed``, ``failed`` (fail or error) or ``no verdict`` (nothing judged,
    nothing could be judged, or the run is incomplete); ``reasons`` are short sentences
    saying why. ``unchecked``: *no verdict* only because nothing judged the run yet (its
    job recorded conversations and no check was stored: the reasons then say how to check
    it from the command line; the dashboard offers its own form instead)."""

    status: VerdictStatus
    reasons: list[str] = field(default_factory=list)
    unchecked: bool = False


@dataclass(frozen=True)
class GenericFailure:
    """One generic failure recorded on a conversation: the record and its error."""

    record: ConversationRecord
    error: ConversationError


def _verdict_of(outcome: Outcome) -> RunVerdict:
    """A stored outcome as the report shows it: pass → passed, fail and error → failed,
    no verdict, incomplete and recorded (nothing judged) → no verdict."""
    status: VerdictStatus = (
        "passed" if outcome.verdict == "pass"
        else "failed" if outcome.verdict in ("fail", "error")
        else "no verdict"
    )  # fmt: skip
    return RunVerdict(status, list(outcome.reasons), unchecked=outcome.verdict == "recorded")


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
    def verdict(self) -> RunVerdict:
        """The run's verdict as the runner stored it in the manifest
        (``RunManifest.outcome``: the job's outcome, combined with the checks stored after
        it) — the one the CLI, the runs list and the run page show; the report never
        decides it again. A run without one (written before 0.3, or by hand): the outcomes
        stored with its check reports, else *no verdict*."""
        stored = self.manifest.outcome
        if stored is None:
            checked = [r.outcome for r in self.check_reports.values() if r.outcome is not None]
            stored = combine(checked)
        if stored is not None:
            return _verdict_of(stored)
        hint = f"run `sparring check RULES --run {self.path.name}` in the folder that holds it"
        return RunVerdict("no verdict", [f"no rules checked: {hint}"], unchecked=True)

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
