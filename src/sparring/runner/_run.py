"""``find_job``: a job by its name in ``JOBS``, or the job itself."""

from __future__ import annotations

from typing import Any, TypeVar, overload

from sparring.errors import UnknownName, UserInputError
from sparring.jobs import JOBS, Job, JobSettings

S = TypeVar("S", bound=JobSettings)
R = TypeVar("R")


@overload
def find_job(job: str) -> Job[Any, Any]: ...
@overload
def find_job(job: Job[S, R]) -> Job[S, R]: ...
def find_job(job: str | Job[S, R]) -> Job[S, R] | Job[Any, Any]:
    """The job named ``job`` (``JOBS``), or ``job`` itself. Raises ``UserInputError`` for
    an unknown name."""
    if not isinstance(job, str):
        return job
    try:
        return JOBS.get(job)
    except UnknownName as exc:
        raise UserInputError(str(exc)) from None
