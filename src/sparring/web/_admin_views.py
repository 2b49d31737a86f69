"""The pages for what owners manage — a project's members and sharing, its secrets, its
quotas — and
for a user's own API tokens. Access goes through ``sparring.web._permissions`` (members:
read to see them, manage to change them; secrets: manage for every verb; tokens: the
user's own); the changes themselves, with their audit entries, are ``sparring.web._manage``.

Every form posts with CSRF; a secret's value is a password field that is never rendered
back, and a new API token is shown once, in the answer to the POST that created it
(``Cache-Control: no-store``), never stored or shown again.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_http_methods

from sparring.web._manage import (
    MAX_TOKEN_DAYS,
    Refused,
    add_member,
    change_role,
    create_token,
    delete_secret,
    find_user,
    remove_member,
    revoke_all_tokens,
    revoke_token,
    save_secret,
    set_public,
    set_quotas,
)
from sparring.web._permissions import Action, allowed, get_object, own_tokens, scope
from sparring.web.models import Membership, Project, Role, Secret, TokenScope


class AddMemberForm(forms.Form):
    who = forms.CharField(max_length=254, label="User name or e-mail")
    role = forms.ChoiceField(choices=Role.choices, initial=Role.VIEWER)


class SecretForm(forms.Form):
    name = forms.CharField(max_length=100, help_text="e.g. OPENAI_API_KEY")
    value = forms.CharField(
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off"})
    )
    hosts = forms.CharField(
        required=False,
        help_text="Hosts it may be sent to, comma-separated, e.g. bot.example.org "
        "(empty: nowhere — a model-provider key then goes only to its provider's own host)",
    )


def quota_form(data: Any = None, project: Project | None = None) -> forms.Form:
    """The owner's quotas form: one whole-number field per ``QUOTA_FIELDS`` entry, from 1
    to the server's maximum (empty: the server's), filled with ``project``'s."""
    from sparring.web._quotas import QUOTA_FIELDS, server_limits

    server = server_limits()
    form = forms.Form(data)
    for name, (limit, what) in QUOTA_FIELDS.items():
        most = getattr(server, limit)
        form.fields[name] = forms.IntegerField(
            required=False,
            min_value=1,
            max_value=most,
            label=what.capitalize(),
            help_text=f"at most {most:,} on this server; empty: {most:,}",
            initial=getattr(project, name, None),
        )
    return form


class TokenForm(forms.Form):
    name = forms.CharField(max_length=100, label="Device", help_text="e.g. CI on main")
    scope = forms.ChoiceField(choices=TokenScope.choices, initial=TokenScope.READ)
    days = forms.IntegerField(min_value=1, max_value=MAX_TOKEN_DAYS, initial=30)


def _project(request: HttpRequest, pk: int, action: Action) -> Project:
    return get_object(Project.objects.all(), request.user, action, pk=pk)


def _in_project(
    request: HttpRequest, model: type[Membership] | type[Secret], project: Project, ref: Any
) -> Any:
    """The row ``ref`` of ``model`` in ``project`` that the user may manage (404 otherwise)."""
    return get_object(
        model.objects.filter(project=project), request.user, Action.MANAGE, pk=str(ref or "")
    )


def _member_change(request: HttpRequest, project: Project) -> AddMemberForm:
    """Apply one owner's change (``op``: add, role, remove, public); the add form (bound,
    with its errors, when adding failed). Raises ``Refused``."""
    op = request.POST.get("op")
    form = AddMemberForm(request.POST if op == "add" else None)
    if op == "add":
        if form.is_valid():
            user = find_user(form.cleaned_data["who"])
            _, new = add_member(request, project, user, form.cleaned_data["role"])
            messages.success(request, f"{user.username} {'added' if new else 'changed'}")
    elif op == "role":
        membership = _in_project(request, Membership, project, request.POST.get("member"))
        change_role(request, membership, str(request.POST.get("role", "")))
        messages.success(request, f"{membership.user.username} is now {membership.role}")
    elif op == "remove":
        membership = _in_project(request, Membership, project, request.POST.get("member"))
        remove_member(request, membership)
        messages.success(request, f"{membership.user.username} removed")
    elif op == "public":
        set_public(request, project, request.POST.get("public") == "on")
        messages.success(request, "shared read-only" if project.public else "private")
    else:
        raise Refused("op", "unknown change")
    return form


@login_required
@require_http_methods(["GET", "POST"])
def members(request: HttpRequest, pk: int) -> HttpResponse:
    """The project's members (anyone who may read it); owners add members by user name or
    e-mail, change roles, remove members and share the project read-only. The last owner
    can be neither removed nor demoted."""
    project = _project(request, pk, Action.READ)
    form = AddMemberForm()
    if request.method == "POST":
        _project(request, pk, Action.MANAGE)
        try:
            form = _member_change(request, project)
        except Refused as exc:
            messages.error(request, exc.message)
        else:
            if not form.is_bound or form.is_valid():
                return redirect("members", pk=project.pk)
    rows = list(project.memberships.select_related("user").order_by("user__username"))
    owners = [m.pk for m in rows if m.role == Role.OWNER]
    context = {
        "project": project,
        "members": rows,
        "sole_owner": owners[0] if len(owners) == 1 else None,
        "form": form,
        "roles": Role.choices,
        "may_manage": allowed(request.user, Action.MANAGE, project),
    }
    return render(request, "sparring_web/members.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def secrets(request: HttpRequest, pk: int) -> HttpResponse:
    """The project's secrets, owners only: set or replace one (a model-provider API key, or
    any ``${NAME}`` a chatbot.yaml reads), delete one. Shown only as ``…abcd``."""
    project = _project(request, pk, Action.MANAGE)
    form = SecretForm(request.POST if request.POST.get("op") == "set" else None)
    if request.method == "POST":
        try:
            if request.POST.get("op") == "delete":
                secret = _in_project(request, Secret, project, request.POST.get("secret"))
                delete_secret(request, secret)
                messages.success(request, f"{secret.name} deleted")
                return redirect("secrets", pk=project.pk)
            if form.is_valid():
                data = form.cleaned_data
                saved = save_secret(
                    request, project, data["name"], data["value"], request.user, data["hosts"]
                )
                messages.success(request, f"{saved.name} saved ({saved.hint})")
                return redirect("secrets", pk=project.pk)
        except Refused as exc:
            form.add_error(exc.field if exc.field in form.fields else None, exc.message)
    rows = scope(Secret.objects.filter(project=project), request.user, Action.MANAGE)
    context = {"project": project, "secrets": rows, "form": form}
    return render(request, "sparring_web/secrets.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def quotas(request: HttpRequest, pk: int) -> HttpResponse:
    """The project's quotas: every reader sees the limits in force, the server's maximums
    and the space its runs take; owners change them, within the server's maximums
    (``_manage.set_quotas``). Editors and viewers may not (403)."""
    from sparring.web._quotas import QUOTA_FIELDS, project_limits, server_limits, stored_bytes

    project = _project(request, pk, Action.READ)
    form = quota_form(project=project)
    if request.method == "POST":
        _project(request, pk, Action.MANAGE)
        form = quota_form(request.POST, project)
        if form.is_valid():
            try:
                set_quotas(request, project, dict(form.cleaned_data))
            except Refused as exc:
                form.add_error(exc.field if exc.field in form.fields else None, exc.message)
            else:
                messages.success(request, "quotas saved")
                return redirect("quotas", pk=project.pk)
    limits, server = project_limits(project), server_limits()
    rows = [
        (what, getattr(project, name), getattr(limits, limit), getattr(server, limit))
        for name, (limit, what) in QUOTA_FIELDS.items()
    ]
    context = {
        "project": project,
        "rows": rows,
        "used_mb": stored_bytes(project) / 2**20,
        "form": form,
        "may_manage": allowed(request.user, Action.MANAGE, project),
    }
    return render(request, "sparring_web/quotas.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def tokens(request: HttpRequest) -> HttpResponse:
    """The user's own API tokens: create one per device (scope, lifetime; the token is
    shown once, in this answer), revoke one, revoke all."""
    form = TokenForm(request.POST if request.POST.get("op") == "create" else None)
    new_token = None
    if request.method == "POST":
        op = request.POST.get("op")
        if op == "revoke":
            token = own_tokens(request.user).filter(digest=request.POST.get("token", "")).first()
            if token is not None:
                revoke_token(request, token)
                messages.success(request, f"{token.name} revoked")
            return redirect("tokens")
        if op == "revoke-all":
            count = revoke_all_tokens(request, own_tokens(request.user))
            messages.success(request, f"{count} token(s) revoked")
            return redirect("tokens")
        if form.is_valid():
            data = form.cleaned_data
            try:
                _, new_token = create_token(
                    request, request.user, data["name"], data["scope"], data["days"]
                )
            except Refused as exc:
                form.add_error(exc.field if exc.field in form.fields else None, exc.message)
            else:
                form = TokenForm()
    context = {
        "tokens": own_tokens(request.user).filter(expiry__gt=timezone.now()),
        "form": form,
        "new_token": new_token,
    }
    response = render(request, "sparring_web/tokens.html", context)
    add_never_cache_headers(response)
    return response
