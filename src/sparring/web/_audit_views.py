"""The audit log for the projects' owners: a page (``/audit/``) and the API
(``GET /api/audit/``), both filtered by the query (project, action, actor, after, before;
a filtered view is a URL to share) and both narrowed by ``_permissions.audit_scope``: an
owner reads the events of the projects they own, a superuser every event."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET
from rest_framework import mixins, serializers, viewsets
from rest_framework.pagination import LimitOffsetPagination

from sparring.web._api_access import RoleAccess
from sparring.web._audit import AUDIT_FILTERS, filter_events
from sparring.web._permissions import Action, audit_scope, scope
from sparring.web.models import AuditEvent, Project

EVENTS_PER_PAGE = 100


def _query(request: HttpRequest) -> dict[str, str]:
    return {name: request.GET.get(name, "").strip() for name in AUDIT_FILTERS}


@login_required
@require_GET
def audit(request: HttpRequest) -> HttpResponse:
    """The audit events the user may read, newest first, filtered by the URL."""
    filters = _query(request)
    readable = audit_scope(request.user)
    rows = filter_events(readable, {k: v for k, v in filters.items() if v})
    page = Paginator(rows, EVENTS_PER_PAGE).get_page(request.GET.get("page") or 1)
    owned = scope(Project.objects.all(), request.user, Action.MANAGE)
    shown = {e.project_id_ref for e in page if e.project_id_ref is not None}
    names = dict(Project.objects.filter(pk__in=shown).values_list("pk", "name"))
    query = request.GET.copy()
    query.pop("page", None)
    context: dict[str, Any] = {
        "page": page,
        "rows": [(e, names.get(e.project_id_ref or 0)) for e in page],
        "filters": filters,
        "query": query.urlencode(),
        "projects": owned,
        "actions": sorted(set(readable.values_list("action", flat=True))),
    }
    return render(request, "sparring_web/audit.html", context)


class AuditEventSerializer(serializers.ModelSerializer[AuditEvent]):
    class Meta:
        model = AuditEvent
        fields = ("id", "at", "action", "actor_name", "project_id_ref", "address", "detail")
        read_only_fields = fields


class AuditPagination(LimitOffsetPagination):
    default_limit = EVENTS_PER_PAGE
    max_limit = 1000


class AuditViewSet(mixins.ListModelMixin, viewsets.GenericViewSet[AuditEvent]):
    """``GET /api/audit/`` (filters ``project``, ``action``, ``actor``, ``after``,
    ``before``; ``limit``/``offset``): the events the caller may read, newest first (a
    token with the read scope may list them)."""

    serializer_class = AuditEventSerializer
    permission_classes = (RoleAccess,)
    pagination_class = AuditPagination

    def get_queryset(self) -> Any:
        query = {k: str(v) for k, v in self.request.query_params.items() if k in AUDIT_FILTERS}
        return filter_events(audit_scope(self.request.user), query)
