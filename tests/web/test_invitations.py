"""Invitations (``sparring.web._invitations``): an owner invites by e-mail (Django's mail,
the console backend by default) or a one-time link with a role; the link is signed, works
once, expires, dies when revoked, and cannot be forged or pointed at another invitation;
only owners invite. And the server setting that restricts who may create projects."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail, signing
from django.utils import timezone
from web_helpers import PASSWORD, api, client_for, csrf_post

from sparring.web._config import ProjectCreators, email_settings
from sparring.web._invitations import SALT
from sparring.web.models import AuditEvent, Invitation, Membership, Project

LINK = re.compile(r"https?://[^/\s]+(/invite/[^/\s]+/)")


def _invite(owner: Any, project: Any, role: str = "editor", email: str = "") -> tuple[Any, str]:
    """The owner's POST on the invitations page, and the invitation's link (its path)."""
    page = csrf_post(
        client_for(owner), f"/projects/{project.pk}/invitations/", {"role": role, "email": email}
    )
    assert page.status_code == 200, page.content
    found = LINK.search(page.content.decode())
    assert found is not None
    return page, found.group(1)


def _join(path: str, name: str) -> Any:
    """An anonymous visitor opens ``path`` and creates the account ``name`` there."""
    visitor = client_for(None)
    visitor.get(path)
    data = {"username": name, "password1": PASSWORD, "password2": PASSWORD}
    return csrf_post(visitor, path, data)


@pytest.mark.django_db
def test_a_link_invitation_creates_the_account_with_its_role_once(world: dict[str, Any]) -> None:
    project = world["project"]
    page, path = _invite(world["owner"], project, role="viewer")
    assert "no-store" in page["Cache-Control"]  # the link is in this answer only
    assert client_for(None).get(path).status_code == 200
    joined = _join(path, "newcomer")
    assert joined.status_code == 302 and joined["Location"] == f"/projects/{project.pk}/"
    user = get_user_model().objects.get(username="newcomer")
    assert Membership.objects.get(project=project, user=user).role == "viewer"
    assert _join(path, "second").status_code == 410  # spent
    assert not get_user_model().objects.filter(username="second").exists()
    actions = list(AuditEvent.objects.values_list("action", flat=True))
    assert "invitation_created" in actions and "invitation_accepted" in actions


@pytest.mark.django_db
def test_an_e_mail_invitation_is_mailed_and_a_signed_in_user_joins_with_a_button(
    world: dict[str, Any], settings: Any
) -> None:
    console = "django.core.mail.backends.console.EmailBackend"
    assert email_settings(None)["EMAIL_BACKEND"] == console  # the server's default
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"  # to read it
    project, stranger = world["project"], world["stranger"]
    _invite(world["owner"], project, role="editor", email="str@example.org")
    [message] = mail.outbox
    assert message.to == ["str@example.org"] and project.name in message.subject
    found = LINK.search(message.body)
    assert found is not None
    path = found.group(1)
    browser = client_for(stranger)
    opened = browser.get(path)  # a mail scanner following the link spends nothing
    assert opened.status_code == 200 and "as <strong>editor</strong>" in opened.content.decode()
    assert not Membership.objects.filter(project=project, user=stranger).exists()
    assert csrf_post(browser, path).status_code == 302
    assert Membership.objects.get(project=project, user=stranger).role == "editor"


@pytest.mark.django_db
def test_a_member_keeps_the_role_they_have(world: dict[str, Any]) -> None:
    project, viewer = world["project"], world["viewer"]
    _, path = _invite(world["owner"], project, role="owner")
    csrf_post(client_for(viewer), path)
    assert Membership.objects.get(project=project, user=viewer).role == "viewer"


@pytest.mark.django_db
def test_a_revoked_an_expired_or_a_forged_link_gives_nothing(world: dict[str, Any]) -> None:
    project, owner = world["project"], world["owner"]
    _, revoked = _invite(owner, project)
    pending = Invitation.objects.get()
    csrf_post(client_for(owner), f"/projects/{project.pk}/invitations/", {"revoke": pending.pk})
    assert client_for(None).get(revoked).status_code == 410
    assert _join(revoked, "late").status_code == 410
    _, expired = _invite(owner, project)
    Invitation.objects.update(expires_at=timezone.now() - timedelta(minutes=1))
    assert _join(expired, "late").status_code == 410
    # another invitation's id, signed with another salt or key: refused
    other = Invitation.objects.create(
        project=world["other"], role="owner", expires_at=timezone.now() + timedelta(days=1)
    )
    for token in (
        signing.dumps(other.pk, salt="another salt"),
        signing.dumps(other.pk, salt=SALT, key="x" * 60),
        str(other.pk),
        expired.split("/")[2][:-3] + "AAA",
    ):
        assert _join(f"/invite/{token}/", "forger").status_code == 410
    assert not get_user_model().objects.filter(username__in=["late", "forger"]).exists()
    assert (
        not Membership.objects.filter(project=world["other"], role="owner")
        .exclude(user=world["stranger"])
        .exists()
    )


@pytest.mark.django_db
def test_only_owners_invite_or_revoke(world: dict[str, Any]) -> None:
    project = world["project"]
    url = f"/projects/{project.pk}/invitations/"
    for who, code in (("editor", 403), ("viewer", 403), ("stranger", 404)):
        assert client_for(world[who]).get(url).status_code == code
        assert csrf_post(client_for(world[who]), url, {"role": "owner"}).status_code == code
    assert not Invitation.objects.exists()
    _invite(world["owner"], project)
    pending = Invitation.objects.get()
    page = csrf_post(client_for(world["editor"]), url, {"revoke": pending.pk})
    assert page.status_code == 403 and Invitation.objects.exists()
    theirs = f"/projects/{world['other'].pk}/invitations/"  # the owner of another project
    assert (
        csrf_post(client_for(world["stranger"]), theirs, {"revoke": pending.pk}).status_code == 404
    )
    assert Invitation.objects.exists()


@pytest.mark.django_db
def test_the_server_may_restrict_who_creates_projects(world: dict[str, Any], settings: Any) -> None:
    settings.PROJECT_CREATORS = ProjectCreators.STAFF
    editor = world["editor"]
    page = client_for(editor).get("/projects/").content.decode()
    assert 'id="no-create"' in page
    assert csrf_post(client_for(editor), "/projects/", {"name": "mine"}).status_code == 403
    created = api(client_for(editor), "post", "/api/projects/", {"name": "mine"})
    assert created.status_code == 403
    assert not Project.objects.filter(name="mine").exists()
    staff = get_user_model().objects.create_user("ops", password=PASSWORD, is_staff=True)
    assert csrf_post(client_for(staff), "/projects/", {"name": "ops'"}).status_code == 302
    settings.PROJECT_CREATORS = ProjectCreators.EVERYONE
    assert api(client_for(editor), "post", "/api/projects/", {"name": "x"}).status_code == 201


def test_the_settings_are_read_typed(monkeypatch: pytest.MonkeyPatch) -> None:
    from sparring.errors import UserInputError
    from sparring.web._config import read_config

    monkeypatch.setenv("SPARRING_WEB_PROJECT_CREATORS", "Staff")
    assert read_config().project_creators is ProjectCreators.STAFF
    monkeypatch.setenv("SPARRING_WEB_PROJECT_CREATORS", "admins")
    with pytest.raises(UserInputError, match="SPARRING_WEB_PROJECT_CREATORS"):
        read_config()
    smtp = email_settings("smtp+tls://me%40x.org:p%40ss@mail.example.org")
    assert smtp["EMAIL_HOST"] == "mail.example.org" and smtp["EMAIL_PORT"] == 587
    assert smtp["EMAIL_HOST_USER"] == "me@x.org" and smtp["EMAIL_HOST_PASSWORD"] == "p@ss"
    assert smtp["EMAIL_USE_TLS"] and not smtp["EMAIL_USE_SSL"]
    with pytest.raises(UserInputError, match="SPARRING_WEB_EMAIL_URL"):
        email_settings("http://mail.example.org")


@pytest.mark.django_db
def test_an_accepted_invitation_ends_local_mode(settings: Any) -> None:
    from sparring.web import _local
    from sparring.web._serve import guard_network
    from sparring.web._views import create_project

    settings.SSRF_ALLOW = []
    owner = get_user_model().objects.create_superuser("owner", password=None)
    project = create_project(owner, "laptop")
    guard_network("127.0.0.1")
    assert _local.current_facts().local
    page, path = _invite(owner, project)
    assert 'id="local-warning"' in page.content.decode()  # said before it happens
    _join(path, "teammate")
    assert not _local.current_facts().local
