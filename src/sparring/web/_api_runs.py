"""The API's runs, conversations and annotations (``/api/runs/``, ``/api/annotations/``).

- ``GET /api/runs/`` (filters ``project``, ``job``, ``status``, ``verdict``, ``tag``,
  ``after``, ``before``), ``POST /api/runs/`` ``{project, job, settings, tags}`` starts a
  run (role editor or owner; a token needs the ``run`` scope), ``GET /api/runs/ID/`` with
  its ``progress`` (the job's ``progress.json``), ``DELETE``, ``POST /api/runs/ID/stop/``,
  ``POST /api/runs/ID/resume/`` (a stopped or failed run, from what it kept),
  ``POST /api/runs/bulk-delete/`` ``{ids}`` (only the runs the user may delete are touched).
- ``GET /api/runs/ID/applied/``: the jobs applied to the run (``check``, ``evaluate``),
  newest first; ``POST /api/runs/ID/apply/`` ``{job, settings}`` applies one (as the run
  page does; editors and owners, a token needs the ``run`` scope).
- ``GET /api/runs/ID/verdicts/``, ``/junit/`` (``?set=NAME``), ``/report/`` (the HTML
  report as a download, sandboxed), ``/conversations/`` and ``/conversations/CID/``.
- ``/api/annotations/`` (``?run=``): a person's label on a conversation or a turn;
  ``/api/annotations/export/?run=ID&as=csv|json``.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any, ClassVar

from django.db.models import QuerySet
from django.http import FileResponse, Http404, HttpResponse
from rest_framework import mixins, serializers, status
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from sparring.errors import UserInputError
from sparring.web._api import ScopedViewSet, body, problems_response, project_for
from sparring.web._applied_views import shown_settings
from sparring.web._permissions import Action, get_object, scope
from sparring.web._run_actions import (
    apply_job,
    delete_run,
    filter_runs,
    resume_run,
    start_run,
    stop_run,
)
from sparring.web._run_files import (
    conversation,
    conversation_list,
    junit,
    progress,
    report_file,
    verdict_sets,
)
from sparring.web.models import Annotation, Run, RunJob, RunStatus


def shown_run_settings(run: Run) -> dict[str, Any]:
    """``run``'s stored settings as a user reads them: the files frozen for it named as in
    the project, the run's own folder as ``this run`` — the server's folders never shown."""
    here = str(Path(run.path)) if run.path else ""
    inputs = here + ".inputs/"

    def shown(value: Any) -> Any:
        if isinstance(value, list):
            return [shown(v) for v in value]
        if isinstance(value, str) and here:
            if value.rstrip("/") == here:
                return "this run"
            return value.replace(inputs, "").replace(here + "/", "this run/")
        return value

    return {k: shown(v) for k, v in (run.settings or {}).items()}


class RunSerializer(serializers.ModelSerializer[Run]):
    settings = serializers.SerializerMethodField()

    def get_settings(self, run: Run) -> dict[str, Any]:
        return shown_run_settings(run)

    class Meta:
        model = Run
        fields = (
            "id",
            "project",
            "job",
            "status",
            "verdict",
            "error",
            "tags",
            "settings",
            "imported",
            "created_at",
            "finished_at",
        )
        read_only_fields = fields


class RunJobSerializer(serializers.ModelSerializer[RunJob]):
    settings = serializers.SerializerMethodField()

    class Meta:
        model = RunJob
        fields = (
            "id",
            "run",
            "job",
            "status",
            "verdict",
            "error",
            "settings",
            "created_at",
            "finished_at",
        )
        read_only_fields = fields

    def get_settings(self, applied: RunJob) -> dict[str, Any]:
        return shown_settings(applied)


class RunViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin, ScopedViewSet
):
    serializer_class = RunSerializer
    write_actions: ClassVar[dict[str, str]] = {
        "create": "run",
        "destroy": "run",
        "stop": "run",
        "resume": "run",
        "bulk_delete": "run",
        "apply": "run",
    }

    def base_queryset(self) -> QuerySet[Run]:
        return Run.objects.all()

    def get_queryset(self) -> QuerySet[Any]:
        return filter_runs(super().get_queryset(), self.request.query_params)

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        run = self.get_object()
        data = dict(RunSerializer(run).data)
        data["progress"] = progress(run)
        return Response(data)

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        project = project_for(request, Action.RUN, body(request).get("project"))
        job, settings = body(request).get("job"), body(request).get("settings", {})
        tags = body(request).get("tags", [])
        if not isinstance(job, str) or not job:
            raise ValidationError({"job": "required, e.g. simulate"})
        if not isinstance(settings, dict):
            raise ValidationError({"settings": "an object of the job's settings"})
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise ValidationError({"tags": "a list of strings"})
        try:
            run = start_run(request, project, job, settings, tags)
        except UserInputError as exc:
            return problems_response(exc)
        return Response(RunSerializer(run).data, status=status.HTTP_201_CREATED)

    def perform_destroy(self, instance: Run) -> None:
        delete_run(self.request, instance)

    @action(detail=True, methods=["post"])
    def stop(self, request: Request, pk: str | None = None) -> Response:
        run = self.get_object()
        stop_run(request, run)
        return Response({"id": run.pk, "stop": "requested"}, status=status.HTTP_202_ACCEPTED)

    @action(detail=True, methods=["post"])
    def resume(self, request: Request, pk: str | None = None) -> Response:
        run = self.get_object()
        try:
            resume_run(request, run)
        except UserInputError as exc:
            return problems_response(exc)
        return Response({"id": run.pk, "status": "queued"}, status=status.HTTP_202_ACCEPTED)

    @action(detail=True, methods=["get"])
    def applied(self, request: Request, pk: str | None = None) -> Response:
        rows = RunJob.objects.filter(run=self.get_object())
        return Response(RunJobSerializer(rows, many=True).data)

    @action(detail=True, methods=["post"])
    def apply(self, request: Request, pk: str | None = None) -> Response:
        run = self.get_object()
        job, settings = body(request).get("job"), body(request).get("settings", {})
        if not isinstance(job, str) or not job:
            raise ValidationError({"job": "required, e.g. check"})
        if not isinstance(settings, dict):
            raise ValidationError({"settings": "an object of the job's settings"})
        try:
            applied = apply_job(request, run, job, settings)
        except UserInputError as exc:
            return problems_response(exc)
        return Response(RunJobSerializer(applied).data, status=status.HTTP_201_CREATED)

    @action(detail=False, methods=["post"], url_path="bulk-delete")
    def bulk_delete(self, request: Request) -> Response:
        ids = body(request).get("ids")
        if not isinstance(ids, list) or not all(isinstance(i, int) for i in ids):
            raise ValidationError({"ids": "a list of run ids"})
        deletable = scope(Run.objects.filter(pk__in=ids), request.user, Action.RUN)
        count = 0
        for run in deletable.select_related("project"):
            delete_run(request, run)
            count += 1
        return Response({"deleted": count})

    @action(detail=True, methods=["get"])
    def verdicts(self, request: Request, pk: str | None = None) -> Response:
        return Response(verdict_sets(self.get_object()))

    @action(detail=True, methods=["get"])
    def junit(self, request: Request, pk: str | None = None) -> HttpResponse:
        xml = junit(self.get_object(), request.query_params.get("set"))
        if xml is None:
            raise Http404
        return HttpResponse(xml, content_type="application/xml")

    @action(detail=True, methods=["get"])
    def report(self, request: Request, pk: str | None = None) -> FileResponse:
        path = report_file(self.get_object())
        if path is None:
            raise Http404
        response = FileResponse(path.open("rb"), as_attachment=True, filename="report.html")
        # the report is self-contained HTML with inline script: never run in our origin
        response.headers["Content-Security-Policy"] = "sandbox"
        return response

    @action(detail=True, methods=["get"])
    def conversations(self, request: Request, pk: str | None = None) -> Response:
        run = self.get_object()
        offset = _int(request.query_params.get("offset"), 0)
        limit = min(_int(request.query_params.get("limit"), 50), 500)
        return Response(conversation_list(run, offset, limit))

    # a conversation id holds slashes (``capitals/0``): the rest of the path is the id
    @action(detail=True, methods=["get"], url_path=r"conversations/(?P<cid>.+)")
    def conversation(self, request: Request, pk: str | None = None, cid: str = "") -> Response:
        data = conversation(self.get_object(), cid)
        if data is None:
            raise Http404
        return Response(data)


def _int(value: str | None, default: int) -> int:
    try:
        return max(0, int(value)) if value is not None else default
    except ValueError:
        return default


class AnnotationSerializer(serializers.ModelSerializer[Annotation]):
    author = serializers.CharField(source="author.username", read_only=True, default=None)

    class Meta:
        model = Annotation
        fields = (
            "id",
            "run",
            "conversation",
            "turn",
            "label",
            "breakdown",
            "comment",
            "author",
            "created_at",
        )
        read_only_fields = ("id", "run", "author", "created_at")


def _cell(value: Any) -> Any:
    """A CSV cell that a spreadsheet will not run as a formula."""
    if isinstance(value, str) and value.startswith(("=", "+", "-", "@", "\t", "\r")):
        return "'" + value
    return value


EXPORT_FIELDS = ("run", "conversation", "turn", "label", "breakdown", "comment", "author")


class AnnotationViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    ScopedViewSet,
):
    serializer_class = AnnotationSerializer
    project_lookup = "run__project"
    write_actions: ClassVar[dict[str, str]] = {
        "create": "edit",
        "update": "edit",
        "partial_update": "edit",
        "destroy": "edit",
    }

    def base_queryset(self) -> QuerySet[Annotation]:
        return Annotation.objects.select_related("author")

    def get_queryset(self) -> QuerySet[Any]:
        rows = super().get_queryset()
        run = self.request.query_params.get("run")
        return rows.filter(run_id=int(run)) if run and run.isdigit() else rows

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        run = get_object(Run.objects.all(), request.user, Action.EDIT, pk=body(request).get("run"))
        serializer = AnnotationSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        annotation = serializer.save(run=run, author=request.user)
        return Response(AnnotationSerializer(annotation).data, status=status.HTTP_201_CREATED)

    @action(detail=False, methods=["get"])
    def export(self, request: Request) -> HttpResponse:
        rows = [AnnotationSerializer(a).data for a in self.get_queryset()]
        if request.query_params.get("as") == "csv":
            out = io.StringIO()
            writer = csv.DictWriter(out, fieldnames=EXPORT_FIELDS, extrasaction="ignore")
            writer.writeheader()
            writer.writerows({k: _cell(v) for k, v in row.items()} for row in rows)
            response = HttpResponse(out.getvalue(), content_type="text/csv")
            response["Content-Disposition"] = 'attachment; filename="annotations.csv"'
            return response
        return Response(rows)


__all__ = ["AnnotationViewSet", "RunStatus", "RunViewSet"]
