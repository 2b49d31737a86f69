"""A project's quotas in the pages (issue 32): every reader sees the limits in force and
the server's maximums; the owner changes them within those maximums; an editor or a
viewer cannot raise them (403, nothing changed), a stranger does not see the page (404),
and the API holds the same bounds."""

from __future__ import annotations

from typing import Any

import pytest
from web_helpers import api, client_for, csrf_post

from sparring.web.models import AuditEvent, Project

FORM = {
    "max_conversations": "20",
    "max_concurrency": "2",
    "max_run_seconds": "600",
    "max_stored_mb": "100",
}


@pytest.fixture(autouse=True)
def _server_maximums(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPARRING_WEB_MAX_CONVERSATIONS", "50")
    monkeypatch.setenv("SPARRING_WEB_MAX_CONCURRENCY", "4")


def test_every_reader_sees_the_limits_in_force(world: dict[str, Any]) -> None:
    project = world["project"]
    project.max_conversations = 30
    project.save()
    url = f"/projects/{project.pk}/quotas/"
    for who in ("owner", "editor", "viewer"):
        page = client_for(world[who]).get(url)
        assert page.status_code == 200, who
        text = page.content.decode()
        assert "Conversations a run may plan</td><td>30</td><td>30</td><td>50</td>" in text
        assert ('id="set-quotas"' in text) is (who == "owner"), who
    assert client_for(world["stranger"]).get(url).status_code == 404
    assert client_for(None).get(url).status_code == 302  # to the sign-in page


def test_the_owner_sets_the_quotas_within_the_servers_maximums(world: dict[str, Any]) -> None:
    project, owner = world["project"], client_for(world["owner"])
    url = f"/projects/{project.pk}/quotas/"
    saved = csrf_post(owner, url, FORM)
    assert saved.status_code == 302
    project.refresh_from_db()
    assert (project.max_conversations, project.max_concurrency) == (20, 2)
    assert (project.max_run_seconds, project.max_stored_mb) == (600, 100)
    event = AuditEvent.objects.filter(action="quotas_set").get()
    assert event.detail["max_conversations"] == 20
    for field, value in [
        ("max_conversations", "51"),
        ("max_concurrency", "100000"),
        ("max_run_seconds", "0"),
    ]:
        page = csrf_post(owner, url, {**FORM, field: value})
        assert page.status_code == 200, field
        assert "errorlist" in page.content.decode(), field
    project.refresh_from_db()
    assert (project.max_conversations, project.max_concurrency, project.max_run_seconds) == (
        20,
        2,
        600,
    )
    csrf_post(owner, url, {**FORM, "max_conversations": ""})  # empty: the server's
    project.refresh_from_db()
    assert project.max_conversations is None


@pytest.mark.parametrize("who", ["editor", "viewer"])
def test_an_editor_or_viewer_cannot_raise_the_quotas(world: dict[str, Any], who: str) -> None:
    project = world["project"]
    project.max_conversations = 5
    project.save()
    client = client_for(world[who])
    page = csrf_post(client, f"/projects/{project.pk}/quotas/", {**FORM, "max_conversations": "50"})
    assert page.status_code == 403
    patched = api(client, "patch", f"/api/projects/{project.pk}/", {"max_conversations": 50})
    assert patched.status_code == 403
    assert Project.objects.get(pk=project.pk).max_conversations == 5
    stranger = client_for(world["stranger"])
    assert csrf_post(stranger, f"/projects/{project.pk}/quotas/", FORM).status_code == 404


def test_the_api_holds_the_same_bounds(world: dict[str, Any]) -> None:
    project, owner = world["project"], client_for(world["owner"])
    url = f"/api/projects/{project.pk}/"
    for value in (51, 0, -1, "many", True):
        refused = api(owner, "patch", url, {"max_conversations": value})
        assert refused.status_code == 400, value
    assert api(owner, "patch", url, {"max_conversations": 50}).status_code == 200
    assert Project.objects.get(pk=project.pk).max_conversations == 50
