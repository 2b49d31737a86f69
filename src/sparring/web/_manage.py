"""What owners manage (members, sharing, secrets, quotas) and what every user manages (their API
tokens), written once for the pages (``_admin_views``) and the API (``_api``). Each change
is written to the audit log here; access is decided by the caller through
``sparring.web._permissions`` (these functions trust that it was).

Errors: ``Refused(field, message)`` (a ``ValueError``) for a change that is not allowed as
asked — an unknown user or role, the last owner removed or demoted, a bad secret name, a
token's lifetime out of range. Nothing is changed then.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.http import HttpRequest

from sparring.web._audit import record
from sparring.web._secrets import set_secret
from sparring.web.models import DeviceToken, Membership, Project, Role, Secret, TokenScope

MAX_TOKEN_DAYS = 365
"""The longest lifetime of an API token (days)."""


class Refused(ValueError):
    """A change refused as asked; ``field`` names the input at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def set_quotas(request: HttpRequest | None, project: Project, values: dict[str, Any]) -> None:
    """Set the project's quotas (``_quotas.QUOTA_FIELDS``: a whole number within the
    server's maximum, or ``None`` for the server's); the log keeps the new values. Raises
    ``Refused`` for a field that is not a quota or a value out of range (nothing saved)."""
    from sparring.web._quotas import quota_problem

    for name, value in values.items():
        if (why := quota_problem(name, value)) is not None:
            raise Refused(name, why)
    Project.objects.filter(pk=project.pk).update(**values)
    for name, value in values.items():
        setattr(project, name, value)
    record("quotas_set", request=request, project=project, **values)


def _role(role: str) -> Role:
    if role not in Role.values:
        raise Refused("role", f"one of {', '.join(Role.values)}")
    return Role(role)


def find_user(name_or_email: str) -> Any:
    """The active user whose user name is ``name_or_email``, else the only one with that
    e-mail address. Raises ``Refused`` when there is none (or the e-mail is ambiguous)."""
    text = name_or_email.strip()
    users = get_user_model().objects.filter(is_active=True)
    user = users.filter(username=text).first() if text else None
    if user is None and "@" in text:
        matches = list(users.filter(email__iexact=text)[:2])
        user = matches[0] if len(matches) == 1 else None
    if user is None:
        raise Refused("username", "no such user")
    return user


def add_member(
    request: HttpRequest | None, project: Project, user: Any, role: str
) -> tuple[Membership, bool]:
    """Give ``user`` ``role`` in ``project`` (a member already there changes role, and the
    last owner keeps it). The membership and whether it is new."""
    wanted = _role(role)
    existing = Membership.objects.filter(project=project, user=user).first()
    if existing is not None:
        return change_role(request, existing, wanted), False
    membership = Membership.objects.create(project=project, user=user, role=wanted)
    record("member_added", request=request, project=project, member=user.username, role=wanted)
    return membership, True


def _keep_an_owner(membership: Membership, new_role: Role | None) -> None:
    if membership.role == Role.OWNER and new_role != Role.OWNER:
        owners = Membership.objects.select_for_update().filter(
            project=membership.project, role=Role.OWNER
        )
        if owners.count() <= 1:
            raise Refused("role", "a project keeps at least one owner")


def change_role(request: HttpRequest | None, membership: Membership, role: str) -> Membership:
    """Set a member's role; raises ``Refused`` when it would leave the project ownerless."""
    wanted = _role(role)
    with transaction.atomic():
        _keep_an_owner(membership, wanted)
        membership.role = wanted
        membership.save(update_fields=["role"])
    record(
        "member_changed",
        request=request,
        project=membership.project,
        member=membership.user.username,
        role=wanted,
    )
    return membership


def remove_member(request: HttpRequest | None, membership: Membership) -> None:
    """Remove a member; raises ``Refused`` for the last owner."""
    with transaction.atomic():
        _keep_an_owner(membership, None)
        membership.delete()
    record(
        "member_removed",
        request=request,
        project=membership.project,
        member=membership.user.username,
    )


def set_public(request: HttpRequest | None, project: Project, public: bool) -> None:
    """Share ``project`` read-only with every signed-in user (or stop sharing it)."""
    if project.public == public:
        return
    project.public = public
    project.save(update_fields=["public"])
    record("project_shared" if public else "project_unshared", request=request, project=project)


def check_secret_name(name: Any) -> str:
    """``name`` if it is an environment variable name in capitals (``OPENAI_API_KEY``)."""
    if not isinstance(name, str) or not name.isidentifier() or not name.isupper():
        raise Refused("name", "an environment variable name, e.g. OPENAI_API_KEY")
    return name


_HOST_NAME = re.compile(
    r"^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$"
)


def check_hosts(hosts: Any) -> list[str]:
    """The host names of ``hosts`` (a comma-separated string or a list; empty: none, the
    secret is sent nowhere but a model key to its provider).
    Raises ``Refused`` for a value that is not a host name (no scheme, path or wildcard)."""
    if hosts is None or hosts == "":
        return []
    items = hosts.split(",") if isinstance(hosts, str) else hosts
    if not isinstance(items, list) or not all(isinstance(h, str) for h in items):
        raise Refused("hosts", "host names, comma-separated")
    names = [h.strip().lower().rstrip(".") for h in items if h.strip()]
    bad = [h for h in names if not _HOST_NAME.match(h)]
    if bad:
        raise Refused("hosts", f"not host names: {', '.join(bad)} (e.g. api.openai.com)")
    return names


def save_secret(
    request: HttpRequest | None,
    project: Project,
    name: Any,
    value: Any,
    user: Any,
    hosts: Any = None,
) -> Secret:
    """Encrypt and store (or replace) the project's secret ``name``, bound to ``hosts``
    (``check_hosts``); the log keeps its hint and hosts."""
    name = check_secret_name(name)
    if not isinstance(value, str) or not value:
        raise Refused("value", "required")
    bound = check_hosts(hosts)
    secret = set_secret(project, name, value, user, bound)
    record("secret_set", request=request, project=project, name=name, hint=secret.hint, hosts=bound)
    return secret


def delete_secret(request: HttpRequest | None, secret: Secret) -> None:
    record("secret_deleted", request=request, project=secret.project, name=secret.name)
    secret.delete()


def create_token(
    request: HttpRequest | None, user: Any, name: Any, scope: Any, days: Any
) -> tuple[DeviceToken, str]:
    """A new API token of ``user`` for one device: the row (only the token's SHA-512 digest
    is stored) and the token itself, to be shown once. ``days``: its lifetime, 1 to
    ``MAX_TOKEN_DAYS``."""
    device = str(name or "").strip()[:100]
    scope_ = str(scope or TokenScope.READ)
    try:
        lifetime = int(days)
    except (TypeError, ValueError):
        lifetime = -1
    if not device:
        raise Refused("name", "the device, e.g. 'CI on main'")
    if scope_ not in TokenScope.values:
        raise Refused("scope", f"one of {', '.join(TokenScope.values)}")
    if not 1 <= lifetime <= MAX_TOKEN_DAYS:
        raise Refused("days", f"between 1 and {MAX_TOKEN_DAYS}")
    instance, token = DeviceToken.objects.create(
        user, expiry=timedelta(days=lifetime), name=device, scope=scope_
    )
    record("token_created", request=request, name=device, scope=scope_, days=lifetime)
    return instance, token


def revoke_token(request: HttpRequest | None, token: DeviceToken) -> None:
    record("token_revoked", request=request, name=token.name)
    token.delete()


def revoke_all_tokens(request: HttpRequest | None, tokens: Any) -> int:
    """Delete every token of ``tokens`` (a queryset of one user's tokens); how many."""
    count, _ = tokens.delete()
    record("tokens_revoked_all", request=request, count=count)
    return int(count)
