"""Deleting and archiving what a project holds, in one place for the pages and the API:
runs, files and whole projects. Callers have already checked access through
``_permissions`` (delete or archive a run: ``RUN``; delete a file: ``EDIT``; delete or
archive a project: ``MANAGE``); these functions act and write the audit log.

Archiving hides a run or a project from its list (``?archived=1`` lists them) and keeps
everything; restoring brings it back. Deleting is final: a run's folder (and the files
frozen for it) leaves the disk with its row, a project's every run with it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from django.conf import settings as django_settings
from django.http import HttpRequest

from sparring.web._audit import record
from sparring.web._run_actions import delete_run
from sparring.web.models import Project, ProjectFile, Run


def set_run_archived(request: HttpRequest, run: Run, archived: bool) -> None:
    """Archive ``run`` (hidden from the runs list, kept whole) or restore it."""
    Run.objects.filter(pk=run.pk).update(archived=archived)
    run.archived = archived
    action = "run_archived" if archived else "run_restored"
    record(action, request=request, project=run.project, run=run.pk, job=run.job)


def set_project_archived(request: HttpRequest, project: Project, archived: bool) -> None:
    """Archive ``project`` (hidden from the project list, its runs and files kept) or
    restore it."""
    Project.objects.filter(pk=project.pk).update(archived=archived)
    project.archived = archived
    action = "project_archived" if archived else "project_restored"
    record(action, request=request, project=project, name=project.name)


def delete_file(request: HttpRequest, file: ProjectFile) -> None:
    """Delete ``file`` with every version of it (runs keep the copies frozen for them)."""
    versions = file.versions.count()
    record("file_deleted", request=request, project=file.project, name=file.name, versions=versions)
    file.delete()


def delete_project(request: HttpRequest, project: Project) -> int:
    """Delete ``project``: each run as ``delete_run`` does (its jobs stopped, its folder
    removed; an imported run keeps its files), then the project's folder under the
    server's runs and the project with its files, members and secrets. Returns the number
    of runs deleted."""
    runs = list(Run.objects.filter(project=project).select_related("project"))
    for run in runs:
        delete_run(request, run)
    folder = Path(django_settings.RUNS_DIR) / str(project.pk)
    root = Path(django_settings.RUNS_DIR).resolve()
    if folder.resolve().is_relative_to(root) and folder.resolve() != root:
        shutil.rmtree(folder, ignore_errors=True)
    record("project_deleted", request=request, project=project, name=project.name, runs=len(runs))
    project.delete()
    return len(runs)
