"""Jobs applied to an existing run from the browser (``check``, ``evaluate``: they write
into the run and create none): launched from the run's page through its generated form,
run by the worker through the runner's executor, kept as the run's history, the run's page
shows what they wrote; viewers cannot launch one, anonymous requests are refused, and
deleting the run still works."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from web_helpers import RULES, api, client_for, csrf_post

from sparring.web import _worker
from sparring.web._files import save_file
from sparring.web._imports import import_run
from sparring.web.models import AuditEvent, Run, RunJob

pytestmark = pytest.mark.django_db


def _bare_run(folder: Path) -> Path:
    """A finished simulate run whose conversation says "sorry, sorry", never checked."""
    from datetime import UTC, datetime

    from sparring.conversations import ConversationRecord, RunManifest, RunStore, Turn

    manifest = RunManifest(
        run_id=folder.name, created_at=datetime.now(UTC), sparring_version="t", job="simulate"
    )
    store = RunStore.create(folder, manifest)
    turns = [Turn(role="user", text="a pizza"), Turn(role="assistant", text="sorry, sorry")]
    store.write(ConversationRecord(id="order/0", profile="order", turns=turns))
    return folder


@pytest.fixture
def real_worker(monkeypatch: pytest.MonkeyPatch) -> _worker.Worker:
    """The worker with the runner's ``InProcessExecutor`` (not started: tests step it)."""
    worker = _worker.Worker()
    monkeypatch.setattr(_worker, "_worker", worker)
    return worker


def test_check_is_applied_to_a_finished_run_from_its_page_and_its_verdict_shows(
    world: dict[str, Any], tmp_path: Path, real_worker: _worker.Worker
) -> None:
    project, owner = world["project"], world["owner"]
    run = import_run(_bare_run(tmp_path / "run-a"), project)
    save_file(project, "rules", "rules/sorry.yaml", RULES, owner)
    editor = client_for(world["editor"])
    before = editor.get(f"/runs/{run.pk}/").content.decode()
    assert "Verdict: failed" not in before
    assert f'hx-get="/runs/{run.pk}/applied/"' in before  # the history panel is loaded

    panel = editor.get(f"/runs/{run.pk}/applied/", HTTP_HX_REQUEST="true").content.decode()
    assert f'href="/runs/{run.pk}/apply/check/"' in panel
    assert f'href="/runs/{run.pk}/apply/evaluate/"' in panel
    form = editor.get(f"/runs/{run.pk}/apply/check/").content.decode()
    assert 'value="rules/sorry.yaml"' in form  # the rules are the project's files
    assert 'name="run"' not in form and 'name="csv"' not in form  # set by the dashboard
    assert 'name="junit_per_conversation"' not in form

    response = csrf_post(editor, f"/runs/{run.pk}/apply/check/", {"rules": ["rules/sorry.yaml"]})
    assert response.status_code == 302 and response["Location"] == f"/runs/{run.pk}/"
    applied = RunJob.objects.get(run=run)
    assert applied.status == "queued" and applied.created_by == world["editor"]
    assert Run.objects.filter(project=project).count() == 1  # no run of its own
    assert applied.settings["run"] == run.path  # the run itself is its target
    frozen = str(_worker.applied_folder(applied))
    assert all(p.startswith(frozen) for p in applied.settings["rules"])  # files frozen for it

    real_worker.run_applied(applied.pk)

    applied.refresh_from_db()
    assert applied.status == "finished" and applied.verdict, (applied.status, applied.error)
    assert applied.finished_at is not None
    # the check's progress record is its own: the run's progress.json is untouched
    assert (_worker.applied_folder(applied) / "progress.json").is_file()
    after = editor.get(f"/runs/{run.pk}/").content.decode()
    assert "Verdict: failed" in after and "never_says_sorry_twice" in after
    # the runs list agrees with the page: the run is found under the check's verdict
    listed = editor.get(f"/runs/?verdict={applied.verdict}").content.decode()
    assert Run.objects.get(pk=run.pk).verdict == applied.verdict == "fail"
    assert f'href="/runs/{run.pk}/"' in listed
    panel = editor.get(f"/runs/{run.pk}/applied/").content.decode()  # without htmx: a page
    assert f'id="applied-{applied.pk}"' in panel and "finished" in panel
    assert "rules/sorry.yaml" in panel and str(tmp_path) not in panel  # no server folder
    assert str(_worker.applied_folder(applied)) not in panel
    assert AuditEvent.objects.filter(action="run_job_started", project_id_ref=project.pk).exists()

    # delete still works: the row, its applied jobs and their folders go
    folder = _worker.applied_folder(applied)
    assert api(editor, "delete", f"/api/runs/{run.pk}/").status_code == 204
    assert not RunJob.objects.exists() and not folder.exists()


@pytest.fixture
def run(world: dict[str, Any], tmp_path: Path) -> Run:
    """An imported, never checked run of the project, which has a rules file."""
    project = world["project"]
    save_file(project, "rules", "rules/sorry.yaml", RULES, world["owner"])
    return import_run(_bare_run(tmp_path / "run-a"), project)


def test_viewers_strangers_and_anonymous_cannot_apply_a_job(
    world: dict[str, Any], run: Run
) -> None:
    url = f"/runs/{run.pk}/apply/check/"
    data = {"rules": ["rules/sorry.yaml"]}
    viewer = client_for(world["viewer"])
    assert viewer.get(url).status_code == 403
    assert csrf_post(viewer, url, data).status_code == 403
    panel = viewer.get(f"/runs/{run.pk}/applied/", HTTP_HX_REQUEST="true").content.decode()
    assert "/apply/" not in panel  # a viewer reads the history, is offered no launch
    assert csrf_post(client_for(world["stranger"]), url, data).status_code == 404
    anonymous = client_for(None)
    response = anonymous.post(url, data)
    assert response.status_code in (302, 403) and "/login/" in response.get("Location", "/login/")
    assert anonymous.get(f"/runs/{run.pk}/applied/").status_code == 302
    assert not RunJob.objects.exists()


def test_an_applied_job_is_refused_while_the_run_or_another_job_is_under_way(
    world: dict[str, Any], run: Run
) -> None:
    editor = client_for(world["editor"])
    url = f"/runs/{run.pk}/apply/check/"
    data = {"rules": ["rules/sorry.yaml"]}
    assert csrf_post(editor, url, data).status_code == 302  # queued (recording worker)
    page = csrf_post(editor, url, data).content.decode()
    assert "has a job under way" in page and RunJob.objects.count() == 1
    queued = RunJob.objects.get()
    assert csrf_post(editor, f"/runs/{run.pk}/applied/{queued.pk}/stop/").status_code == 302
    queued.refresh_from_db()
    assert queued.status == "stopped"
    assert AuditEvent.objects.filter(action="run_job_stopped").exists()
    # a job that creates runs is launched from the project, not applied
    assert editor.get(f"/runs/{run.pk}/apply/simulate/").status_code == 404
    # a setting that points outside the project's files is refused
    page = csrf_post(editor, f"/runs/{run.pk}/apply/evaluate/", {"taxonomy": "/etc/passwd"})
    assert page.status_code == 200 and RunJob.objects.count() == 1


def test_evaluate_is_applied_with_the_detectors_of_its_form(
    world: dict[str, Any], run: Run, real_worker: _worker.Worker
) -> None:
    editor = client_for(world["editor"])
    form = editor.get(f"/runs/{run.pk}/apply/evaluate/").content.decode()
    assert 'name="detectors"' in form and 'name="run"' not in form
    response = csrf_post(editor, f"/runs/{run.pk}/apply/evaluate/", {"detectors": "offline"})
    assert response.status_code == 302
    applied = RunJob.objects.get(run=run, job="evaluate")
    assert applied.settings["detectors"] == ["offline"]
    real_worker.run_applied(applied.pk)
    applied.refresh_from_db()
    assert applied.status == "finished", applied.error
    # the breakdowns are stored in the run itself, where its page reads them
    assert list((Path(run.path) / "evaluations").glob("breakdowns-offline*.json"))
    panel = editor.get(f"/runs/{run.pk}/applied/").content.decode()
    assert "evaluate" in panel and "offline" in panel


def test_the_api_applies_a_job_to_a_run_by_role_and_token_scope(
    world: dict[str, Any], run: Run
) -> None:
    from sparring.web._manage import create_token

    url = f"/api/runs/{run.pk}/apply/"
    data = {"job": "check", "settings": {"rules": ["rules/sorry.yaml"]}}
    _, read_token = create_token(None, world["editor"], "laptop", "read", 30)
    _, run_token = create_token(None, world["editor"], "ci", "run", 30)
    refused = {
        "viewer": api(client_for(world["viewer"]), "post", url, data).status_code,
        "stranger": api(client_for(world["stranger"]), "post", url, data).status_code,
        "anonymous": api(client_for(None), "post", url, data).status_code,
        "read token": api(client_for(None), "post", url, data, token=read_token).status_code,
    }
    assert refused == {"viewer": 403, "stranger": 404, "anonymous": 401, "read token": 403}
    assert not RunJob.objects.exists()
    bad = api(client_for(None), "post", url, {**data, "settings": {"rules": ["/etc/passwd"]}},
              token=run_token)  # fmt: skip
    assert bad.status_code == 400 and "settings.rules" in str(bad.data)
    made = api(client_for(None), "post", url, data, token=run_token)
    assert made.status_code == 201, made.data
    assert made.data["job"] == "check" and made.data["settings"]["rules"] == ["rules/sorry.yaml"]
    listed = api(client_for(world["viewer"]), "get", f"/api/runs/{run.pk}/applied/")
    assert [row["id"] for row in listed.data] == [made.data["id"]]
    assert str(run.path) not in str(listed.data)  # no folder of the server
    assert (
        api(client_for(world["stranger"]), "get", f"/api/runs/{run.pk}/applied/").status_code == 404
    )
