"""The API's side of the one permission layer: DRF permission classes that ask
``sparring.web._permissions`` and enforce token scopes.

- A request signed in by session may do what the user's role allows.
- A request with an API token (a ``DeviceToken``) may read with any scope, may start, stop
  and delete runs only with the ``run`` scope, and may never edit files, annotate, manage
  members, secrets or tokens: those need a person at a browser.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, cast

from django.db.models import Model
from django.utils import timezone
from knox.auth import TokenAuthentication
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request

from sparring.web._permissions import Action, allowed
from sparring.web.models import DeviceToken, TokenScope

LAST_USED_STEP = timedelta(minutes=1)
"""``DeviceToken.last_used`` is written at most once per token in this time (no write per
request)."""


class DeviceTokenAuthentication(TokenAuthentication):  # type: ignore[misc]  # knox: no types
    """knox's token authentication, keeping when each token was last used."""

    def validate_user(self, auth_token: DeviceToken) -> tuple[Any, DeviceToken]:
        found: tuple[Any, DeviceToken] = super().validate_user(auth_token)
        now = timezone.now()
        if auth_token.last_used is None or now - auth_token.last_used >= LAST_USED_STEP:
            DeviceToken.objects.filter(digest=auth_token.digest).update(last_used=now)
            auth_token.last_used = now
        return found


def by_token(request: Request) -> bool:
    """Whether ``request`` was authenticated with an API token."""
    return isinstance(request.auth, DeviceToken)


def token_may(request: Request, action: Action) -> bool:
    """Whether the request's token scope covers ``action`` (true for session requests)."""
    if not by_token(request):
        return True
    if action == Action.READ:
        return True
    return action == Action.RUN and cast(DeviceToken, request.auth).scope == TokenScope.RUN


def action_of(request: Request, view: Any) -> Action:
    """The action a request asks for: ``READ`` for safe methods, else the view's
    ``write_actions[view.action]`` (default ``EDIT``)."""
    if request.method in SAFE_METHODS and getattr(view, "action", None) not in getattr(
        view, "write_actions", {}
    ):
        return Action.READ
    return Action(getattr(view, "write_actions", {}).get(getattr(view, "action", ""), "edit"))


class RoleAccess(BasePermission):
    """Signed in, the token's scope covers the action, and (per object) the role allows it.
    Viewsets list through ``scope`` so unreadable objects are never found (404)."""

    def has_permission(self, request: Request, view: Any) -> bool:
        if not (request.user and request.user.is_authenticated):
            return False
        return token_may(request, action_of(request, view))

    def has_object_permission(self, request: Request, view: Any, obj: Model) -> bool:
        return allowed(request.user, action_of(request, view), obj)


class SessionOnly(BasePermission):
    """Signed in through the browser session: API tokens cannot manage tokens or secrets."""

    def has_permission(self, request: Request, view: Any) -> bool:
        return bool(request.user and request.user.is_authenticated) and not by_token(request)
