"""The audit log: one function writes an ``AuditEvent``; sign-ins and their failures are
recorded from Django's auth signals.

Actions (``AuditEvent.action``): ``login``, ``login_failed``, ``logout``, ``token_created``,
``token_revoked``, ``tokens_revoked_all``, ``secret_set``, ``secret_deleted``, ``run_started``,
``run_stopped``, ``run_resumed``, ``run_deleted``, ``run_imported``, ``member_added``,
``member_changed``, ``member_removed``, ``project_shared``, ``project_unshared``,
``project_deleted``, ``keys_rotated``, ``project_created``, ``project_archived``,
``project_restored``, ``file_saved``, ``file_deleted``, ``run_archived``, ``run_restored``,
``project_imported`` (with a ``file_saved`` per file), ``invitation_created``,
``invitation_accepted``, ``invitation_revoked``.
``detail`` never holds a secret. Owners read their projects' events on the audit page and
``GET /api/audit/`` (``_permissions.audit_scope``), filtered by ``filter_events``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth.signals import user_logged_in, user_logged_out, user_login_failed
from django.db.models import QuerySet
from django.http import HttpRequest

from sparring.web.models import AuditEvent, Project

AUDIT_FILTERS = ("project", "action", "actor", "after", "before")
"""The query parameters ``filter_events`` reads (the audit page and ``GET /api/audit/``)."""


def _address(request: HttpRequest | None) -> str | None:
    if request is None:
        return None
    address = request.META.get("REMOTE_ADDR")
    return address if isinstance(address, str) and address else None


def record(
    action: str,
    *,
    request: HttpRequest | None = None,
    actor: Any = None,
    project: Project | None = None,
    **detail: Any,
) -> AuditEvent:
    """Append one event. ``actor`` defaults to the request's user (``None`` if anonymous)."""
    if actor is None and request is not None and request.user.is_authenticated:
        actor = request.user
    return AuditEvent.objects.create(
        action=action,
        actor_id_ref=getattr(actor, "pk", None),
        actor_name=getattr(actor, "username", "") or "",
        project_id_ref=project.pk if project is not None else None,
        address=_address(request),
        detail=detail,
    )


def _logged_in(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    record("login", request=request, actor=user)


def _logged_out(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    record("logout", request=request, actor=user)


def _login_failed(
    sender: Any, credentials: dict[str, Any], request: HttpRequest | None = None, **kwargs: Any
) -> None:
    # the name tried is kept (it may not exist); the password never is
    record("login_failed", request=request, username=str(credentials.get("username", ""))[:150])


def connect_signals() -> None:
    """Record sign-ins, sign-outs and failed sign-ins (called once from ``apps.ready``)."""
    user_logged_in.connect(_logged_in, dispatch_uid="sparring_web_audit_login")
    user_logged_out.connect(_logged_out, dispatch_uid="sparring_web_audit_logout")
    user_login_failed.connect(_login_failed, dispatch_uid="sparring_web_audit_failed")


def filter_events(rows: QuerySet[AuditEvent], query: Mapping[str, str]) -> QuerySet[AuditEvent]:
    """``rows`` narrowed by ``query``: ``project`` (id), ``action`` (exact), ``actor`` (the
    user name, exact), ``after`` and ``before`` (ISO dates or date-times, UTC; ``after``
    inclusive). Unknown or malformed values are ignored, never an error."""
    from sparring.web._run_actions import parse_moment

    if (project := query.get("project")) and str(project).isdigit():
        rows = rows.filter(project_id_ref=int(project))
    if action := query.get("action"):
        rows = rows.filter(action=action)
    if actor := query.get("actor"):
        rows = rows.filter(actor_name=actor)
    for name, lookup in (("after", "at__gte"), ("before", "at__lt")):
        if (value := query.get(name)) and (moment := parse_moment(value)) is not None:
            rows = rows.filter(**{lookup: moment})
    return rows
