"""A project's pages: its files (a YAML editor per file, validated on save with the
located errors of ``sparring validate`` shown beside their lines, every version kept and
viewable), its runs, and the launch form of any registered job."""

from __future__ import annotations

import ipaddress
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from sparring.errors import Problem, UserInputError
from sparring.web._files import save_file
from sparring.web._launch import add_problems, form_settings, job_names, settings_form
from sparring.web._permissions import Action, allowed, get_object
from sparring.web._run_actions import start_run
from sparring.web.models import FileKind, FileVersion, Project, ProjectFile, Run, RunStatus

RECENT_RUNS = 20


class FileForm(forms.Form):
    kind = forms.ChoiceField(choices=FileKind.choices)
    name = forms.CharField(max_length=200, help_text="e.g. profiles/order.yaml")
    content = forms.CharField(widget=forms.Textarea(attrs={"rows": 24, "spellcheck": "false"}))


def _project(request: HttpRequest, pk: int, action: Action = Action.READ) -> Project:
    return get_object(Project.objects.all(), request.user, action, pk=pk)


@login_required
@require_GET
def project(request: HttpRequest, pk: int) -> HttpResponse:
    """The project: its files by kind, its recent runs, the jobs it can launch."""
    found = _project(request, pk)
    context = {
        "project": found,
        "files": found.files.all(),
        "runs": found.runs.all()[:RECENT_RUNS],
        "jobs": job_names(),
        "may_edit": allowed(request.user, Action.EDIT, found),
        "may_run": allowed(request.user, Action.RUN, found),
        "may_manage": allowed(request.user, Action.MANAGE, found),
    }
    return render(request, "sparring_web/project.html", context)


def annotated_lines(content: str, problems: list[Problem]) -> list[dict[str, Any]]:
    """``content`` line by line (numbered from 1), each with the problems located on it;
    problems without a line come first, on line 0."""
    by_line: dict[int, list[Problem]] = {}
    for problem in problems:
        by_line.setdefault(problem.line or 0, []).append(problem)
    rows = [{"number": 0, "text": "", "problems": by_line.pop(0)}] if 0 in by_line else []
    lines = content.splitlines() or [""]
    for number, text in enumerate(lines, start=1):
        rows.append({"number": number, "text": text, "problems": by_line.pop(number, [])})
    for number, found in sorted(by_line.items()):  # past the end (a missing key at EOF)
        rows.append({"number": number, "text": "", "problems": found})
    return rows


@login_required
@require_http_methods(["GET", "POST"])
def file_edit(request: HttpRequest, pk: int, fid: int | None = None) -> HttpResponse:
    """Create (``fid`` None) or edit a project file. Saving validates it as ``sparring
    validate`` does; a file with problems is not saved and each problem (file, line, key)
    is shown beside its line."""
    found = _project(request, pk)
    file = None
    if fid is not None:
        file = get_object(ProjectFile.objects.all(), request.user, Action.READ, pk=fid)
        if file.project_id != found.pk:
            raise Http404
    current = file.current if file is not None else None
    initial = {"kind": file.kind, "name": file.name} if file is not None else {}
    if current is not None:
        initial["content"] = current.content
    form = FileForm(request.POST or None, initial=initial)
    if file is not None:  # its kind and name are fixed: only the content changes
        form.fields["kind"].required = form.fields["name"].required = False
    problems: list[Problem] = []
    if request.method == "POST":
        _project(request, pk, Action.EDIT)
        if form.is_valid():
            data = form.cleaned_data
            kind, name = (
                (file.kind, file.name) if file is not None else (data["kind"], data["name"])
            )
            try:
                saved = save_file(found, kind, name, data["content"], request.user)
            except UserInputError as exc:
                problems = list(exc.problems)
            else:
                messages.success(request, f"{saved.name} saved (version {saved.current.number})")  # type: ignore[union-attr]
                return redirect("file", pk=found.pk, fid=saved.pk)
    content = form.data.get("content", "") if form.is_bound else initial.get("content", "")
    context = {
        "project": found,
        "file": file,
        "form": form,
        "problems": problems,
        "lines": annotated_lines(str(content), problems) if problems else [],
        "versions": file.versions.select_related("author") if file is not None else [],
        "may_edit": allowed(request.user, Action.EDIT, found),
    }
    return render(request, "sparring_web/file.html", context)


@login_required
@require_GET
def file_version(request: HttpRequest, pk: int, fid: int, number: int) -> HttpResponse:
    """One saved version of a file, as it was."""
    file = get_object(ProjectFile.objects.all(), request.user, Action.READ, pk=fid)
    if file.project_id != pk:
        raise Http404
    version = FileVersion.objects.filter(file=file, number=number).first()
    if version is None:
        raise Http404
    return render(
        request,
        "sparring_web/file_version.html",
        {"project": file.project, "file": file, "version": version},
    )


@login_required
@require_http_methods(["GET", "POST"])
def launch(request: HttpRequest, pk: int, job: str) -> HttpResponse:
    """The launch form of ``job`` (generated from its ``JobSettings``); POST starts the
    run and opens its page (live progress)."""
    found = _project(request, pk, Action.RUN)
    if job not in job_names():
        raise Http404
    form = settings_form(job, found, request.POST or None)
    if request.method == "POST" and form.is_valid():
        settings, tags = form_settings(job, form)
        try:
            run = start_run(request, found, job, settings, tags)
        except UserInputError as exc:
            add_problems(form, exc)
        else:
            return redirect("run", pk=run.pk)
    context = {"project": found, "job": job, "form": form, "network": _network_note()}
    return render(request, "sparring_web/launch.html", context)


def _network_note() -> dict[str, Any]:
    """What the launch page says about the chatbot addresses this server may call
    (``_local``: decided again now, so a second account shows at once)."""
    from django.conf import settings

    from sparring._ssrf import installed_policy
    from sparring.web import _local

    facts = _local.refresh()
    policy = installed_policy()
    loopback = ipaddress.ip_address("127.0.0.1")
    return {
        "guarded": policy is not None,
        "local": facts.local
        and policy is not None
        and policy.refusal("localhost", [loopback]) is None,
        "allow": list(settings.SSRF_ALLOW),
        "accounts": facts.accounts,
    }


TREND_RUNS = 50
"""The newest finished runs a project's trends show."""


@login_required
@require_GET
def trends(request: HttpRequest, pk: int) -> HttpResponse:
    """The project's trends across its newest finished runs (archived ones left out):
    pass rate per rule, generic failures per code, response time p50/p95, cost (US$)."""
    from sparring.web._trends import cached_plots, run_point, table

    found = _project(request, pk)
    runs = Run.objects.filter(project=found, status=RunStatus.FINISHED, archived=False)
    newest = list(runs.order_by("-created_at", "-id")[:TREND_RUNS])
    points = [p for run in reversed(newest) if (p := run_point(run)) is not None]
    context = {
        "project": found,
        "plots": cached_plots(points) if points else [],
        "rows": table(points),
        "limit": TREND_RUNS,
    }
    return render(request, "sparring_web/trends.html", context)
