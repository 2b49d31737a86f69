"""Comparing runs in the browser: ``sparring diff`` (``sparring.diff.diff_runs``) on two
runs the user may read — rules newly failing, fixed and flaky, conversations whose
verdicts changed with their differing turns side by side, response time and cost — and
the history of one rule across a project's runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from sparring.errors import UserInputError
from sparring.web._permissions import Action, get_object, scope
from sparring.web._run_page import conversation_url
from sparring.web.models import Project, Run, RunStatus

HISTORY_RUNS = 100
"""Runs of a project the rule history reads (the newest)."""


def _choice(request: HttpRequest, name: str) -> Run | None:
    value = request.GET.get(name, "")
    if not value.isdigit():
        return None
    return get_object(Run.objects.select_related("project"), request.user, Action.READ, pk=value)


@login_required
@require_GET
def compare(request: HttpRequest) -> HttpResponse:
    """``?a=BASELINE&b=NEW``: the two runs compared (both must have stored verdicts)."""
    baseline, new = _choice(request, "a"), _choice(request, "b")
    result, problem = None, None
    if baseline is not None and new is not None:
        problem = _unchecked(baseline, new)
    if baseline is not None and new is not None and problem is None:
        from sparring.diff import diff_runs

        try:
            result = diff_runs(Path(baseline.path), Path(new.path))
        except (UserInputError, OSError) as exc:
            problem = _without_paths(str(exc), [baseline, new])
    candidates = scope(Run.objects.select_related("project"), request.user).exclude(
        status__in=(RunStatus.QUEUED, RunStatus.RUNNING)
    )[:200]
    changed = []
    if result is not None and new is not None:
        changed = [
            {"change": c, "url": conversation_url(new, c.conversation)} for c in result.changed
        ]
    context: dict[str, Any] = {
        "baseline": baseline,
        "new": new,
        "result": result,
        "changed": changed,
        "problem": problem,
        "candidates": candidates,
    }
    return render(request, "sparring_web/compare.html", context)


def _unchecked(*runs: Run) -> str | None:
    """Why these runs cannot be compared when one holds no stored verdicts (``None``: each
    holds some)."""
    from sparring.conversations import RunStore, Slot

    missing = []
    for run in runs:
        try:
            names = RunStore.open(Path(run.path), clean=False).result_names(Slot.VERDICTS)
        except (UserInputError, OSError):
            names = []
        if not names:
            missing.append(f"run {run.pk}")
    if not missing:
        return None
    return (
        f"{' and '.join(dict.fromkeys(missing))} holds no rule verdicts: compare needs two "
        "checked runs (a run job, or a run checked with the check job)"
    )


def _without_paths(text: str, runs: list[Run]) -> str:
    """``text`` with each run's folder on the server written as ``run N``."""
    for run in runs:
        text = text.replace(run.path, f"run {run.pk}")
    return text


def rule_rows(runs: list[Run], rule: str) -> list[dict[str, Any]]:
    """For each run (newest first) that checked ``rule``: its counts (pass, fail, error,
    not applicable, unscored) from the run's stored check reports."""
    from sparring.check import CheckReport
    from sparring.conversations import RunStore, Slot

    rows = []
    for run in runs:
        try:
            store = RunStore.open(Path(run.path), clean=False)
            reports = [
                store.read_result(Slot.VERDICTS, name, CheckReport)
                for name in store.result_names(Slot.VERDICTS)
            ]
        except (UserInputError, OSError):
            continue
        for report in reports:
            for result in report.results:
                if result.rule == rule:
                    rows.append({"run": run, "counts": result.counts, "failed": result.failed})
    return rows


def rule_names(runs: list[Run]) -> list[str]:
    """Every rule checked in ``runs`` (from their stored check reports), sorted."""
    from sparring.check import CheckReport
    from sparring.conversations import RunStore, Slot

    names: set[str] = set()
    for run in runs:
        try:
            store = RunStore.open(Path(run.path), clean=False)
            for name in store.result_names(Slot.VERDICTS):
                report = store.read_result(Slot.VERDICTS, name, CheckReport)
                names.update(r.rule for r in report.results)
        except (UserInputError, OSError):
            continue
    return sorted(names)


@login_required
@require_GET
def rule_history(request: HttpRequest, pk: int) -> HttpResponse:
    """``?rule=NAME``: that rule's results in each of the project's runs, newest first."""
    project = get_object(Project.objects.all(), request.user, Action.READ, pk=pk)
    runs = list(
        project.runs.exclude(status__in=(RunStatus.QUEUED, RunStatus.RUNNING))[:HISTORY_RUNS]
    )
    rule = request.GET.get("rule", "")
    context = {
        "project": project,
        "rule": rule,
        "rules": rule_names(runs),
        "rows": rule_rows(runs, rule) if rule else [],
    }
    return render(request, "sparring_web/rule_history.html", context)
