"""The machine API under ``/api/`` (Django REST Framework): projects, members, files,
secrets and tokens. Runs, conversations and annotations are in ``_api_runs``.

Every viewset lists through ``_permissions.scope`` and checks objects through
``_api_access.RoleAccess``; nothing here decides access by hand. Routes (docs/web.md):

- ``/api/projects/`` (list, create, retrieve, update, delete)
- ``/api/members/`` (``?project=``; add, change role, remove — owners only)
- ``/api/files/`` (``?project=``; create, new version, delete; ``versions``)
- ``/api/secrets/`` (owners, session only; the value is write-only, shown as ``…abcd``)
- ``/api/tokens/`` (session only; created per device, the token shown once),
  ``/api/auth/logout/`` (revoke the token used), ``/api/auth/logoutall/`` (revoke all)
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar, cast

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.http import Http404
from django.utils import timezone
from knox.views import LogoutAllView, LogoutView
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer

from sparring.errors import UserInputError
from sparring.web._api_access import RoleAccess, SessionOnly
from sparring.web._audit import record
from sparring.web._files import save_file
from sparring.web._manage import (
    Refused,
    add_member,
    change_role,
    create_token,
    delete_secret,
    find_user,
    remove_member,
    revoke_token,
    save_secret,
)
from sparring.web._permissions import (
    Action,
    get_object,
    may_create_project,
    own_tokens,
    require,
    scope,
)
from sparring.web._views import create_project
from sparring.web.models import (
    DeviceToken,
    FileKind,
    Membership,
    Project,
    ProjectFile,
    Secret,
)


def body(request: Request) -> dict[str, Any]:
    """The request's body as an object (400 when it is a list or a scalar)."""
    data = request.data
    if not isinstance(data, dict):
        raise ValidationError("the body must be an object")
    return data


def me(request: Request) -> User:
    """The signed-in user (every view here requires one)."""
    return cast(User, request.user)


def problems_response(exc: UserInputError) -> Response:
    """A 400 listing every located problem (file, line, key, message)."""
    detail = {
        "problems": [
            {"file": p.file, "line": p.line, "key": p.key, "message": p.message}
            for p in exc.problems
        ]
    }
    return Response(detail, status=status.HTTP_400_BAD_REQUEST)


@contextmanager
def refused_as_400() -> Iterator[None]:
    """Turn ``_manage.Refused`` into a 400 naming the field at fault."""
    try:
        yield
    except Refused as exc:
        raise ValidationError({exc.field: exc.message}) from None


def project_for(request: Request, action_: Action, pk: Any) -> Project:
    """The project ``pk`` if the user may do ``action_`` on it (404 / 403 otherwise)."""
    if pk in (None, ""):
        raise ValidationError({"project": "required"})
    return get_object(Project.objects.all(), request.user, action_, pk=pk)


class ScopedViewSet(viewsets.GenericViewSet[Any]):
    """A viewset whose queryset is always narrowed by the permission layer, optionally
    filtered by ``?project=``."""

    permission_classes: tuple[type[BasePermission], ...] = (RoleAccess,)
    write_actions: ClassVar[dict[str, str]] = {}

    def get_queryset(self) -> QuerySet[Any]:
        rows = scope(self.base_queryset(), self.request.user)
        project = self.request.query_params.get("project")
        if project and project.isdigit():
            path = getattr(self, "project_lookup", "project")
            rows = rows.filter(**{path: int(project)})
        return rows

    def base_queryset(self) -> QuerySet[Any]:
        raise NotImplementedError


class ProjectSerializer(serializers.ModelSerializer[Project]):
    role = serializers.SerializerMethodField()

    class Meta:
        model = Project
        fields = (
            "id",
            "name",
            "description",
            "public",
            "created_at",
            "role",
            "max_conversations",
            "max_concurrency",
            "max_run_seconds",
            "max_stored_mb",
        )
        read_only_fields = ("id", "created_at", "role")
        """The ``max_*`` quotas: the owner's (PATCH), capped by the server's (``_quotas``)."""

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """Each quota within the server's maximum (``_quotas.quota_problem``), as the
        pages check it."""
        from sparring.web._quotas import QUOTA_FIELDS, quota_problem

        problems = {
            name: why
            for name in QUOTA_FIELDS
            if name in attrs and (why := quota_problem(name, attrs[name])) is not None
        }
        if problems:
            raise serializers.ValidationError(problems)
        return attrs

    def get_role(self, project: Project) -> str | None:
        request = self.context.get("request")
        user = getattr(request, "user", None)
        membership = project.memberships.filter(user=user).first() if user else None
        return membership.role if membership is not None else None


class ProjectViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    ScopedViewSet,
):
    serializer_class = ProjectSerializer
    write_actions: ClassVar[dict[str, str]] = {
        "create": "edit",
        "update": "manage",
        "partial_update": "manage",
        "destroy": "manage",
    }

    def base_queryset(self) -> QuerySet[Project]:
        return Project.objects.all()

    def get_queryset(self) -> QuerySet[Any]:
        return scope(self.base_queryset(), self.request.user)

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        if not SessionOnly().has_permission(request, self):
            return Response(status=status.HTTP_403_FORBIDDEN)
        if not may_create_project(request.user):
            detail = "only staff accounts create projects on this server"
            return Response({"detail": detail}, status=status.HTTP_403_FORBIDDEN)
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        project = create_project(
            request.user, data["name"], data.get("description", ""), data.get("public", False)
        )
        return Response(self.get_serializer(project).data, status=status.HTTP_201_CREATED)

    def perform_destroy(self, instance: Project) -> None:
        from sparring.web._lifecycle import delete_project

        delete_project(self.request, instance)  # its runs' folders too, audited


class MemberSerializer(serializers.ModelSerializer[Membership]):
    username = serializers.CharField(source="user.username", read_only=True)

    class Meta:
        model = Membership
        fields = ("id", "project", "username", "role")
        read_only_fields = ("id", "project", "username")


class MemberViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    ScopedViewSet,
):
    """Members of the projects the user may read; owners add, change and remove them."""

    serializer_class = MemberSerializer
    write_actions: ClassVar[dict[str, str]] = {
        "create": "manage",
        "update": "manage",
        "partial_update": "manage",
        "destroy": "manage",
    }

    def base_queryset(self) -> QuerySet[Membership]:
        return Membership.objects.select_related("user")

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        project = project_for(request, Action.MANAGE, body(request).get("project"))
        with refused_as_400():
            user = find_user(str(body(request).get("username") or ""))
            membership, _ = add_member(request, project, user, str(body(request).get("role", "")))
        return Response(MemberSerializer(membership).data, status=status.HTTP_201_CREATED)

    def perform_update(self, serializer: BaseSerializer[Membership]) -> None:
        membership = serializer.instance
        assert membership is not None
        with refused_as_400():
            role = serializer.validated_data.get("role", membership.role)
            change_role(self.request, membership, str(role))

    def perform_destroy(self, instance: Membership) -> None:
        with refused_as_400():
            remove_member(self.request, instance)


class FileSerializer(serializers.ModelSerializer[ProjectFile]):
    content = serializers.SerializerMethodField()
    version = serializers.SerializerMethodField()

    class Meta:
        model = ProjectFile
        fields = ("id", "project", "kind", "name", "version", "content")

    def get_content(self, file: ProjectFile) -> str | None:
        current = file.current
        return current.content if current is not None else None

    def get_version(self, file: ProjectFile) -> int | None:
        current = file.current
        return current.number if current is not None else None


class FileViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin, ScopedViewSet
):
    """Project files: every save is validated (located problems, 400) and kept as a new
    version."""

    serializer_class = FileSerializer
    write_actions: ClassVar[dict[str, str]] = {
        "create": "edit",
        "update": "edit",
        "partial_update": "edit",
        "destroy": "edit",
    }

    def base_queryset(self) -> QuerySet[ProjectFile]:
        return ProjectFile.objects.all()

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        project = project_for(request, Action.EDIT, body(request).get("project"))
        kind = str(body(request).get("kind", ""))
        if kind not in FileKind.values:
            raise ValidationError({"kind": f"one of {', '.join(FileKind.values)}"})
        return self._save(
            project, kind, str(body(request).get("name", "")), status.HTTP_201_CREATED
        )

    def update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        file = self.get_object()
        return self._save(file.project, file.kind, file.name, status.HTTP_200_OK)

    def partial_update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return self.update(request, *args, **kwargs)

    def perform_destroy(self, instance: ProjectFile) -> None:
        from sparring.web._lifecycle import delete_file

        delete_file(self.request, instance)

    def _save(self, project: Project, kind: str, name: str, code: int) -> Response:
        content = body(self.request).get("content")
        if not isinstance(content, str):
            raise ValidationError({"content": "required (the file's text)"})
        try:
            file = save_file(project, kind, name, content, self.request.user)
        except UserInputError as exc:
            return problems_response(exc)
        return Response(FileSerializer(file).data, status=code)

    @action(detail=True, methods=["get"])
    def versions(self, request: Request, pk: str | None = None) -> Response:
        file = self.get_object()
        rows = file.versions.values("number", "created_at", "author__username", "content")
        return Response(list(rows))


class SecretSerializer(serializers.ModelSerializer[Secret]):
    class Meta:
        model = Secret
        fields = ("id", "project", "name", "hint", "hosts", "updated_at")
        read_only_fields = fields


class SecretViewSet(mixins.ListModelMixin, mixins.DestroyModelMixin, ScopedViewSet):
    """Secrets of the projects the user owns; the value is write-only."""

    serializer_class = SecretSerializer
    permission_classes = (
        SessionOnly,
        RoleAccess,
    )
    write_actions: ClassVar[dict[str, str]] = {"create": "manage", "destroy": "manage"}

    def base_queryset(self) -> QuerySet[Secret]:
        return Secret.objects.all()

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        project = project_for(request, Action.MANAGE, body(request).get("project"))
        with refused_as_400():
            given = body(request)
            secret = save_secret(
                request,
                project,
                given.get("name"),
                given.get("value"),
                me(request),
                given.get("hosts"),
            )
        return Response(SecretSerializer(secret).data, status=status.HTTP_201_CREATED)

    def perform_destroy(self, instance: Secret) -> None:
        require(self.request.user, Action.MANAGE, instance)
        delete_secret(self.request, instance)


class TokenSerializer(serializers.ModelSerializer[DeviceToken]):
    id = serializers.CharField(source="digest", read_only=True)

    class Meta:
        model = DeviceToken
        fields = ("id", "name", "scope", "created", "expiry", "last_used")
        read_only_fields = ("id", "created", "expiry", "last_used")


class TokenViewSet(
    mixins.ListModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet[DeviceToken]
):
    """The user's own API tokens, one per device: created with a scope and a lifetime
    (days, at most a year), the token shown once; revocable."""

    serializer_class = TokenSerializer
    permission_classes = (SessionOnly,)

    def get_queryset(self) -> QuerySet[DeviceToken]:
        return own_tokens(self.request.user).filter(expiry__gt=timezone.now())

    def get_object(self) -> DeviceToken:
        token = own_tokens(self.request.user).filter(digest=self.kwargs.get("pk")).first()
        if token is None:
            raise Http404
        return token

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data_in = body(request)
        with refused_as_400():
            instance, token = create_token(
                request,
                me(request),
                data_in.get("name"),
                data_in.get("scope"),
                data_in.get("days", 30),
            )
        data = dict(TokenSerializer(instance).data)
        data["token"] = token  # shown once: only its digest is stored
        return Response(data, status=status.HTTP_201_CREATED)

    def perform_destroy(self, instance: DeviceToken) -> None:
        revoke_token(self.request, instance)


class TokenLogout(LogoutView):  # type: ignore[misc]  # knox ships no types
    """Revoke the token this request was made with."""

    def post(self, request: Request, format: Any = None) -> Response:
        name = getattr(request.auth, "name", "")
        response: Response = super().post(request, format)
        record("token_revoked", request=request, name=name, via="logout")
        return response


class TokenLogoutAll(LogoutAllView):  # type: ignore[misc]  # knox ships no types
    """Revoke every token of the user."""

    def post(self, request: Request, format: Any = None) -> Response:
        response: Response = super().post(request, format)
        record("tokens_revoked_all", request=request)
        return response
