"""The run pages: the runs list (filters in the URL), a run's page (verdict, live
progress, stop and resume, the report's sections), its conversations (paginated) and the
conversation viewer (every chatbot text escaped by the template engine). Every object
comes through ``sparring.web._permissions``."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from sparring.errors import UserInputError
from sparring.web._conversation_filters import (
    active_filters,
    conversation_index,
    filter_conversations,
)
from sparring.web._permissions import Action, allowed, get_object, scope
from sparring.web._run_actions import RUN_FILTERS, filter_runs, resume_run, stop_run
from sparring.web._run_files import progress
from sparring.web._run_page import (
    conversation_page,
    conversation_rows,
    conversation_url,
    failed_rules,
    page_sections,
    run_page,
)
from sparring.web.models import Annotation, Project, Run, RunStatus

RUNS_PER_PAGE = 50
CONVERSATIONS_PER_PAGE = 50
ACTIVE = (RunStatus.QUEUED, RunStatus.RUNNING)


def _page_number(request: HttpRequest) -> int:
    value = request.GET.get("page", "1")
    return int(value) if value.isdigit() and int(value) > 0 else 1


@login_required
@require_GET
def runs(request: HttpRequest) -> HttpResponse:
    """Every run the user may read, filtered by the query (project, job, status, verdict,
    tag, after, before): a filtered view is a URL to share."""
    readable = scope(Run.objects.select_related("project"), request.user)
    filters = {name: request.GET.get(name, "").strip() for name in RUN_FILTERS}
    rows = filter_runs(readable, {k: v for k, v in filters.items() if v})
    paginator = Paginator(rows, RUNS_PER_PAGE)
    page = paginator.get_page(_page_number(request))
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "page": page,
        "filters": filters,
        "query": query.urlencode(),
        "projects": scope(Project.objects.all(), request.user),
        "jobs": sorted(set(readable.values_list("job", flat=True))),
        "statuses": RunStatus.values,
        "verdicts": sorted(set(readable.values_list("verdict", flat=True)) - {""}),
    }
    return render(request, "sparring_web/runs.html", context)


def _run(request: HttpRequest, pk: int, action: Action = Action.READ) -> Run:
    return get_object(Run.objects.select_related("project"), request.user, action, pk=pk)


@login_required
@require_GET
def run_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """A run: status and live progress while it runs; then the verdict, failures with
    their turns, rule tables, breakdowns, coverage and the workflow graph (the report's
    sections)."""
    run = _run(request, pk)
    active = run.status in ACTIVE
    context = {
        **_verdict_context(request, run),
        "active": active,
        "progress": progress(run),
        "page": None if active else run_page(run),
        "resumable": run.status in (RunStatus.STOPPED, RunStatus.FAILED) and bool(run.handle),
    }
    return render(request, "sparring_web/run.html", context)


def _verdict_context(request: HttpRequest, run: Run) -> dict[str, Any]:
    """What the verdict box needs beside the page: may the user run jobs on the run, and
    is ``check`` a job that applies to it (the link an unchecked run's verdict offers)."""
    from sparring.web._launch import applied_job_names

    return {
        "run": run,
        "may_run": allowed(request.user, Action.RUN, run),
        "may_check": "check" in applied_job_names(),
    }


@login_required
@require_GET
def run_verdict(request: HttpRequest, pk: int) -> HttpResponse:
    """The verdict box of a finished run (htmx fetches it while the page's pieces are
    being computed; it answers with itself, still pending, until they all are)."""
    run = _run(request, pk)
    context = {**_verdict_context(request, run), "page": run_page(run)}
    return render(request, "sparring_web/_verdict.html", context)


@login_required
@require_GET
def run_section(request: HttpRequest, pk: int, name: str) -> HttpResponse:
    """One report section of a finished run's page (htmx fetches a section being
    computed: it answers with the placeholder again until the section is ready, and
    with nothing when the section does not apply to the run)."""
    run = _run(request, pk)
    if name not in {s.name for s in page_sections()}:
        raise Http404("no such section")
    found = run_page(run).section(name)
    if found is None:
        return HttpResponse("")
    return render(request, "sparring_web/_section.html", {"run": run, "s": found})


@login_required
@require_GET
def run_progress(request: HttpRequest, pk: int) -> HttpResponse:
    """The progress panel (htmx polls it every second while the run is active; a finished
    run answers with a refresh so the page shows its report)."""
    run = _run(request, pk)
    context = {"run": run, "active": run.status in ACTIVE, "progress": progress(run)}
    response = render(request, "sparring_web/_progress.html", context)
    if run.status not in ACTIVE and request.headers.get("HX-Request"):
        response["HX-Refresh"] = "true"
    return response


@login_required
@require_POST
def run_stop(request: HttpRequest, pk: int) -> HttpResponse:
    """Stop the run cleanly (what finished is kept)."""
    stop_run(request, _run(request, pk, Action.RUN))
    messages.info(request, "Stop requested: the run ends after the conversations under way.")
    return redirect("run", pk=pk)


@login_required
@require_POST
def run_resume(request: HttpRequest, pk: int) -> HttpResponse:
    """Resume a stopped or failed run from what it kept."""
    run = _run(request, pk, Action.RUN)
    try:
        resume_run(request, run)
    except UserInputError as exc:
        messages.error(request, str(exc))
    return redirect("run", pk=pk)


@login_required
@require_GET
def run_conversations(request: HttpRequest, pk: int) -> HttpResponse:
    """One page of the run's conversations (only that page's records are read)."""
    run = _run(request, pk)
    number = _page_number(request)
    offset = (number - 1) * CONVERSATIONS_PER_PAGE
    wanted = active_filters(request.GET)
    labels = ["any", *Annotation.Label.values]
    context: dict[str, Any] = {
        "run": run,
        "filters": wanted,
        "choices": None,
        "annotation_labels": labels,
    }
    if wanted or request.GET.get("filters"):
        found = _filtered_rows(run, wanted, offset)
        total, rows, ready = found["matched"], found["rows"], True
        context |= {"choices": found["choices"], "count": found["count"]}
    else:
        total, rows, ready = conversation_rows(run, offset, CONVERSATIONS_PER_PAGE)
    pages = max(1, -(-total // CONVERSATIONS_PER_PAGE))
    query = request.GET.copy()
    query.pop("page", None)
    context |= {
        "rows": rows,
        "ready": ready,
        "total": total,
        "number": number,
        "pages": pages,
        "query": query.urlencode(),
        "previous": number - 1 if number > 1 else None,
        "next": number + 1 if number < pages else None,
    }
    return render(request, "sparring_web/conversations.html", context)


def _filtered_rows(run: Run, wanted: dict[str, str], offset: int) -> dict[str, Any]:
    """One page of the conversations matching ``wanted`` (``_conversation_filters``),
    with the values each filter offers and the run's count."""
    try:
        failed = failed_rules(run)
        found = filter_conversations(run, wanted, failed)
        count = len(conversation_index(run))
    except (UserInputError, OSError, ValueError):  # a run that cannot be read: nothing
        return {"matched": 0, "rows": [], "choices": None, "count": 0}
    page = found.entries[offset : offset + CONVERSATIONS_PER_PAGE]
    rows = [
        {
            "id": e.id,
            "url": conversation_url(run, e.id),
            "profile": e.profile,
            "turns": e.turns,
            "finish_reason": e.finish_reason,
            "errors": list(e.errors),
            "failed": failed.get(e.id, []),
        }
        for e in page
    ]
    return {"matched": len(found.entries), "rows": rows, "choices": found, "count": count}


def _turns(data: dict[str, Any], notes: list[Annotation]) -> list[dict[str, Any]]:
    """Each turn with what points at it: the verdicts that name it, its breakdown mark,
    the generic errors raised at it and the annotations on it."""
    rows = []
    for index, (role, text, latency, buttons) in enumerate(data["turns"]):
        rows.append(
            {
                "index": index,
                "role": role,
                "text": text,
                "latency": latency,
                "buttons": buttons,
                "verdicts": [v for v in data["verdicts"] if index in (v[4] or ())],
                "breakdowns": [b for b in data["breakdowns"] if b[0] == index],
                "errors": [e for e in data["errors"] if e[4] == index],
                "annotations": [a for a in notes if a.turn == index],
            }
        )
    return rows


@login_required
@require_GET
def conversation_view(request: HttpRequest, pk: int, cid: str) -> HttpResponse:
    """One conversation: each turn with its latency, buttons, the verdicts and breakdown
    marks that point at it, and its annotations; the annotation form for editors."""
    run = _run(request, pk)
    data = conversation_page(run, cid)
    if data is None:
        raise Http404
    if request.headers.get("HX-Request") and not data["verdicts_pending"]:
        response = HttpResponse("")  # the verdicts are read: the page reloads with them
        response["HX-Refresh"] = "true"
        return response
    notes = list(Annotation.objects.filter(run=run, conversation=cid).select_related("author"))
    context = {
        "run": run,
        "conversation": data,
        "url": conversation_url(run, data["id"]),
        "turns": _turns(data, notes),
        "whole": [a for a in notes if a.turn is None],
        "may_annotate": allowed(request.user, Action.EDIT, run),
        "labels": Annotation.Label.values,
    }
    return render(request, "sparring_web/conversation.html", context)


class AnnotationForm(forms.ModelForm):  # type: ignore[type-arg]
    class Meta:
        model = Annotation
        fields = ("conversation", "turn", "label", "breakdown", "comment")


@login_required
@require_POST
def annotate(request: HttpRequest, pk: int) -> HttpResponse:
    """Mark a turn (or, without ``turn``, the whole conversation) correct or wrong, with
    an optional breakdown type and comment; back to the conversation page."""
    run = _run(request, pk, Action.EDIT)
    form = AnnotationForm(request.POST)
    if not form.is_valid() or conversation_page(run, form.cleaned_data["conversation"]) is None:
        messages.error(request, "Not saved: " + (form.errors.as_text() or "no such conversation"))
        return redirect("runs")
    annotation = form.save(commit=False)
    annotation.run, annotation.author = run, request.user
    annotation.save()
    url = conversation_url(run, annotation.conversation)
    anchor = f"#turn-{annotation.turn}" if annotation.turn is not None else ""
    return redirect(url + anchor)


@login_required
@require_GET
def report_css(request: HttpRequest) -> HttpResponse:
    """The report's own style sheet (``sparring.report``), so its sections look on the run
    page as in the report (served from our origin: the CSP allows no inline style)."""
    from sparring.report import asset

    response = HttpResponse(str(asset("report.css")), content_type="text/css")
    response["Cache-Control"] = "private, max-age=3600"
    return response
