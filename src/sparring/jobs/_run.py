"""What a job run ended with (``JobRun``): the result every way of running a job returns
(``sparring.runner.start``/``resume``, ``JobContext.run_job``/``resume_job``): the run
directory, status, outcome, the job's result typed ``R`` for a ``Job[S, R]``, the report."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Generic, Literal, TypeVar

from sparring.outcome import JobStatus, Outcome

R = TypeVar("R")


class _Missing(Enum):
    RESULT = "no result"


NO_RESULT: Literal[_Missing.RESULT] = _Missing.RESULT
"""What a run stopped before any work holds instead of a result."""


@dataclass(frozen=True)
class JobRun(Generic[R]):
    """What a job run ended with: its run directory (``None`` for a job that wrote into no
    run), status, outcome (verdict, reasons, ``exit_code``) and the job's own result
    (``result``, typed ``R`` for a job passed as an instance: ``Job[S, R]``)."""

    run_dir: Path | None
    status: JobStatus
    outcome: Outcome
    returned: R | Literal[_Missing.RESULT]
    """What the job's ``execute`` returned; ``NO_RESULT`` for a run stopped before any work
    (``has_result``)."""
    report: Path | None = None
    """The HTML report the runner wrote (a job whose ``needs.report``), ``None`` otherwise
    or when it could not be written."""

    @property
    def has_result(self) -> bool:
        """False for a run stopped before any work (the job never ran: no result)."""
        return self.returned is not NO_RESULT

    @property
    def result(self) -> R:
        """The job's result. Raises ``RuntimeError`` for a run stopped before any work
        (status ``stopped``, ``has_result`` false)."""
        if self.returned is NO_RESULT:
            raise RuntimeError("the job was stopped before any work: it has no result")
        return self.returned
