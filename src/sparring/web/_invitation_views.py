"""The invitation pages: an owner invites by e-mail or link (``/projects/ID/invitations/``)
and revokes pending invitations; whoever holds a link opens ``/invite/TOKEN/`` and joins —
signed in, with a button; otherwise by creating an account there (whatever the sign-up
setting: the owner invited them). The rules are ``sparring.web._invitations``."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_http_methods

from sparring.web._invitations import accept, create_invitation, find_invitation, revoke
from sparring.web._permissions import Action, get_object
from sparring.web.models import Invitation, Project, Role


class InvitationForm(forms.Form):
    email = forms.EmailField(
        required=False, label="E-mail", help_text="Empty: a one-time link to hand over yourself."
    )
    role = forms.ChoiceField(choices=Role.choices, initial=Role.EDITOR)


@login_required
@require_http_methods(["GET", "POST"])
def invitations(request: HttpRequest, pk: int) -> HttpResponse:
    """Owners: invite (POST ``email``, ``role``; the link is shown once, in the answer),
    revoke (POST ``revoke``: an invitation's id), and the pending and accepted ones."""
    project = get_object(Project.objects.all(), request.user, Action.MANAGE, pk=pk)
    form = InvitationForm(request.POST if "role" in request.POST else None)
    link = None
    if request.method == "POST" and "revoke" in request.POST:
        try:
            wanted = int(request.POST["revoke"])
        except ValueError:
            raise Http404 from None
        found = get_object(Invitation.objects.all(), request.user, Action.MANAGE, pk=wanted)
        if found.project_id != project.pk or found.accepted_at is not None:
            raise Http404
        revoke(request, found)
        messages.success(request, "Invitation revoked: its link no longer works.")
        return redirect("invitations", pk=project.pk)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        _, link = create_invitation(request, project, data["role"], data["email"])
        if data["email"]:
            messages.success(request, f"Invitation sent to {data['email']}.")
        form = InvitationForm()
    from sparring.web._local import current_facts

    now = timezone.now()
    rows = Invitation.objects.filter(project=project).select_related("accepted_by")
    context = {
        "project": project,
        "form": form,
        "link": link,
        "pending": rows.filter(accepted_at__isnull=True, expires_at__gt=now),
        "accepted": rows.filter(accepted_at__isnull=False)[:20],
        "local": current_facts().local,
    }
    response = render(request, "sparring_web/invitations.html", context)
    if link is not None:  # the link is in this answer only
        add_never_cache_headers(response)
    return response


@require_http_methods(["GET", "POST"])
def invitation(request: HttpRequest, token: str) -> HttpResponse:
    """Open an invitation link: what it grants; POST joins (signed in) or creates the
    account and joins (anonymous). 410 for a link that is forged, spent, revoked or
    expired."""
    found = find_invitation(token)
    if found is None:
        return render(request, "sparring_web/invitation_used.html", status=410)
    form: UserCreationForm[User] | None = None
    if not request.user.is_authenticated:
        form = UserCreationForm(request.POST or None)
    if request.method == "POST" and request.user.is_authenticated:
        if accept(request, found, request.user) is None:
            return render(request, "sparring_web/invitation_used.html", status=410)
        messages.success(request, f"You joined {found.project.name} as {found.role}.")
        return redirect("project", pk=found.project_id)
    if request.method == "POST" and form is not None and form.is_valid():
        with transaction.atomic():
            user = form.save(commit=False)
            user.email = found.email
            user.save()
            if accept(request, found, user) is None:
                transaction.set_rollback(True)
                return render(request, "sparring_web/invitation_used.html", status=410)
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome: you joined {found.project.name} as {found.role}.")
        return redirect("project", pk=found.project_id)
    context = {"invitation": found, "form": form, "token": token}
    return render(request, "sparring_web/invitation_accept.html", context)
