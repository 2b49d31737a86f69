"""Runs made by the CLI, imported into a project: the run directory stays where it is and
the dashboard indexes it (``imported``; deleting the row never deletes its files)."""

from __future__ import annotations

from pathlib import Path

from sparring.errors import Problem, UserInputError
from sparring.web._audit import record
from sparring.web.models import Project, Run, RunStatus


def import_run(path: Path, project: Project) -> Run:
    """Index the run directory ``path`` in ``project``. Raises ``UserInputError`` when it
    is not a run directory (no or an invalid ``manifest.json``) or is already imported."""
    from sparring.conversations import RunStore

    folder = path.resolve()
    store = RunStore.open(folder, clean=False)
    if Run.objects.filter(project=project, path=str(folder)).exists():
        raise UserInputError(Problem(str(folder), None, "", "already imported in this project"))
    manifest = store.manifest
    status = str(getattr(manifest, "status", "") or RunStatus.FINISHED)
    run = Run.objects.create(
        project=project,
        job=manifest.job,
        path=str(folder),
        status=status if status in RunStatus.values else RunStatus.FINISHED,
        imported=True,
        settings=dict(getattr(manifest, "settings", {}) or {}),
    )
    record("run_imported", project=project, run=run.pk, job=run.job, path=str(folder))
    return run
