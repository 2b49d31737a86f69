"""API tokens: one per device, shown once, stored hashed, scoped (read / run), expiring,
revocable one by one (logout) or all at once (logout-all); nobody touches another's."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db import connection
from django.test import Client
from django.utils import timezone
from web_helpers import PROFILE, api, client_for

from sparring.web._files import save_file
from sparring.web.models import AuditEvent, DeviceToken


def _token(user: Any, scope: str = "read", name: str = "laptop", days: int = 30) -> str:
    response = api(
        client_for(user), "post", "/api/tokens/", {"name": name, "scope": scope, "days": days}
    )
    assert response.status_code == 201, response.data
    token: str = response.data["token"]
    return token


def test_a_token_is_shown_once_and_stored_hashed(world: dict[str, Any]) -> None:
    token = _token(world["owner"])
    row = DeviceToken.objects.get(user=world["owner"])
    assert token not in row.digest and len(row.digest) == 128  # SHA-512 of the token
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM sparring_web_devicetoken")
        assert token not in repr(cursor.fetchall())
    listed = api(client_for(world["owner"]), "get", "/api/tokens/").data["results"]
    assert [t["name"] for t in listed] == ["laptop"]
    assert "token" not in listed[0]
    assert AuditEvent.objects.filter(action="token_created").exists()


def test_a_token_reads_what_its_user_may_read(world: dict[str, Any]) -> None:
    token = _token(world["viewer"])
    response = api(Client(), "get", "/api/projects/", token=token)
    assert response.status_code == 200
    assert {p["id"] for p in response.data["results"]} == {world["project"].pk, world["public"].pk}
    assert api(Client(), "get", "/api/projects/", token=token + "x").status_code == 401
    assert api(Client(), "get", "/api/projects/", token="spr_" + "0" * 64).status_code == 401


def test_scopes_read_and_run(world: dict[str, Any]) -> None:
    read, run = _token(world["editor"], "read", "ci-read"), _token(world["editor"], "run", "ci")
    chatbot = "connector: scripted\nparams:\n  rules: [{match: hi, reply: Hello}]\n"
    save_file(world["project"], "chatbot", "chatbot.yaml", chatbot, world["owner"])
    save_file(world["project"], "profile", "profiles/order.yaml", PROFILE, world["owner"])
    start = {
        "project": world["project"].pk,
        "job": "simulate",
        "settings": {"chatbot": "chatbot.yaml", "profiles": ["profiles"]},
    }
    assert api(Client(), "post", "/api/runs/", start, token=read).status_code == 403
    assert api(Client(), "post", "/api/runs/", start, token=run).status_code == 201
    # a token never edits files, manages secrets, members or tokens
    for url, body in [
        (
            "/api/files/",
            {"project": world["project"].pk, "kind": "rules", "name": "r.yaml", "content": "x"},
        ),
        ("/api/tokens/", {"name": "more", "scope": "run"}),
        ("/api/projects/", {"name": "by token"}),
    ]:
        assert api(Client(), "post", url, body, token=run).status_code == 403, url
    assert api(Client(), "get", "/api/secrets/", token=run).status_code == 403
    assert api(Client(), "get", "/api/tokens/", token=run).status_code == 403


def test_an_expired_token_is_refused(world: dict[str, Any]) -> None:
    token = _token(world["owner"], days=1)
    DeviceToken.objects.filter(user=world["owner"]).update(
        expiry=timezone.now() - timedelta(seconds=1)
    )
    assert api(Client(), "get", "/api/projects/", token=token).status_code == 401
    assert not DeviceToken.objects.filter(user=world["owner"]).exists()  # cleaned up


def test_lifetimes_are_bounded(world: dict[str, Any]) -> None:
    for days in (0, 366, "forever"):
        response = api(
            client_for(world["owner"]), "post", "/api/tokens/", {"name": "x", "days": days}
        )
        assert response.status_code == 400, days


def test_logout_revokes_one_token_and_logout_all_every_token(world: dict[str, Any]) -> None:
    first, second, third = (_token(world["owner"], name=n) for n in ("a", "b", "c"))
    assert api(Client(), "post", "/api/auth/logout/", token=first).status_code == 204
    assert api(Client(), "get", "/api/projects/", token=first).status_code == 401
    assert api(Client(), "get", "/api/projects/", token=second).status_code == 200
    assert api(Client(), "post", "/api/auth/logoutall/", token=second).status_code == 204
    for token in (second, third):
        assert api(Client(), "get", "/api/projects/", token=token).status_code == 401
    actions = set(AuditEvent.objects.values_list("action", flat=True))
    assert {"token_revoked", "tokens_revoked_all"} <= actions


def test_a_token_is_revoked_by_its_owner_only(world: dict[str, Any]) -> None:
    token = _token(world["owner"])
    digest = DeviceToken.objects.get(user=world["owner"]).digest
    for who in ("editor", "stranger"):
        response = api(client_for(world[who]), "delete", f"/api/tokens/{digest}/")
        assert response.status_code == 404, who
        assert api(client_for(world[who]), "get", "/api/tokens/").data["results"] == []
    assert api(client_for(None), "delete", f"/api/tokens/{digest}/").status_code in (401, 403)
    assert api(Client(), "get", "/api/projects/", token=token).status_code == 200
    response = api(client_for(world["owner"]), "delete", f"/api/tokens/{digest}/")
    assert response.status_code == 204
    assert api(Client(), "get", "/api/projects/", token=token).status_code == 401
