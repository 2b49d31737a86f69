"""The pages for members and sharing, secrets and API tokens, through Django's test client
with CSRF enforced: each page's access matrix (owner / editor / viewer / stranger /
anonymous × GET / POST), the last owner kept, no plaintext secret in any page after saving
one, a token shown once and never again, and the sign-up link only when sign-up is open."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone
from web_helpers import client_for, csrf_post

from sparring.web._manage import create_token
from sparring.web._secrets import set_secret
from sparring.web.models import AuditEvent, DeviceToken, Membership, Role, Secret

pytestmark = pytest.mark.django_db

KEY = "sk-test-0123456789abcdefWXYZ"
WHO = ("owner", "editor", "viewer", "stranger", None)


def _status(user: Any, method: str, url: str, data: dict[str, Any] | None = None) -> int:
    client = client_for(user)
    response = client.get(url) if method == "get" else csrf_post(client, url, data)
    if response.status_code == 302 and response["Location"].startswith("/login/"):
        return 401
    return int(response.status_code)


@pytest.mark.parametrize(
    ("page", "expected_get", "expected_post"),
    [
        # members: every reader sees them; only owners change them; a stranger learns nothing
        ("members", (200, 200, 200, 404, 401), (302, 403, 403, 404, 401)),
        # secrets: owners only, for every verb
        ("secrets", (200, 403, 403, 404, 401), (302, 403, 403, 404, 401)),
    ],
)
def test_the_project_pages_access_matrix(
    world: dict[str, Any], page: str, expected_get: tuple[int, ...], expected_post: tuple[int, ...]
) -> None:
    url = f"/projects/{world['project'].pk}/{page}/"
    post = (
        {"op": "public", "public": "on"}
        if page == "members"
        else {"op": "set", "name": "OPENAI_API_KEY", "value": KEY}
    )
    got_get = tuple(_status(world[w] if w else None, "get", url) for w in WHO)
    assert got_get == expected_get
    # POST as each one in turn, the owner last (its change succeeds and redirects)
    order = [1, 2, 3, 4, 0]
    got_post = {i: _status(world[WHO[i]] if WHO[i] else None, "post", url, post) for i in order}
    assert tuple(got_post[i] for i in range(5)) == expected_post


def test_a_public_project_shows_members_to_every_signed_in_user_but_no_controls(
    world: dict[str, Any],
) -> None:
    url = f"/projects/{world['public'].pk}/members/"
    page = client_for(world["stranger"]).get(url).content.decode()
    assert "pub" in page and 'id="add-member"' not in page and "Remove" not in page
    assert _status(world["stranger"], "post", url, {"op": "public"}) == 403
    assert _status(world["stranger"], "get", f"/projects/{world['public'].pk}/secrets/") == 403
    world["public"].refresh_from_db()
    assert world["public"].public


def test_owners_add_change_and_remove_members_with_audit_entries(
    world: dict[str, Any], make_user: Any
) -> None:
    project, owner = world["project"], client_for(world["owner"])
    newcomer = make_user("newcomer")
    newcomer.email = "new@example.org"
    newcomer.save()
    url = f"/projects/{project.pk}/members/"
    assert csrf_post(owner, url, {"op": "add", "who": "NEW@example.org", "role": "editor"})
    membership = Membership.objects.get(project=project, user=newcomer)
    assert membership.role == Role.EDITOR
    csrf_post(owner, url, {"op": "role", "member": membership.pk, "role": "viewer"})
    membership.refresh_from_db()
    assert membership.role == Role.VIEWER
    csrf_post(owner, url, {"op": "remove", "member": membership.pk})
    assert not Membership.objects.filter(project=project, user=newcomer).exists()
    actions = list(
        AuditEvent.objects.filter(project_id_ref=project.pk)
        .order_by("id")
        .values_list("action", flat=True)
    )
    assert actions[-3:] == ["member_added", "member_changed", "member_removed"]
    unknown = csrf_post(owner, url, {"op": "add", "who": "nobody", "role": "viewer"})
    assert "no such user" in unknown.content.decode()
    # a member of another project cannot be changed through this one
    theirs = Membership.objects.get(project=world["other"])
    other = csrf_post(owner, url, {"op": "remove", "member": theirs.pk})
    assert other.status_code == 404 and Membership.objects.filter(pk=theirs.pk).exists()


def test_the_last_owner_can_be_neither_removed_nor_demoted(world: dict[str, Any]) -> None:
    project, owner = world["project"], client_for(world["owner"])
    mine = Membership.objects.get(project=project, user=world["owner"])
    url = f"/projects/{project.pk}/members/"
    page = owner.get(url).content.decode()
    assert page.count(">Remove<") == 2 and "the only owner" in page  # not offered for it
    assert f'name="member" value="{mine.pk}"' not in page
    removed = csrf_post(owner, url, {"op": "remove", "member": mine.pk})
    assert "at least one owner" in removed.content.decode()
    csrf_post(owner, url, {"op": "role", "member": mine.pk, "role": "viewer"})
    mine.refresh_from_db()
    assert mine.role == Role.OWNER
    # with a second owner, the first may step down
    editor = Membership.objects.get(project=project, user=world["editor"])
    csrf_post(owner, url, {"op": "role", "member": editor.pk, "role": "owner"})
    page = owner.get(url).content.decode()
    assert page.count(">Remove<") == 3 and "the only owner" not in page
    csrf_post(owner, url, {"op": "role", "member": mine.pk, "role": "viewer"})
    mine.refresh_from_db()
    assert mine.role == Role.VIEWER


def test_owners_share_a_project_read_only(world: dict[str, Any]) -> None:
    project = world["project"]
    url = f"/projects/{project.pk}/members/"
    assert _status(world["stranger"], "get", f"/projects/{project.pk}/") == 404
    csrf_post(client_for(world["owner"]), url, {"op": "public", "public": "on"})
    assert _status(world["stranger"], "get", f"/projects/{project.pk}/") == 200
    csrf_post(client_for(world["owner"]), url, {"op": "public"})
    assert _status(world["stranger"], "get", f"/projects/{project.pk}/") == 404
    assert AuditEvent.objects.filter(action="project_shared", project_id_ref=project.pk).exists()


def test_a_saved_secret_never_reaches_a_page(world: dict[str, Any]) -> None:
    project, owner = world["project"], client_for(world["owner"])
    url = f"/projects/{project.pk}/secrets/"
    saved = csrf_post(owner, url, {"op": "set", "name": "OPENAI_API_KEY", "value": KEY})
    assert saved.status_code == 302
    page = owner.get(url).content.decode()
    assert "…WXYZ" in page and "OPENAI_API_KEY" in page
    # a form that fails does not echo the value it was given either
    bad = csrf_post(owner, url, {"op": "set", "name": "lower case", "value": KEY})
    assert bad.status_code == 200 and "environment variable name" in bad.content.decode()
    for response in (saved, owner.get(url), bad, owner.get(f"/projects/{project.pk}/")):
        assert KEY not in response.content.decode()
        assert KEY[:-4] not in response.content.decode()
    assert not AuditEvent.objects.filter(detail__icontains=KEY[:-4]).exists()
    # replacing it keeps one row; deleting it removes it
    csrf_post(owner, url, {"op": "set", "name": "OPENAI_API_KEY", "value": KEY + "2"})
    secret = Secret.objects.get(project=project)
    assert secret.hint == "…XYZ2"
    csrf_post(owner, url, {"op": "delete", "secret": secret.pk})
    assert not Secret.objects.filter(project=project).exists()
    assert AuditEvent.objects.filter(action="secret_deleted", project_id_ref=project.pk).exists()


def test_only_owners_delete_secrets_and_only_their_projects(world: dict[str, Any]) -> None:
    mine = set_secret(world["project"], "API_KEY", KEY)
    theirs = set_secret(world["other"], "API_KEY", KEY)
    url = f"/projects/{world['project'].pk}/secrets/"
    for user in ("editor", "viewer"):
        assert _status(world[user], "post", url, {"op": "delete", "secret": mine.pk}) == 403
    stranger_url = f"/projects/{world['other'].pk}/secrets/"
    assert _status(world["owner"], "post", stranger_url, {"op": "delete", "secret": theirs.pk})
    assert _status(world["owner"], "post", url, {"op": "delete", "secret": theirs.pk}) == 404
    assert Secret.objects.filter(pk__in=[mine.pk, theirs.pk]).count() == 2


def test_a_token_is_shown_once_then_never_again(world: dict[str, Any]) -> None:
    owner = client_for(world["owner"])
    created = csrf_post(
        owner, "/account/tokens/", {"op": "create", "name": "CI on main", "scope": "run", "days": 7}
    )
    page = created.content.decode()
    row = DeviceToken.objects.get(user=world["owner"])
    token = page.split('id="new-token"')[1].split("<code>")[1].split("</code>")[0]
    assert token.startswith(row.token_key) and len(token) > 40
    assert "no-store" in created["Cache-Control"]
    listed = owner.get("/account/tokens/").content.decode()
    assert "CI on main" in listed and "run" in listed
    assert token not in listed and row.token_key not in listed
    assert "never" in listed.split('id="tokens"')[1]  # not used yet
    # the token works on the API, with its scope; the page then says when it was used
    assert (
        client_for(None).get("/api/runs/", HTTP_AUTHORIZATION=f"Token {token}").status_code == 200
    )
    row.refresh_from_db()
    assert row.last_used is not None
    listed = owner.get("/account/tokens/").content.decode().split('id="tokens"')[1]
    assert "never" not in listed and timezone.localtime(row.last_used).strftime("%H:%M") in listed
    # at most one write a minute: a second request leaves it as it was
    first = row.last_used
    client_for(None).get("/api/runs/", HTTP_AUTHORIZATION=f"Token {token}")
    row.refresh_from_db()
    assert row.last_used == first


def test_tokens_are_their_users_own_and_revocable(world: dict[str, Any]) -> None:
    mine, _ = create_token(None, world["owner"], "laptop", "read", 30)
    create_token(None, world["owner"], "ci", "run", 30)
    theirs, _ = create_token(None, world["stranger"], "theirs", "read", 30)
    stranger_page = client_for(world["stranger"]).get("/account/tokens/").content.decode()
    assert "theirs" in stranger_page and "laptop" not in stranger_page
    csrf_post(
        client_for(world["stranger"]), "/account/tokens/", {"op": "revoke", "token": mine.digest}
    )
    assert DeviceToken.objects.filter(pk=mine.pk).exists()
    owner = client_for(world["owner"])
    csrf_post(owner, "/account/tokens/", {"op": "revoke", "token": mine.digest})
    assert not DeviceToken.objects.filter(pk=mine.pk).exists()
    csrf_post(owner, "/account/tokens/", {"op": "revoke-all"})
    assert not DeviceToken.objects.filter(user=world["owner"]).exists()
    assert DeviceToken.objects.filter(pk=theirs.pk).exists()
    assert AuditEvent.objects.filter(action="tokens_revoked_all").exists()
    assert _status(None, "get", "/account/tokens/") == 401
    assert _status(None, "post", "/account/tokens/", {"op": "revoke-all"}) == 401
    assert DeviceToken.objects.filter(pk=theirs.pk).exists()


def test_a_token_lifetime_out_of_range_is_refused(world: dict[str, Any]) -> None:
    owner = client_for(world["owner"])
    data = {"op": "create", "name": "ci", "scope": "read", "days": 9999}
    response = csrf_post(owner, "/account/tokens/", data)
    assert response.status_code == 200 and 'id="new-token"' not in response.content.decode()
    assert not DeviceToken.objects.filter(user=world["owner"]).exists()


def test_forms_without_a_csrf_token_are_refused(world: dict[str, Any]) -> None:
    owner = client_for(world["owner"])
    url = f"/projects/{world['project'].pk}/secrets/"
    assert owner.post(url, {"op": "set", "name": "API_KEY", "value": KEY}).status_code == 403
    assert owner.post("/account/tokens/", {"op": "revoke-all"}).status_code == 403
    assert not Secret.objects.exists()


def test_the_sign_up_link_follows_the_setting(db: None, settings: Any) -> None:
    settings.SIGNUP_OPEN = False
    assert 'href="/signup/"' not in client_for(None).get("/login/").content.decode()
    settings.SIGNUP_OPEN = True
    assert 'href="/signup/"' in client_for(None).get("/login/").content.decode()
