"""Invitations: an owner adds a teammate by e-mail or with a one-time link, with a role.

A link is ``/invite/TOKEN/`` where ``TOKEN`` is the ``Invitation`` row's id signed with
Django's ``signing`` (the server's ``SECRET_KEY``, a salt of its own, a timestamp checked
against ``INVITATION_DAYS``): it cannot be forged or pointed at another invitation, and
nothing secret is stored. It works once — accepting sets ``accepted_at`` under a row lock
— until it expires, and never after the owner revokes it (the row is deleted). Opening the
link shows what it grants; only a POST (a button) accepts it, so a mail scanner that
follows links spends nothing. An invitation by e-mail is sent with Django's mail
(``send_mail``; the console backend unless ``SPARRING_WEB_EMAIL_URL`` is set).

Each step is audited: ``invitation_created``, ``invitation_accepted``,
``invitation_revoked``. On a server in local mode (``_local``), the second account an
invitation creates turns the SSRF guard back on.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core import signing
from django.core.mail import send_mail
from django.db import transaction
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone

from sparring.web._audit import record
from sparring.web.models import Invitation, Membership, Project, Role

INVITATION_DAYS = 7
SALT = "sparring.web.invitation"


def invitation_link(request: HttpRequest, invitation: Invitation) -> str:
    """The absolute one-time link of ``invitation``."""
    token = signing.dumps(invitation.pk, salt=SALT, compress=True)
    return request.build_absolute_uri(reverse("invitation", args=[token]))


def find_invitation(token: str) -> Invitation | None:
    """The pending invitation ``token`` names (``None``: forged, expired by its signature
    or its row, revoked, or already accepted)."""
    try:
        pk = signing.loads(token, salt=SALT, max_age=timedelta(days=INVITATION_DAYS))
    except signing.BadSignature:  # SignatureExpired included
        return None
    if not isinstance(pk, int):
        return None
    found = Invitation.objects.select_related("project").filter(pk=pk).first()
    if found is None or found.accepted_at is not None or found.expires_at <= timezone.now():
        return None
    return found


def create_invitation(
    request: HttpRequest, project: Project, role: str, email: str = ""
) -> tuple[Invitation, str]:
    """A new invitation to ``project`` with ``role`` and its link; mailed to ``email``
    when one is given. Raises ``ValueError`` for a role that is not one."""
    if role not in Role.values:
        raise ValueError(f"{role!r} is not a role")
    invitation = Invitation.objects.create(
        project=project,
        role=role,
        email=email,
        created_by=request.user if request.user.is_authenticated else None,
        expires_at=timezone.now() + timedelta(days=INVITATION_DAYS),
    )
    link = invitation_link(request, invitation)
    if email:
        inviter = request.user.get_username() if request.user.is_authenticated else "someone"
        send_mail(
            f"Join {project.name} on sparring",
            f"{inviter} invites you to the sparring project {project.name!r} as {role}.\n\n"
            f"Open this link to join (it works once, for {INVITATION_DAYS} days):\n{link}\n",
            settings.DEFAULT_FROM_EMAIL,
            [email],
        )
    record(
        "invitation_created",
        request=request,
        project=project,
        role=role,
        by_email=bool(email),
        invitation=invitation.pk,
    )
    return invitation, link


def accept(request: HttpRequest, invitation: Invitation, user: Any) -> Membership | None:
    """``user`` joins the invitation's project with its role (a member keeps the role
    they have); the invitation is spent. ``None`` when it was spent or revoked meanwhile."""
    with transaction.atomic():
        locked = Invitation.objects.select_for_update().filter(pk=invitation.pk).first()
        if locked is None or locked.accepted_at is not None:
            return None
        locked.accepted_at = timezone.now()
        locked.accepted_by = user
        locked.save(update_fields=["accepted_at", "accepted_by"])
        membership, _ = Membership.objects.get_or_create(
            project=locked.project, user=user, defaults={"role": locked.role}
        )
    record(
        "invitation_accepted",
        request=request,
        actor=user,
        project=locked.project,
        role=membership.role,
        invitation=locked.pk,
    )
    return membership


def revoke(request: HttpRequest, invitation: Invitation) -> None:
    """Delete a pending ``invitation``: its link no longer works."""
    record(
        "invitation_revoked", request=request, project=invitation.project, invitation=invitation.pk
    )
    invitation.delete()
