"""What ``sparring mutate`` found: ``results/mutation.json`` (schema below), written through
the run's ``RunStore`` slot each time a mutant finishes, so an interrupted job resumes from
it (runs written before 0.3 hold it at their root: still read).

``MutationResult`` holds the job's settings, the sampled mutant ids, the original's run
(its false positives: rules and generic codes that already fail on the unmutated bot and
so can kill nothing), one ``MutantResult`` per finished mutant, the mutation score and a
per-operator table. Durations are seconds.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from sparring.conversations import RunStore, Slot, job_result_file, read_json_model
from sparring.jobs import outcome as outcomes
from sparring.mutation._model import Location
from sparring.outcome import Outcome

MUTATION = "mutation"
"""The job's result in its folder's ``results`` slot."""
MUTATION_FILE = f"{Slot.RESULTS.value}/{MUTATION}.json"
"""That file, relative to the run (before 0.3: at its root)."""
MUTATION_SCHEMA_VERSION = 1

MutantStatus = Literal["killed", "live", "stillborn", "error"]
"""``killed``: a rule or generic failure failed on the mutant and not on the original;
``live``: nothing told it apart; ``stillborn``: it could not be built (training failed, the
server never started); ``error``: sparring itself failed on it (a bug, not the bot's)."""

UNREACHABLE = "unreachable"
"""The ``killed_by`` name of a built mutant whose bot did not answer the reachability probe
(the original answered it, else the job stops before any mutant)."""


class Durations(BaseModel):
    """Seconds spent building (train + serve), running the profiles, and checking."""

    build: float = 0.0
    run: float = 0.0
    check: float = 0.0

    @property
    def total(self) -> float:
        return self.build + self.run + self.check


class OriginalResult(BaseModel):
    """The unmutated bot's run (the job's output folder itself): its conversations, the
    rules and generic codes that failed on it (false positives, never used to kill), what
    the builder noted (``cached model reused``), and how long it took."""

    conversations: int = 0
    false_positives: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    durations: Durations = Field(default_factory=Durations)
    runs: int = 1
    flaky: list[str] = Field(
        default_factory=list,
        description="False positives that failed on some runs of the original, not all.",
    )


class MutantResult(BaseModel):
    """One mutant's outcome: what it is, its status, what killed it (rule names, generic
    failure names such as ``goal_not_completed``, or ``unreachable``), where its run is
    (relative to the job's folder), why it was stillborn or errored, what the builder
    noted, and the durations."""

    id: str
    operator: str
    location: Location
    description: str
    diff: str = ""
    status: MutantStatus
    killed_by: list[str] = Field(default_factory=list)
    run: str | None = None
    reason: str | None = None
    notes: list[str] = Field(default_factory=list)
    durations: Durations = Field(default_factory=Durations)


class OperatorRow(BaseModel):
    """One operator's line in the score table."""

    operator: str
    total: int = 0
    killed: int = 0
    live: int = 0
    stillborn: int = 0
    error: int = 0
    score: float | None = None


class MutationResult(BaseModel):
    """The content of ``mutation.json``. ``score`` is killed / (finished − stillborn −
    error), ``None`` while no mutant counts; ``complete`` once every sampled mutant has
    finished."""

    schema_version: int = MUTATION_SCHEMA_VERSION
    created_at: datetime
    updated_at: datetime
    settings: dict[str, Any] = Field(default_factory=dict)
    sampled: list[str] = Field(default_factory=list)
    original: OriginalResult | None = None
    mutants: list[MutantResult] = Field(default_factory=list)
    score: float | None = None
    operators: list[OperatorRow] = Field(default_factory=list)
    complete: bool = False

    def finished_ids(self) -> set[str]:
        return {m.id for m in self.mutants}

    def count(self, status: MutantStatus) -> int:
        return sum(m.status == status for m in self.mutants)

    def killed_by_table(self) -> dict[str, list[str]]:
        """Rule or code → the ids of the mutants it killed (sorted by name)."""
        table: dict[str, list[str]] = {}
        for mutant in self.mutants:
            for name in mutant.killed_by:
                table.setdefault(name, []).append(mutant.id)
        return dict(sorted(table.items()))

    def add(self, mutant: MutantResult, now: datetime) -> None:
        """Record ``mutant`` (replacing an earlier result with its id) and recompute the
        score, the operator table and ``complete``."""
        self.mutants = [m for m in self.mutants if m.id != mutant.id] + [mutant]
        order = {mutant_id: i for i, mutant_id in enumerate(self.sampled)}
        self.mutants.sort(key=lambda m: order.get(m.id, len(order)))
        self.refresh(now)

    def refresh(self, now: datetime) -> None:
        self.score = mutation_score(self.mutants)
        self.operators = operator_table(self.mutants)
        self.complete = bool(self.sampled) and set(self.sampled) <= self.finished_ids()
        self.updated_at = now

    def write(self, store: RunStore) -> Path:
        """Write ``results/mutation.json`` of the run ``store`` atomically (its results
        slot); return its path. Raises ``OSError``."""
        return store.write_result(Slot.RESULTS, MUTATION, self)


def mutation_score(mutants: list[MutantResult]) -> float | None:
    """killed / (mutants − stillborn − error); ``None`` when no mutant counts."""
    counted = [m for m in mutants if m.status in ("killed", "live")]
    if not counted:
        return None
    return sum(m.status == "killed" for m in counted) / len(counted)


def operator_table(mutants: list[MutantResult]) -> list[OperatorRow]:
    """One row per operator (sorted by name) with its counts and score."""
    rows: dict[str, OperatorRow] = {}
    for mutant in mutants:
        row = rows.setdefault(mutant.operator, OperatorRow(operator=mutant.operator))
        row.total += 1
        setattr(row, mutant.status, getattr(row, mutant.status) + 1)
    for operator, row in rows.items():
        row.score = mutation_score([m for m in mutants if m.operator == operator])
    return [rows[name] for name in sorted(rows)]


def read_mutation(folder: Path | str) -> MutationResult | None:
    """``<folder>/results/mutation.json`` (or, in a run written before 0.3,
    ``<folder>/mutation.json``), or ``None`` when absent. Raises ``ConfigError`` when it
    does not validate or has a ``schema_version`` this sparring cannot read."""
    path = job_result_file(folder, MUTATION)
    return read_json_model(path, MutationResult) if path.is_file() else None


def mutation_outcome(result: MutationResult, min_score: float | None = None) -> Outcome:
    """The mutate job's outcome: ``no_verdict`` when no mutant counted (all stillborn or
    errors: nothing was tested, never a pass); with ``min_score`` (a share in [0, 1]),
    ``fail`` below it; else ``pass`` (the score is a measurement of the rules)."""
    score = result.score
    killed, live = result.count("killed"), result.count("live")
    line = f"mutation score {score:.0%} ({killed} killed, {live} live)" if score is not None else ""
    if score is None:
        reason = "no mutant counted: every mutant was stillborn or failed to run"
        return outcomes.failed(reason) if min_score is not None else outcomes.no_verdict(reason)
    if min_score is not None and score < min_score:
        return outcomes.failed(f"{line}, below --min-score {min_score:.0%}")
    return outcomes.passed(line)
