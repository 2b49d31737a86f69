"""The pages that delete and archive: a run, a file, a project. Deleting asks first (a GET
shows what goes, the POST of its form deletes; a project's deletion also asks for its
name); archiving is one POST and is undone the same way. No script: the confirmation is
a page of its own (the CSP allows no inline script, and a form needs none). Access through
``_permissions``: runs need ``RUN``, files ``EDIT``, projects ``MANAGE`` (viewers 403,
others 404)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from sparring.web._lifecycle import (
    delete_file,
    delete_project,
    set_project_archived,
    set_run_archived,
)
from sparring.web._permissions import Action, get_object
from sparring.web._run_actions import delete_run
from sparring.web.models import Project, ProjectFile, Run


def _confirm(request: HttpRequest, **context: object) -> HttpResponse:
    return render(request, "sparring_web/confirm.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def run_delete(request: HttpRequest, pk: int) -> HttpResponse:
    """Ask, then delete the run: its row, its applied jobs, its folder on disk (an
    imported run keeps its files)."""
    run = get_object(Run.objects.select_related("project"), request.user, Action.RUN, pk=pk)
    if request.method == "POST":
        project = run.project_id
        delete_run(request, run)
        messages.info(request, f"Run {pk} deleted.")
        return redirect(reverse("runs") + f"?project={project}")
    where = "its files stay where they are (imported)" if run.imported else "its folder"
    return _confirm(
        request,
        title=f"Delete run {run.pk}?",
        what=f"Run {run.pk} ({run.job}, {run.status}) of {run.project.name}: its conversations, "
        f"verdicts, annotations and the jobs applied to it; on disk, {where}.",
        back=reverse("run", args=[run.pk]),
    )


@login_required
@require_POST
def run_archive(request: HttpRequest, pk: int) -> HttpResponse:
    """Archive the run (``archived=1``) or restore it (``archived=0``)."""
    run = get_object(Run.objects.select_related("project"), request.user, Action.RUN, pk=pk)
    archived = request.POST.get("archived", "1") == "1"
    set_run_archived(request, run, archived)
    messages.info(request, f"Run {pk} {'archived' if archived else 'restored'}.")
    return redirect("run", pk=pk)


@login_required
@require_http_methods(["GET", "POST"])
def file_delete(request: HttpRequest, pk: int, fid: int) -> HttpResponse:
    """Ask, then delete the file with all its versions."""
    file = get_object(
        ProjectFile.objects.select_related("project"),
        request.user,
        Action.EDIT,
        pk=fid,
        project_id=pk,
    )
    if request.method == "POST":
        delete_file(request, file)
        messages.info(request, f"{file.name} deleted.")
        return redirect("project", pk=pk)
    return _confirm(
        request,
        title=f"Delete {file.name}?",
        what=f"{file.name} and its {file.versions.count()} version(s). Runs keep the copy "
        "frozen for them.",
        back=reverse("file", args=[pk, fid]),
    )


@login_required
@require_http_methods(["GET", "POST"])
def project_delete(request: HttpRequest, pk: int) -> HttpResponse:
    """Ask for the project's name, then delete it with every run (folders included),
    file, member and secret."""
    project = get_object(Project.objects.all(), request.user, Action.MANAGE, pk=pk)
    typed = request.POST.get("name", "") if request.method == "POST" else None
    if typed is not None and typed == project.name:
        count = delete_project(request, project)
        messages.info(request, f"Project {project.name} deleted with its {count} run(s).")
        return redirect("projects")
    runs = Run.objects.filter(project=project).count()
    return _confirm(
        request,
        title=f"Delete the project {project.name}?",
        what=f"{project.name}: its {runs} run(s) and their folders on disk, its "
        f"{project.files.count()} file(s) with every version, its members and secrets.",
        back=reverse("project", args=[pk]),
        ask_name=project.name,
        wrong_name=typed is not None,
    )


@login_required
@require_POST
def project_archive(request: HttpRequest, pk: int) -> HttpResponse:
    """Archive the project (``archived=1``) or restore it (``archived=0``)."""
    project = get_object(Project.objects.all(), request.user, Action.MANAGE, pk=pk)
    archived = request.POST.get("archived", "1") == "1"
    set_project_archived(request, project, archived)
    messages.info(request, f"{project.name} {'archived' if archived else 'restored'}.")
    return redirect("project", pk=pk)
