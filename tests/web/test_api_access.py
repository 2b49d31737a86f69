"""The access matrix through the HTTP API: owner / editor / viewer / stranger / anonymous ×
project, file, run, conversation, annotation, secret, member × every verb (bulk delete
included), with CSRF enforced; list endpoints never show others' objects."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from web_helpers import PROFILE, api, client_for

from sparring.conversations import ConversationRecord, RunManifest, RunStore, Turn
from sparring.web._files import save_file
from sparring.web._secrets import set_secret
from sparring.web.models import Annotation, Membership, Project, ProjectFile, Run, Secret

READERS = {"owner", "editor", "viewer"}
WRITERS = {"owner", "editor"}
OWNERS = {"owner"}
PEOPLE = ["owner", "editor", "viewer", "stranger", "anonymous"]
CHATBOT = "connector: scripted\nparams:\n  rules: [{match: hello, reply: Hi there}]\n"


def _run_dir(run: Run) -> None:
    """A small run directory: its manifest and one conversation record."""
    folder = Path(settings.RUNS_DIR) / str(run.pk)
    manifest = RunManifest(
        run_id=str(run.pk), created_at=datetime.now(UTC), sparring_version="test"
    )
    store = RunStore.create(folder, manifest)
    store.write(
        ConversationRecord(
            id="c1",
            profile="order",
            turns=[Turn(role="user", text="hi"), Turn(role="assistant", text="<b>Hello</b>")],
        )
    )
    run.path = str(folder)
    run.save()


def _objects(world: dict[str, Any]) -> dict[str, Any]:
    project: Project = world["project"]
    owner = world["owner"]
    file = save_file(project, "chatbot", "chatbot.yaml", CHATBOT, owner)
    save_file(project, "profile", "profiles/order.yaml", PROFILE, owner)
    run = Run.objects.create(project=project, job="simulate", path="", tags=["nightly"])
    _run_dir(run)
    annotation = Annotation.objects.create(run=run, conversation="c1", turn=1, label="wrong")
    secret = set_secret(project, "OPENAI_API_KEY", "sk-test-0123456789abcdef", owner)
    member = Membership.objects.get(project=project, user=world["viewer"])
    return {
        "project": project,
        "file": file,
        "run": run,
        "annotation": annotation,
        "secret": secret,
        "member": member,
    }


Case = tuple[str, str, Callable[[dict[str, Any]], str], Callable[[dict[str, Any]], Any], set[str]]

CASES: list[Case] = [
    ("project read", "get", lambda o: f"/api/projects/{o['project'].pk}/", lambda o: None, READERS),
    (
        "project update",
        "patch",
        lambda o: f"/api/projects/{o['project'].pk}/",
        lambda o: {"description": "changed"},
        OWNERS,
    ),
    (
        "project delete",
        "delete",
        lambda o: f"/api/projects/{o['project'].pk}/",
        lambda o: None,
        OWNERS,
    ),
    ("file read", "get", lambda o: f"/api/files/{o['file'].pk}/", lambda o: None, READERS),
    (
        "file versions",
        "get",
        lambda o: f"/api/files/{o['file'].pk}/versions/",
        lambda o: None,
        READERS,
    ),
    (
        "file save",
        "put",
        lambda o: f"/api/files/{o['file'].pk}/",
        lambda o: {"content": CHATBOT},
        WRITERS,
    ),
    (
        "file create",
        "post",
        lambda o: "/api/files/",
        lambda o: {
            "project": o["project"].pk,
            "kind": "chatbot",
            "name": "b.yaml",
            "content": CHATBOT,
        },
        WRITERS,
    ),
    ("file delete", "delete", lambda o: f"/api/files/{o['file'].pk}/", lambda o: None, WRITERS),
    ("run read", "get", lambda o: f"/api/runs/{o['run'].pk}/", lambda o: None, READERS),
    (
        "run verdicts",
        "get",
        lambda o: f"/api/runs/{o['run'].pk}/verdicts/",
        lambda o: None,
        READERS,
    ),
    (
        "run start",
        "post",
        lambda o: "/api/runs/",
        lambda o: {
            "project": o["project"].pk,
            "job": "simulate",
            "settings": {"chatbot": "chatbot.yaml", "profiles": ["profiles"]},
        },
        WRITERS,
    ),
    ("run stop", "post", lambda o: f"/api/runs/{o['run'].pk}/stop/", lambda o: None, WRITERS),
    ("run delete", "delete", lambda o: f"/api/runs/{o['run'].pk}/", lambda o: None, WRITERS),
    (
        "conversation list",
        "get",
        lambda o: f"/api/runs/{o['run'].pk}/conversations/",
        lambda o: None,
        READERS,
    ),
    (
        "conversation read",
        "get",
        lambda o: f"/api/runs/{o['run'].pk}/conversations/c1/",
        lambda o: None,
        READERS,
    ),
    (
        "annotation read",
        "get",
        lambda o: f"/api/annotations/{o['annotation'].pk}/",
        lambda o: None,
        READERS,
    ),
    (
        "annotation create",
        "post",
        lambda o: "/api/annotations/",
        lambda o: {"run": o["run"].pk, "conversation": "c1", "turn": 2, "label": "correct"},
        WRITERS,
    ),
    (
        "annotation update",
        "patch",
        lambda o: f"/api/annotations/{o['annotation'].pk}/",
        lambda o: {"comment": "seen"},
        WRITERS,
    ),
    (
        "annotation delete",
        "delete",
        lambda o: f"/api/annotations/{o['annotation'].pk}/",
        lambda o: None,
        WRITERS,
    ),
    (
        "annotation export",
        "get",
        lambda o: "/api/annotations/export/",
        lambda o: {"run": o["run"].pk, "as": "csv"},
        READERS | {"stranger"},
    ),
    (
        "secret create",
        "post",
        lambda o: "/api/secrets/",
        lambda o: {"project": o["project"].pk, "name": "OTHER_KEY", "value": "v" * 20},
        OWNERS,
    ),
    (
        "secret delete",
        "delete",
        lambda o: f"/api/secrets/{o['secret'].pk}/",
        lambda o: None,
        OWNERS,
    ),
    ("member read", "get", lambda o: f"/api/members/{o['member'].pk}/", lambda o: None, READERS),
    (
        "member add",
        "post",
        lambda o: "/api/members/",
        lambda o: {"project": o["project"].pk, "username": "str", "role": "viewer"},
        OWNERS,
    ),
    (
        "member change",
        "patch",
        lambda o: f"/api/members/{o['member'].pk}/",
        lambda o: {"role": "editor"},
        OWNERS,
    ),
    (
        "member remove",
        "delete",
        lambda o: f"/api/members/{o['member'].pk}/",
        lambda o: None,
        OWNERS,
    ),
]
"""(case, verb, url, body, who may). The annotation export is a list: a stranger gets an
empty one (``test_lists_never_show_others_objects`` checks it holds nothing of theirs)."""


@pytest.mark.parametrize("who", PEOPLE)
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_access_matrix(world: dict[str, Any], who: str, case: Case) -> None:
    name, verb, url, data, may = case
    objects = _objects(world)
    client = client_for(None if who == "anonymous" else world[who])
    response = api(client, verb, url(objects), data(objects))
    if who in may:
        assert 200 <= response.status_code < 300, (
            name,
            who,
            response.status_code,
            getattr(response, "data", None),
        )
    else:
        assert response.status_code in (401, 403, 404), (name, who, response.status_code)
        _unchanged(objects)


def _unchanged(objects: dict[str, Any]) -> None:
    """A refused request changed nothing."""
    for obj in objects.values():
        fresh = type(obj).objects.filter(pk=obj.pk).first()
        assert fresh is not None, obj
    assert Project.objects.get(pk=objects["project"].pk).description == ""
    assert objects["file"].versions.count() == 1
    assert Membership.objects.get(pk=objects["member"].pk).role == "viewer"
    assert not Secret.objects.filter(name="OTHER_KEY").exists()
    assert not ProjectFile.objects.filter(name="b.yaml").exists()
    assert Annotation.objects.count() == 1
    assert Run.objects.count() == 1


@pytest.mark.parametrize("who", PEOPLE)
def test_bulk_delete_touches_only_what_the_person_may_delete(
    world: dict[str, Any], who: str
) -> None:
    mine = _objects(world)["run"]
    theirs = Run.objects.create(project=world["other"], job="simulate", path="/nowhere")
    client = client_for(None if who == "anonymous" else world[who])
    response = api(client, "post", "/api/runs/bulk-delete/", {"ids": [mine.pk, theirs.pk]})
    assert Run.objects.filter(pk=theirs.pk).exists() is (who != "stranger")
    assert Run.objects.filter(pk=mine.pk).exists() is (who not in WRITERS)
    if who == "anonymous":
        assert response.status_code in (401, 403)
    else:
        assert response.data == {"deleted": 1 if who in WRITERS | {"stranger"} else 0}


LISTS = [
    "/api/projects/",
    "/api/files/",
    "/api/runs/",
    "/api/annotations/",
    "/api/secrets/",
    "/api/members/",
    "/api/annotations/export/",
]


@pytest.mark.parametrize("who", ["owner", "editor", "viewer", "stranger"])
def test_lists_never_show_others_objects(world: dict[str, Any], who: str) -> None:
    private = _objects(world)
    public = world["public"]
    Run.objects.create(project=public, job="check", path="/nowhere")
    client = client_for(world[who])
    for url in LISTS:
        response = api(client, "get", url)
        assert response.status_code == 200, url
        rows = response.data["results"] if isinstance(response.data, dict) else response.data
        text = json.dumps(rows, default=str)
        projects = (
            {row.get("project", row.get("id")) for row in rows}
            if url != LISTS[0]
            else {row["id"] for row in rows}
        )
        if who == "stranger":
            assert private["project"].pk not in projects, (url, text)
        else:
            assert world["other"].pk not in projects, (url, text)
    secrets = api(client, "get", "/api/secrets/").data["results"]
    assert bool(secrets) is (who == "owner")
    assert all("value" not in s and "ciphertext" not in s for s in secrets)
