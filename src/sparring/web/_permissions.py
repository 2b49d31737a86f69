"""Who may do what: the ONE place object access is decided (default deny).

Every page, every API viewset and every queryset goes through this module — no view checks
ownership by hand. Access follows the user's ``Role`` in the object's project:

============  ======  ======  ======  =================================================
action        owner   editor  viewer  what it covers
============  ======  ======  ======  =================================================
``READ``      yes     yes     yes     see the project, its files, runs, conversations,
                                      annotations, members
``EDIT``      yes     yes     no      save files, annotate, tag runs
``RUN``       yes     yes     no      start, stop, resume, import and delete runs
``MANAGE``    yes     no      no      members, secrets, project settings, delete project
============  ======  ======  ======  =================================================

A ``public`` project adds ``READ`` for every signed-in user. Anonymous users get nothing.
Secrets and invitations are ``MANAGE`` for every verb (only owners see even their hints).
Who may create a project at all is the server's setting (``may_create_project``). API tokens are the
user's own and nobody else's (``own_tokens``).

Lookups that fail answer *not found* when the user may not read the object (its existence
is not revealed) and *forbidden* when they may read it but not do the action.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, TypeVar, cast

from django.core.exceptions import ObjectDoesNotExist, PermissionDenied
from django.db.models import Model, Q, QuerySet
from django.http import Http404

from sparring.web.models import (
    Annotation,
    AuditEvent,
    DeviceToken,
    FileVersion,
    Invitation,
    Membership,
    Project,
    ProjectFile,
    Role,
    Run,
    RunJob,
    Secret,
)

M = TypeVar("M", bound=Model)


class Action(StrEnum):
    READ = "read"
    EDIT = "edit"
    RUN = "run"
    MANAGE = "manage"


ROLE_ACTIONS: dict[Role, frozenset[Action]] = {
    Role.OWNER: frozenset(Action),
    Role.EDITOR: frozenset({Action.READ, Action.EDIT, Action.RUN}),
    Role.VIEWER: frozenset({Action.READ}),
}
PUBLIC_ACTIONS = frozenset({Action.READ})

_PROJECT_PATH: dict[type[Model], str] = {
    Project: "",
    Membership: "project__",
    ProjectFile: "project__",
    FileVersion: "file__project__",
    Run: "project__",
    RunJob: "run__project__",
    Secret: "project__",
    Annotation: "run__project__",
    Invitation: "project__",
}
"""How each project-owned model reaches its project (a lookup prefix)."""

_MINIMUM_ACTION: dict[type[Model], Action] = {Secret: Action.MANAGE, Invitation: Action.MANAGE}
"""Models whose every verb needs more than the action asked for."""


def _effective(model: type[Model], action: Action) -> Action:
    minimum = _MINIMUM_ACTION.get(model)
    return minimum if minimum is not None and action != minimum else action


def _signed_in(user: Any) -> bool:
    return bool(getattr(user, "is_authenticated", False)) and bool(
        getattr(user, "is_active", False)
    )


def roles_allowed(action: Action) -> list[Role]:
    """The roles that may do ``action``."""
    return [role for role, actions in ROLE_ACTIONS.items() if action in actions]


def role_of(user: Any, project: Project) -> Role | None:
    """``user``'s role in ``project`` (``None``: not a member, or not signed in)."""
    if not _signed_in(user):
        return None
    membership = Membership.objects.filter(project=project, user=user).first()
    return Role(membership.role) if membership is not None else None


def project_of(obj: Model) -> Project:
    """The project an object belongs to. Raises ``TypeError`` for a model this module does
    not know (so a new model cannot slip past the access rules)."""
    if isinstance(obj, Project):
        return obj
    if isinstance(obj, FileVersion):
        return obj.file.project
    if isinstance(obj, Annotation):
        return obj.run.project
    if isinstance(obj, Membership | ProjectFile | Run | Secret | Invitation):
        return obj.project
    raise TypeError(f"no access rule for {type(obj).__name__}")


def allowed(user: Any, action: Action, obj: Model) -> bool:
    """Whether ``user`` may do ``action`` on ``obj`` (any project-owned object)."""
    if not _signed_in(user):
        return False
    action = _effective(type(obj), action)
    project = project_of(obj)
    role = role_of(user, project)
    if role is not None and action in ROLE_ACTIONS[role]:
        return True
    return project.public and action in PUBLIC_ACTIONS


def scope(queryset: QuerySet[M], user: Any, action: Action = Action.READ) -> QuerySet[M]:
    """``queryset`` narrowed to the rows ``user`` may do ``action`` on (none when anonymous).
    Raises ``TypeError`` for a model without an access rule."""
    model = queryset.model
    if model not in _PROJECT_PATH:
        raise TypeError(f"no access rule for {model.__name__}")
    if not _signed_in(user):
        return queryset.none()
    action = _effective(model, action)
    path = _PROJECT_PATH[model]
    member_of = Membership.objects.filter(user=user, role__in=roles_allowed(action)).values(
        "project_id"
    )
    condition = Q(**{f"{path}id__in" if path else "id__in": member_of})
    if action in PUBLIC_ACTIONS:
        condition |= Q(**{f"{path}public": True})
    return queryset.filter(condition)


def get_object(queryset: QuerySet[M], user: Any, action: Action, **lookup: Any) -> M:
    """The one object of ``queryset`` matching ``lookup`` that ``user`` may do ``action`` on.
    Raises ``Http404`` when it does not exist or the user may not read it, and
    ``PermissionDenied`` when they may read it but not do ``action``."""
    readable = scope(queryset, user, Action.READ)
    try:
        obj = readable.get(**lookup)
    except (ObjectDoesNotExist, ValueError, TypeError):
        raise Http404 from None
    if not allowed(user, action, obj):
        if not allowed(user, Action.READ, obj):
            raise Http404
        raise PermissionDenied
    return obj


def require(user: Any, action: Action, obj: Model) -> None:
    """Raise ``PermissionDenied`` unless ``allowed(user, action, obj)``."""
    if not allowed(user, action, obj):
        raise PermissionDenied


def own_tokens(user: Any) -> QuerySet[DeviceToken]:
    """The API tokens of ``user`` (none when anonymous): nobody sees another's tokens."""
    if not _signed_in(user):
        return cast("QuerySet[DeviceToken]", DeviceToken.objects.none())
    return cast("QuerySet[DeviceToken]", DeviceToken.objects.filter(user=user))


def may_create_project(user: Any) -> bool:
    """Whether ``user`` may create a project: any signed-in user, or only staff accounts
    and superusers when the server says so (``SPARRING_WEB_PROJECT_CREATORS=staff``)."""
    from django.conf import settings

    from sparring.web._config import ProjectCreators

    if not getattr(user, "is_authenticated", False) or not getattr(user, "is_active", False):
        return False
    if settings.PROJECT_CREATORS == ProjectCreators.STAFF:
        return bool(user.is_staff or user.is_superuser)
    return True


def audit_scope(user: Any) -> QuerySet[AuditEvent]:
    """The audit events ``user`` may read: those of the projects they own (``MANAGE``) and
    their own (a project they deleted included); a superuser (the server's operator) reads
    every event, sign-ins and other events of no project included. None when anonymous."""
    if not _signed_in(user):
        return cast("QuerySet[AuditEvent]", AuditEvent.objects.none())
    if getattr(user, "is_superuser", False):
        return cast("QuerySet[AuditEvent]", AuditEvent.objects.all())
    owned = scope(Project.objects.all(), user, Action.MANAGE).values("id")
    mine = Q(project_id_ref__in=owned) | Q(actor_id_ref=user.pk)
    return cast("QuerySet[AuditEvent]", AuditEvent.objects.filter(mine))
