"""The foundation's pages: sign-in (password, one-time link), password, sign-up (when
open), and the project list. Richer pages build on ``base.html`` (docs/web.md). Every
object a view touches comes through ``sparring.web._permissions``."""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model, login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import SetPasswordForm, UserCreationForm
from django.contrib.auth.models import User
from django.contrib.auth.tokens import default_token_generator
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.encoding import force_str
from django.utils.http import urlsafe_base64_decode
from django.views.decorators.http import require_http_methods

from sparring.web._audit import record
from sparring.web._permissions import may_create_project, scope
from sparring.web.models import Membership, Project, Role


class ProjectForm(forms.ModelForm):  # type: ignore[type-arg]
    class Meta:
        model = Project
        fields = ("name", "description", "public")


class SignIn(auth_views.LoginView):
    """Django's sign-in page, with a sign-up link only when sign-up is open."""

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context: dict[str, Any] = super().get_context_data(**kwargs)
        context["signup_open"] = bool(settings.SIGNUP_OPEN)
        return context


def create_project(user: Any, name: str, description: str = "", public: bool = False) -> Project:
    """A new project with ``user`` as its owner."""
    with transaction.atomic():
        project = Project.objects.create(
            name=name, description=description, public=public, created_by=user
        )
        Membership.objects.create(project=project, user=user, role=Role.OWNER)
    record("project_created", actor=user, project=project, name=name, public=public)
    return project


@login_required
@require_http_methods(["GET", "POST"])
def projects(request: HttpRequest) -> HttpResponse:
    """The projects the user may read; POST creates one they own."""
    may_create = may_create_project(request.user)
    if request.method == "POST" and not may_create:
        raise PermissionDenied("only staff accounts create projects on this server")
    form = ProjectForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        create_project(request.user, data["name"], data["description"], data["public"])
        return redirect("projects")
    archived = request.GET.get("archived") == "1"
    visible = scope(Project.objects.filter(archived=archived), request.user)
    context = {"projects": visible, "form": form, "may_create": may_create, "archived": archived}
    return render(request, "sparring_web/projects.html", context)


@require_http_methods(["GET", "POST"])
def link_login(request: HttpRequest, uidb64: str, token: str) -> HttpResponse:
    """The one-time sign-in link ``sparring web`` prints for the first owner. The token is
    Django's password-reset token: it dies on first use (it covers ``last_login``), when
    the password changes, and after ``PASSWORD_RESET_TIMEOUT``. GET shows a button; the
    POST signs in (so link scanners cannot spend it)."""
    User = get_user_model()
    try:
        user = User.objects.get(pk=force_str(urlsafe_base64_decode(uidb64)))
    except (User.DoesNotExist, ValueError, TypeError, OverflowError):
        raise Http404 from None
    if not default_token_generator.check_token(user, token):
        return render(request, "sparring_web/link_used.html", status=410)
    if request.method == "POST":
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect("password" if not user.has_usable_password() else "projects")
    return render(request, "sparring_web/link_login.html", {"user_name": user.get_username()})


@login_required
@require_http_methods(["GET", "POST"])
def password(request: HttpRequest) -> HttpResponse:
    """Set a password (the first owner has none until they set one here)."""
    user = cast(User, request.user)  # signed in: login_required
    form = SetPasswordForm(user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        form.save()
        from django.contrib.auth import update_session_auth_hash

        update_session_auth_hash(request, user)
        return redirect("projects")
    return render(request, "sparring_web/password.html", {"form": form})


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """Create an account — only when the operator opened sign-up (``SPARRING_WEB_SIGNUP``)."""
    if not settings.SIGNUP_OPEN:
        raise Http404
    form: UserCreationForm[User] = UserCreationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect("projects")
    return render(request, "sparring_web/signup.html", {"form": form})
