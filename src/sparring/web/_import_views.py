"""The project's import page (``/projects/ID/import/``): files, folders or a ``.zip``
uploaded (a form, or dropped onto the project page), recognised and validated by
``_project_import``; the result lists every file with its kind, its tool's format, the
version saved or the located problems that kept it out."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from sparring.errors import Problem, UserInputError
from sparring.web._audit import record
from sparring.web._permissions import Action, get_object
from sparring.web._project_import import (
    MAX_IMPORT_FILES,
    MAX_UPLOAD_BYTES,
    ImportResult,
    from_uploads,
    import_files,
)
from sparring.web.models import Project


@login_required
@require_http_methods(["GET", "POST"])
def project_import(request: HttpRequest, pk: int) -> HttpResponse:
    """GET: the upload form; POST (multipart ``files``, with ``paths`` — each file's
    relative path, in order — when a folder was chosen or dropped): import them (editors
    and owners)."""
    project = get_object(Project.objects.all(), request.user, Action.EDIT, pk=pk)
    result: ImportResult | None = None
    problems: list[Problem] = []
    if request.method == "POST":
        uploads = request.FILES.getlist("files")
        paths = request.POST.getlist("paths")
        names = paths if len(paths) == len(uploads) else [u.name or "" for u in uploads]
        try:
            if not uploads:
                raise UserInputError(Problem("upload", None, "files", "choose files or a .zip"))
            files, skipped = from_uploads(zip(names, uploads, strict=True))
            result = import_files(project, files, skipped, request.user)
        except UserInputError as exc:
            problems = list(exc.problems)
        else:
            record(
                "project_imported",
                request=request,
                project=project,
                layouts=result.layouts,
                imported=result.count("imported"),
                refused=result.count("refused"),
                skipped=result.count("skipped"),
            )
    context = {
        "project": project,
        "result": result,
        "problems": problems,
        "max_files": MAX_IMPORT_FILES,
        "max_mb": MAX_UPLOAD_BYTES // 2**20,
    }
    return render(request, "sparring_web/import.html", context, status=400 if problems else 200)
