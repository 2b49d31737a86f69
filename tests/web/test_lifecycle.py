"""Deleting and archiving runs, files and projects from the browser (issue 37): a page asks
first, roles are checked (viewers 403, strangers 404), every change is audited, a deleted
run's folder leaves the disk; and the audit log's page and API, filtered, for owners."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from web_helpers import api, checked_run, client_for, csrf_post

from sparring.web._files import save_file
from sparring.web._worker import run_folder
from sparring.web.models import AuditEvent, Project, ProjectFile, Run, RunStatus

pytestmark = pytest.mark.django_db


def _dashboard_run(project: Project) -> Run:
    """A finished run written where the dashboard writes its runs (with its inputs)."""
    run = Run.objects.create(project=project, job="simulate", status=RunStatus.FINISHED)
    folder = run_folder(project, run.pk)
    folder.parent.mkdir(parents=True, exist_ok=True)
    checked_run(folder, 3)
    inputs = folder.with_name(folder.name + ".inputs")
    inputs.mkdir()
    (inputs / "chatbot.yaml").write_text("connector: rest\n")
    run.path = str(folder)
    run.save(update_fields=["path"])
    return run


def _actions() -> list[str]:
    return list(AuditEvent.objects.order_by("id").values_list("action", flat=True))


def test_a_run_is_deleted_after_a_confirmation_with_its_folder(world: dict[str, Any]) -> None:
    run = _dashboard_run(world["project"])
    folder = Path(run.path)
    url = f"/runs/{run.pk}/delete/"
    viewer, stranger = client_for(world["viewer"]), client_for(world["stranger"])
    assert viewer.get(url).status_code == 403 and csrf_post(viewer, url).status_code == 403
    assert stranger.get(url).status_code == 404 and csrf_post(stranger, url).status_code == 404
    assert 'id="delete"' not in viewer.get(f"/runs/{run.pk}/").content.decode()
    editor = client_for(world["editor"])
    assert f'href="{url}"' in editor.get(f"/runs/{run.pk}/").content.decode()
    asked = editor.get(url)  # the link asks first: nothing is deleted by a GET
    page = asked.content.decode()
    assert asked.status_code == 200 and "cannot be undone" in page and 'id="confirm-form"' in page
    assert Run.objects.filter(pk=run.pk).exists() and folder.is_dir()
    done = csrf_post(editor, url)
    assert done.status_code == 302 and done["Location"] == f"/runs/?project={run.project_id}"
    assert not Run.objects.filter(pk=run.pk).exists()
    assert not folder.exists() and not folder.with_name(folder.name + ".inputs").exists()
    event = AuditEvent.objects.get(action="run_deleted")
    assert event.actor_name == "edi" and event.detail["run"] == run.pk


def test_an_imported_run_deleted_keeps_its_files(world: dict[str, Any], tmp_path: Path) -> None:
    from sparring.web._imports import import_run

    run = import_run(checked_run(tmp_path / "cli-run", 2), world["project"])
    assert csrf_post(client_for(world["owner"]), f"/runs/{run.pk}/delete/").status_code == 302
    assert not Run.objects.filter(pk=run.pk).exists() and (tmp_path / "cli-run").is_dir()


def test_an_archived_run_leaves_the_list_until_restored(world: dict[str, Any]) -> None:
    run = _dashboard_run(world["project"])
    url = f"/runs/{run.pk}/archive/"
    assert csrf_post(client_for(world["viewer"]), url).status_code == 403
    assert csrf_post(client_for(world["stranger"]), url).status_code == 404
    editor = client_for(world["editor"])
    link = f'href="/runs/{run.pk}/"'
    assert link in editor.get("/runs/").content.decode()
    assert csrf_post(editor, url, {"archived": "1"}).status_code == 302
    assert link not in editor.get("/runs/").content.decode()
    assert link in editor.get("/runs/?archived=1").content.decode()
    assert link in editor.get("/runs/?archived=all").content.decode()
    listed = api(editor, "get", "/api/runs/?archived=1").json()
    assert [r["id"] for r in listed["results"]] == [run.pk]
    assert 'id="archived"' in editor.get(f"/runs/{run.pk}/").content.decode()
    assert Path(run.path).is_dir()  # archiving keeps everything
    assert csrf_post(editor, url, {"archived": "0"}).status_code == 302
    assert link in editor.get("/runs/").content.decode()
    assert _actions()[-2:] == ["run_archived", "run_restored"]


def test_a_file_is_deleted_by_editors_after_a_confirmation(world: dict[str, Any]) -> None:
    project = world["project"]
    save_file(project, "rules", "rules/a.yaml", "- name: a\n  oracle: 'True'\n", world["owner"])
    file = ProjectFile.objects.get(name="rules/a.yaml")
    url = f"/projects/{project.pk}/files/{file.pk}/delete/"
    assert csrf_post(client_for(world["viewer"]), url).status_code == 403
    assert csrf_post(client_for(world["stranger"]), url).status_code == 404
    other = world["other"]  # another project's id in the path does not reach the file
    assert (
        client_for(world["editor"]).get(f"/projects/{other.pk}/files/{file.pk}/delete/").status_code
        == 404
    )
    editor = client_for(world["editor"])
    assert "cannot be undone" in editor.get(url).content.decode()
    assert csrf_post(editor, url).status_code == 302
    assert not ProjectFile.objects.filter(pk=file.pk).exists()
    saved = AuditEvent.objects.get(action="file_saved")
    assert saved.detail == {"name": "rules/a.yaml", "kind": "rules", "version": 1}
    assert AuditEvent.objects.get(action="file_deleted").detail["versions"] == 1


def test_a_project_is_deleted_by_its_owner_once_its_name_is_typed(
    world: dict[str, Any],
) -> None:
    project = world["project"]
    run = _dashboard_run(project)
    url = f"/projects/{project.pk}/delete/"
    for role in ("editor", "viewer"):
        assert csrf_post(client_for(world[role]), url, {"name": "pizzeria"}).status_code == 403
    assert csrf_post(client_for(world["stranger"]), url, {"name": "pizzeria"}).status_code == 404
    owner = client_for(world["owner"])
    wrong = csrf_post(owner, url, {"name": "pizza"})
    assert wrong.status_code == 200 and 'id="wrong-name"' in wrong.content.decode()
    assert Project.objects.filter(pk=project.pk).exists()
    assert csrf_post(owner, url, {"name": "pizzeria"})["Location"] == "/projects/"
    assert not Project.objects.filter(pk=project.pk).exists()
    assert not Path(run.path).exists()
    assert not (Path(settings.RUNS_DIR) / str(project.pk)).exists()
    assert _actions()[-2:] == ["run_deleted", "project_deleted"]
    # the owner still reads the deletion they made, although the project is gone
    mine = api(owner, "get", "/api/audit/?action=project_deleted").json()["results"]
    assert [e["detail"]["name"] for e in mine] == ["pizzeria"]


def test_the_api_deletes_a_project_with_its_runs_folders(world: dict[str, Any]) -> None:
    project = world["project"]
    run = _dashboard_run(project)
    response = api(client_for(world["owner"]), "delete", f"/api/projects/{project.pk}/")
    assert response.status_code == 204 and not Path(run.path).exists()


def test_an_archived_project_leaves_the_list_until_restored(world: dict[str, Any]) -> None:
    project = world["project"]
    url = f"/projects/{project.pk}/archive/"
    assert csrf_post(client_for(world["editor"]), url).status_code == 403
    assert csrf_post(client_for(world["stranger"]), url).status_code == 404
    owner = client_for(world["owner"])
    assert csrf_post(owner, url, {"archived": "1"}).status_code == 302
    link = f'href="/projects/{project.pk}/"'
    assert link not in owner.get("/projects/").content.decode()
    assert link in owner.get("/projects/?archived=1").content.decode()
    assert csrf_post(owner, url, {"archived": "0"}).status_code == 302
    assert link in owner.get("/projects/").content.decode()


def test_the_audit_log_is_read_by_owners_filtered_in_the_url(world: dict[str, Any]) -> None:
    project, other = world["project"], world["other"]
    save_file(project, "rules", "rules/a.yaml", "- name: a\n  oracle: 'True'\n", world["editor"])
    save_file(other, "rules", "rules/b.yaml", "- name: b\n  oracle: 'True'\n", world["stranger"])
    owner = client_for(world["owner"])
    page = owner.get("/audit/").content.decode()
    assert "project_created" in page and "rules/a.yaml" in page and "rules/b.yaml" not in page
    filtered = owner.get("/audit/?action=file_saved").content.decode()
    assert "rules/a.yaml" in filtered and '"tag">project_created<' not in filtered
    assert "rules/a.yaml" not in owner.get("/audit/?actor=own").content.decode()
    assert "rules/a.yaml" not in owner.get("/audit/?before=2000-01-01").content.decode()
    rows = api(owner, "get", f"/api/audit/?project={project.pk}&action=file_saved").json()
    assert [e["detail"]["name"] for e in rows["results"]] == ["rules/a.yaml"]
    assert rows["results"][0]["actor_name"] == "edi"
    # the editor reads only what they did; the viewer nothing of the project
    editor = api(client_for(world["editor"]), "get", "/api/audit/").json()["results"]
    assert {e["actor_name"] for e in editor} == {"edi"}
    seen = api(client_for(world["viewer"]), "get", "/api/audit/").json()["results"]
    assert {(e["action"], e["actor_name"]) for e in seen} == {("login", "vie")}  # own sign-in
    assert "rules/a.yaml" not in client_for(world["stranger"]).get("/audit/").content.decode()
    assert client_for(None).get("/api/audit/").status_code in (401, 403)
    # the log is read-only through the API
    assert api(owner, "post", "/api/audit/", {"action": "x"}).status_code == 405
