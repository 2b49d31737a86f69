"""Jobs applied to an existing run (``check``, ``evaluate``: they write into the run and
create none), from the run's page: the launch form (generated from the job's
``JobSettings``, without the settings the dashboard sets), the run's history of applied
jobs with the live progress of the one under way, and stop. Every object comes through
``sparring.web._permissions``; acting goes through ``_run_actions``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from sparring.errors import UserInputError
from sparring.web._launch import add_problems, applied_job_names, form_settings, settings_form
from sparring.web._permissions import Action, allowed, get_object
from sparring.web._run_actions import ACTIVE, apply_job, stop_applied
from sparring.web._worker import APPLIED_TARGET, applied_folder
from sparring.web.models import Run, RunJob


def _run(request: HttpRequest, pk: int, action: Action = Action.READ) -> Run:
    return get_object(Run.objects.select_related("project"), request.user, action, pk=pk)


def shown_settings(applied: RunJob) -> dict[str, Any]:
    """``applied``'s stored settings as a user reads them: the files frozen for it named
    as in the project, the run as ``this run`` (the server's folders are not shown)."""
    inputs = str(applied_folder(applied) / "inputs") + "/"
    here = str(Path(applied.run.path))

    def shown(value: Any) -> Any:
        if isinstance(value, list):
            return [shown(v) for v in value]
        if isinstance(value, str):
            return "this run" if value == here else value.replace(inputs, "")
        return value

    return {k: shown(v) for k, v in applied.settings.items() if k != APPLIED_TARGET}


def _row(applied: RunJob) -> dict[str, Any]:
    from sparring.jobs import read_progress

    found = read_progress(applied_folder(applied)) if applied.status in ACTIVE else None
    return {
        "applied": applied,
        "active": applied.status in ACTIVE,
        "settings": {  # a list as comma-separated words
            key: ", ".join(map(str, value)) if isinstance(value, list) else value
            for key, value in shown_settings(applied).items()
        },
        "progress": found.model_dump(mode="json") if found is not None else None,
    }


@login_required
@require_GET
def applied_panel(request: HttpRequest, pk: int) -> HttpResponse:
    """The jobs applied to a run, newest first (job, settings, who, when, status, verdict,
    why it failed), the progress of the one under way, and the links that apply one. The
    run page loads it (htmx) and it polls itself every second while a job is under way;
    when a polled job has ended it asks the page to reload (the report's sections show
    what the job wrote). Without htmx it is a page of its own."""
    run = _run(request, pk)
    rows = [_row(a) for a in RunJob.objects.filter(run=run).select_related("created_by")]
    active = any(row["active"] for row in rows)
    context = {
        "run": run,
        "rows": rows,
        "active": active,
        "run_ended": run.status not in ACTIVE,
        "may_run": allowed(request.user, Action.RUN, run),
        "jobs": applied_job_names(),
    }
    if not request.headers.get("HX-Request"):
        return render(request, "sparring_web/applied.html", context)
    response = render(request, "sparring_web/_applied.html", context)
    if request.GET.get("polling") and not active:
        response["HX-Refresh"] = "true"
    return response


@login_required
def apply(request: HttpRequest, pk: int, job: str) -> HttpResponse:
    """The form of ``job`` applied to a run (its ``JobSettings`` without the settings the
    dashboard sets: the run and where the verdicts go); POST queues it and opens the run's
    page (editors and owners)."""
    run = _run(request, pk, Action.RUN)
    if job not in applied_job_names():
        raise Http404
    form = settings_form(job, run.project, request.POST or None, applied=True)
    if request.method == "POST" and form.is_valid():
        settings, _ = form_settings(job, form)
        try:
            apply_job(request, run, job, settings)
        except UserInputError as exc:
            add_problems(form, exc)
        else:
            return redirect("run", pk=run.pk)
    context = {"run": run, "job": job, "form": form}
    return render(request, "sparring_web/apply.html", context)


@login_required
@require_POST
def applied_stop(request: HttpRequest, pk: int, applied: int) -> HttpResponse:
    """Stop a job applied to the run (a stopped check stores nothing)."""
    run = _run(request, pk, Action.RUN)
    found = RunJob.objects.filter(run=run, pk=applied).first()
    if found is None:
        raise Http404
    stop_applied(request, found)
    return redirect("run", pk=run.pk)
