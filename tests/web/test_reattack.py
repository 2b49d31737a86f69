"""The dashboard attacked again (issue 32), for classes of attack its first tests did not
try: path traversal in file names, YAML alias bombs and deep nesting in saved files,
oversized files and bodies, CSRF and IDOR on the newer endpoints (quotas, secrets'
hosts), and secrets in error pages. Each test tries the attack and asserts it failed
with a clear answer — never a server error, never a file outside the project."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from web_helpers import PROFILE, api, client_for, csrf_post

from sparring.web.models import Project, ProjectFile, Secret

TRAVERSALS = [
    "../chatbot.yaml",
    "../../../../etc/passwd",
    "/etc/passwd",
    "profiles/../../x.yaml",
    "profiles/./x.yaml",
    "profiles//x.yaml",
    "..\\..\\x.yaml",
    "%2e%2e/x.yaml",
    "\uff0e\uff0e/x.yaml",  # fullwidth dots
    "x.yaml\x00.txt",
    "profiles/x.yaml/",
    ".",
    "~/x.yaml",
    "C:\\x.yaml",
    "a" * 201,
]


def _post_file(client: Client, project: Project, name: str, content: str, kind: str) -> Any:
    data = {"project": project.pk, "kind": kind, "name": name, "content": content}
    return api(client, "post", "/api/files/", data)


@pytest.mark.parametrize("name", TRAVERSALS)
def test_a_file_name_never_leaves_the_project(world: dict[str, Any], name: str) -> None:
    editor = client_for(world["editor"])
    response = _post_file(editor, world["project"], name, "test_name: x\n", "profile")
    assert response.status_code == 400, name
    assert not ProjectFile.objects.exists()


ALIAS_BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(8)
)
"""Nine lines that expand to 10⁹ strings ("billion laughs")."""
DEEP = "a: " + "[" * 5000 + "]" * 5000 + "\n"


@pytest.mark.parametrize("kind", ["chatbot", "profile", "rules", "persona", "probes"])
@pytest.mark.parametrize("content", [ALIAS_BOMB, DEEP], ids=["alias-bomb", "deep"])
def test_a_yaml_bomb_is_refused_on_save(world: dict[str, Any], kind: str, content: str) -> None:
    response = _post_file(client_for(world["editor"]), world["project"], "f.yaml", content, kind)
    assert response.status_code == 400, kind
    problems = response.data["problems"]
    assert problems and all(p["file"] == "f.yaml" for p in problems), problems
    assert not ProjectFile.objects.exists()


def test_oversized_files_and_bodies_are_refused(world: dict[str, Any]) -> None:
    editor, project = client_for(world["editor"]), world["project"]
    big = "test_name: x\n# " + "x" * (1024 * 1024) + "\n"
    response = _post_file(editor, project, "profiles/big.yaml", big, "profile")
    assert response.status_code == 400 and "larger than" in json.dumps(response.data)
    huge = "# " + "x" * (5 * 1024 * 1024)  # past the request body limit
    response = _post_file(editor, project, "profiles/huge.yaml", huge, "profile")
    assert response.status_code in (400, 413)
    assert not ProjectFile.objects.exists()


def test_the_newer_endpoints_refuse_a_request_without_csrf(world: dict[str, Any]) -> None:
    """A browser signed in as the owner, made to post by another site (no CSRF token)."""
    project, owner = world["project"], client_for(world["owner"])
    form = {"max_conversations": "1000"}
    assert owner.post(f"/projects/{project.pk}/quotas/", form).status_code == 403
    patched = owner.patch(
        f"/api/projects/{project.pk}/",
        json.dumps({"max_conversations": 1}),
        content_type="application/json",
    )
    assert patched.status_code == 403
    secret = {"project": project.pk, "name": "K", "value": "v" * 16, "hosts": "evil.example"}
    posted = owner.post("/api/secrets/", json.dumps(secret), content_type="application/json")
    assert posted.status_code == 403
    assert Project.objects.get(pk=project.pk).max_conversations is None
    assert not Secret.objects.exists()


def test_the_newer_endpoints_refuse_another_projects_objects(world: dict[str, Any]) -> None:
    """IDOR: an owner of one project names another project's id."""
    stranger, other, project = client_for(world["stranger"]), world["other"], world["project"]
    assert stranger.get(f"/projects/{project.pk}/quotas/").status_code == 404
    quotas = {"max_conversations": "1"}
    assert csrf_post(stranger, f"/projects/{project.pk}/quotas/", quotas).status_code == 404
    secret = {"project": project.pk, "name": "K", "value": "v" * 16, "hosts": "evil.example"}
    assert api(stranger, "post", "/api/secrets/", secret).status_code == 404
    patched = api(stranger, "patch", f"/api/projects/{project.pk}/", {"max_conversations": 1})
    assert patched.status_code == 404
    assert (
        api(stranger, "post", "/api/secrets/", {**secret, "project": other.pk}).status_code == 201
    )
    assert Secret.objects.get().project_id == other.pk
    assert Project.objects.get(pk=project.pk).max_conversations is None


def test_an_error_page_shows_no_setting_or_secret(world: dict[str, Any]) -> None:
    """A request that makes the server fail answers a bare error, never Django's debug
    page with its settings (SECRET_KEY, Fernet keys)."""
    from django.conf import settings

    assert not settings.DEBUG
    client = client_for(world["owner"])
    for url in ("/projects/999999/quotas/", "/runs/999999/", "/api/runs/999999/"):
        answer = client.get(url)
        assert answer.status_code == 404
        text = answer.content.decode()
        assert settings.SECRET_KEY not in text and "Traceback" not in text
        assert all(key not in text for key in settings.FERNET_KEYS)


@pytest.mark.django_db(transaction=True)
def test_a_secret_read_back_through_a_local_chatbot_is_never_shown(
    world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An editor's chatbot.yaml with no URL (the scripted connector) that says a bound
    secret as its greeting and in its fallback, encoded variants around it: the run's
    records, pages and API never hold the value."""
    from pathlib import Path

    from django.conf import settings

    from sparring.web import _worker
    from sparring.web._files import save_file
    from sparring.web._secrets import set_secret
    from sparring.web.models import Run

    key = "bound-secret-read-back-0123456789"
    worker = _worker.Worker(_worker.in_process_executor())
    monkeypatch.setattr(_worker, "_worker", worker)
    project, owner, editor = world["project"], world["owner"], world["editor"]
    set_secret(project, "BOT_KEY", key, owner, hosts=["bot.example"])
    chatbot = (
        "connector: scripted\nparams:\n  greeting: 'key=${BOT_KEY}'\n"
        "  fallback: 'again: ${BOT_KEY}!'\n"
    )
    save_file(project, "chatbot", "chatbot.yaml", chatbot, editor)
    save_file(project, "profile", "profiles/order.yaml", PROFILE, editor)
    settings_ = {"chatbot": "chatbot.yaml", "profiles": ["profiles"], "concurrency": 1}
    client = client_for(editor)
    response = api(
        client,
        "post",
        "/api/runs/",
        {"project": project.pk, "job": "simulate", "settings": settings_},
    )
    if response.status_code == 400:  # refused at launch: as good
        assert "BOT_KEY" in json.dumps(response.data) and key not in json.dumps(response.data)
        return
    worker.run_one(response.data["id"])
    run = Run.objects.get(pk=response.data["id"])
    assert run.status == "finished", run.error
    said = b""
    for path in Path(settings.RUNS_DIR).rglob("*"):
        if path.is_file():
            assert key.encode() not in path.read_bytes(), path
            said += path.read_bytes()
    assert b"again: ***!" in said  # the bot said it, redacted
    shown = [
        client.get(f"/runs/{run.pk}/").content,
        client.get(f"/api/runs/{run.pk}/conversations/").content,
    ]
    assert all(key.encode() not in page for page in shown)


def test_saving_a_large_file_again_and_again_stops_at_the_quota(world: dict[str, Any]) -> None:
    """Every save keeps a version: without a bound, one editor fills the database."""
    project, editor = world["project"], client_for(world["editor"])
    project.max_stored_mb = 1
    project.save()
    content = PROFILE + "# " + "x" * (400 * 1024) + "\n"
    for n in range(2):
        saved = _post_file(editor, project, "profiles/big.yaml", content + "#" * n, "profile")
        assert saved.status_code in (200, 201), saved.data
    refused = _post_file(editor, project, "profiles/big.yaml", content + "##", "profile")
    assert refused.status_code == 400
    assert "delete files first" in json.dumps(refused.data)
    assert ProjectFile.objects.get().versions.count() == 2
