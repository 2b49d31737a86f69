"""What a user does to a run, in one place for the pages and the API: start, stop,
resume, delete, and the run list's filters. Callers have already checked access through
``_permissions``; these functions act and write the audit log."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings as django_settings
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.dateparse import parse_date, parse_datetime

from sparring.web._audit import record
from sparring.web._worker import (
    applied_root,
    launch,
    launch_applied,
    run_folder,
    worker,
)
from sparring.web.models import Project, Run, RunJob, RunStatus

ACTIVE = (RunStatus.QUEUED, RunStatus.RUNNING)
"""A run (or applied job) in these states has not ended."""

RUN_FILTERS = ("project", "job", "status", "verdict", "tag", "after", "before", "archived")
"""The query parameters ``filter_runs`` reads (the runs page and ``GET /api/runs/``)."""


def parse_moment(value: str) -> Any:
    """An ISO date-time, or a date (its midnight); ``None`` when neither."""
    try:
        moment = parse_datetime(value)
        if moment is None and (day := parse_date(value)) is not None:
            moment = datetime(day.year, day.month, day.day)
    except ValueError:
        return None
    if moment is not None and moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment


def filter_runs(rows: QuerySet[Run], query: Mapping[str, str]) -> QuerySet[Run]:
    """``rows`` narrowed by the filters in ``query``: ``project`` (id), ``job``,
    ``status``, ``verdict`` (exact), ``tag`` (one of the run's tags), ``after`` and
    ``before`` (ISO dates or date-times, UTC; ``after`` inclusive); archived runs only with
    ``archived`` (``1``: only them, ``all``: with the others). Unknown or malformed values
    are ignored, never an error."""
    archived = query.get("archived")
    if archived != "all":
        rows = rows.filter(archived=archived == "1")
    if (project := query.get("project")) and str(project).isdigit():
        rows = rows.filter(project_id=int(project))
    for field in ("job", "status", "verdict"):
        if value := query.get(field):
            rows = rows.filter(**{field: value})
    if tag := query.get("tag"):
        # JSON containment is not portable to SQLite: the tags are matched here
        tagged = [pk for pk, tags in rows.values_list("pk", "tags") if tag in (tags or [])]
        rows = rows.filter(pk__in=tagged)
    for name, lookup in (("after", "created_at__gte"), ("before", "created_at__lt")):
        if (value := query.get(name)) and (moment := parse_moment(value)) is not None:
            rows = rows.filter(**{lookup: moment})
    return rows


def start_run(
    request: HttpRequest, project: Project, job: str, settings: dict[str, Any], tags: list[str]
) -> Run:
    """Create and queue a run of ``job`` in ``project``. Raises ``UserInputError`` (nothing
    is kept then) for settings the job or the dashboard refuses."""
    from sparring.errors import UserInputError

    user = request.user if request.user.is_authenticated else None
    run = Run.objects.create(project=project, job=job, created_by=user, tags=tags)
    run.path = str(run_folder(project, run.pk))
    run.save(update_fields=["path"])
    try:
        launch(run, settings)
    except UserInputError:
        run.delete()
        raise
    record("run_started", request=request, project=project, run=run.pk, job=job)
    return run


def stop_run(request: HttpRequest, run: Run) -> None:
    """Ask ``run``'s job to end cleanly (what finished is kept)."""
    worker().stop(run)
    record("run_stopped", request=request, project=run.project, run=run.pk)


def resume_run(request: HttpRequest, run: Run) -> None:
    """Queue a stopped or failed run again. Raises ``UserInputError`` for a run in another
    state."""
    worker().resume(run)
    record("run_resumed", request=request, project=run.project, run=run.pk)


def apply_job(request: HttpRequest, run: Run, job: str, settings: dict[str, Any]) -> RunJob:
    """Create and queue ``job`` (one that writes into an existing run: ``check``,
    ``evaluate``) applied to ``run``. Raises ``UserInputError`` (nothing is kept then) for
    a job that creates runs, a run that has not ended, or settings the job or the
    dashboard refuses."""
    from sparring.errors import UserInputError
    from sparring.web._launch import applied_job_names

    if job not in applied_job_names():
        raise UserInputError(f"{job!r} is not a job that applies to an existing run")
    if run.status in ACTIVE or run.applied.filter(status__in=ACTIVE).exists():
        raise UserInputError("this run has a job under way: wait until it ends or stop it")
    user = request.user if request.user.is_authenticated else None
    applied = RunJob.objects.create(run=run, job=job, created_by=user)
    try:
        launch_applied(applied, settings)
    except UserInputError:
        shutil.rmtree(applied_root(run) / str(applied.pk), ignore_errors=True)
        applied.delete()
        raise
    detail = {"run": run.pk, "job": job, "applied": applied.pk}
    record("run_job_started", request=request, project=run.project, **detail)
    return applied


def stop_applied(request: HttpRequest, applied: RunJob) -> None:
    """Ask a job applied to a run to end cleanly (a stopped check stores nothing)."""
    worker().stop(applied)
    detail = {"run": applied.run_id, "job": applied.job, "applied": applied.pk}
    record("run_job_stopped", request=request, project=applied.run.project, **detail)


def _inside_runs(path: Path) -> bool:
    root = Path(django_settings.RUNS_DIR).resolve()
    return path.resolve().is_relative_to(root)


def delete_run(request: HttpRequest, run: Run) -> None:
    """Delete ``run``'s row, the jobs applied to it (stopped first) and their folders and,
    when the dashboard wrote it, its folder (a run imported from elsewhere keeps its
    files)."""
    worker().stop(run)
    for applied in run.applied.filter(status__in=ACTIVE):
        worker().stop(applied)
    shutil.rmtree(applied_root(run), ignore_errors=True)
    path = Path(run.path)
    if not run.imported and _inside_runs(path):
        shutil.rmtree(path, ignore_errors=True)
        shutil.rmtree(path.with_name(path.name + ".inputs"), ignore_errors=True)
    record("run_deleted", request=request, project=run.project, run=run.pk, job=run.job)
    run.delete()
