"""The dashboard's pages through Django's test client (CSRF enforced): the runs list and
its URL filters, the run page (the report's sections), the paginated conversations, the
conversation viewer (chatbot text escaped), annotations, compare, rule history, the file
editor (located problems beside their lines, versions) and the launch form generated from
a job's ``JobSettings``."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest
from web_helpers import HOSTILE, PROFILE, checked_run, client_for, csrf_post

from sparring.web._files import save_file
from sparring.web._imports import import_run
from sparring.web._run_page import warm
from sparring.web.models import Annotation, FileVersion, Run

pytestmark = pytest.mark.django_db

BOT_YAML = """\
connector: rest
params:
  base_url: http://bot.example
  send_message: {path: /c, payload_template: {m: '{user_msg}'}}
  response_path: r
"""


@pytest.fixture
def run(world: dict[str, Any], tmp_path: Path) -> Run:
    found = import_run(checked_run(tmp_path / "run-a", 60, hostile=True), world["project"])
    found.tags = ["nightly"]
    found.save()
    warm(found)  # as ``sparring web import`` does: the page is ready on the first visit
    return found


def test_the_runs_list_filters_by_the_url_and_shows_only_readable_runs(
    world: dict[str, Any], run: Run, tmp_path: Path
) -> None:
    other = import_run(checked_run(tmp_path / "theirs", 2), world["other"])
    viewer = client_for(world["viewer"])
    page = viewer.get("/runs/").content.decode()
    assert f'href="/runs/{run.pk}/"' in page and f'href="/runs/{other.pk}/"' not in page
    assert f"/runs/{run.pk}/" in viewer.get("/runs/?tag=nightly").content.decode()
    assert f"/runs/{run.pk}/" not in viewer.get("/runs/?tag=weekly").content.decode()
    assert f"/runs/{run.pk}/" not in viewer.get("/runs/?job=check").content.decode()
    assert f"/runs/{run.pk}/" not in viewer.get("/runs/?after=2999-01-01").content.decode()
    assert f"/runs/{run.pk}/" in viewer.get(f"/runs/?project={run.project_id}").content.decode()
    # the filter form keeps the chosen values: the URL is the state
    assert 'value="nightly"' in viewer.get("/runs/?tag=nightly").content.decode()


def test_the_run_page_shows_the_verdict_and_the_reports_sections(
    world: dict[str, Any], run: Run
) -> None:
    response = client_for(world["viewer"]).get(f"/runs/{run.pk}/")
    page = response.content.decode()
    assert response.status_code == 200
    assert "Verdict: failed" in page
    assert 'id="failures"' in page and 'id="rules"' in page  # the report's own sections
    assert "never_says_sorry_twice" in page
    # the report's links to a conversation point at the dashboard's viewer
    assert f'href="/runs/{run.pk}/conversations/order%2F0"' in page
    assert "<script" not in page.split("<body>")[1].replace(
        '<script src="/static/', ""
    )  # no inline script reaches the page
    assert 'id="conversations"' not in page  # the report's script-driven index is left out
    # the plots are images (their own styles apply; the CSP allows no inline style)
    assert "<svg" not in page and 'src="data:image/svg+xml;base64,' in page


def test_conversations_are_paginated_and_the_viewer_escapes_every_text(
    world: dict[str, Any], run: Run
) -> None:
    viewer = client_for(world["viewer"])
    first = viewer.get(f"/runs/{run.pk}/conversations/").content.decode()
    assert "Conversations (60)" in first and "page 1 of 2" in first
    assert first.count('href="/runs/') >= 50 and "order/50" not in first
    second = viewer.get(f"/runs/{run.pk}/conversations/?page=2").content.decode()
    assert "order/50" in second and "order/1<" not in second
    page = viewer.get(f"/runs/{run.pk}/conversations/order%2F0").content.decode()
    assert "sorry, sorry" in page and "never_says_sorry_twice" in page
    assert "0.25 s" in page  # latency
    body = page.split("<main>")[1]
    for payload in HOSTILE:
        assert payload not in body
    assert html.escape(HOSTILE[0]) in body or html.escape(HOSTILE[0], quote=False) in body
    assert not re.search(r"<(img|svg|iframe|a)[^>]*(onerror|onload|javascript:)", body)
    assert viewer.get(f"/runs/{run.pk}/conversations/nope").status_code == 404


def test_annotations_are_saved_by_editors_only_and_exported(
    world: dict[str, Any], run: Run
) -> None:
    url = f"/runs/{run.pk}/annotate/"
    note = {"conversation": "order/0", "turn": "5", "label": "wrong", "breakdown": "repetition"}
    assert csrf_post(client_for(world["viewer"]), url, note).status_code == 403
    assert csrf_post(client_for(world["stranger"]), url, note).status_code == 404
    editor = client_for(world["editor"])
    response = csrf_post(editor, url, {**note, "comment": "<b>loops</b>"})
    assert response.status_code == 302 and response["Location"].endswith("order%2F0#turn-5")
    saved = Annotation.objects.get()
    assert (saved.turn, saved.label, saved.author) == (5, "wrong", world["editor"])
    page = editor.get(f"/runs/{run.pk}/conversations/order%2F0").content.decode()
    assert "repetition" in page and "&lt;b&gt;loops&lt;/b&gt;" in page
    csv = editor.get(f"/api/annotations/export/?run={run.pk}&as=csv").content.decode()
    assert "order/0,5,wrong,repetition" in csv
    assert csrf_post(editor, url, {**note, "conversation": "nope"}).status_code == 302
    assert Annotation.objects.count() == 1  # an unknown conversation is not annotated


def _unchecked_run(folder: Path) -> Path:
    from datetime import UTC, datetime

    from sparring.conversations import ConversationRecord, RunManifest, RunStore, Turn

    manifest = RunManifest(run_id="bare", created_at=datetime.now(UTC), sparring_version="t")
    store = RunStore.create(folder, manifest)
    store.write(ConversationRecord(id="order/0", profile="p", turns=[Turn(role="user", text="hi")]))
    return folder


def test_compare_two_runs_and_the_history_of_a_rule(
    world: dict[str, Any], run: Run, tmp_path: Path
) -> None:
    fixed = import_run(checked_run(tmp_path / "run-b", 60, sorry_every=1000), world["project"])
    viewer = client_for(world["viewer"])
    page = viewer.get(f"/compare/?a={run.pk}&b={fixed.pk}").content.decode()
    assert "no regression" in page
    fixed_list = page.split("<h3>Fixed</h3>")[1].split("</ul>")[0]
    assert "never_says_sorry_twice" not in fixed_list  # order/0 still fails in both
    assert "order/4" in page  # fail → pass, shown with its turns side by side
    back = viewer.get(f"/compare/?a={fixed.pk}&b={run.pk}").content.decode()
    assert "regression" in back and "no regression" not in back
    history = viewer.get(
        f"/projects/{run.project_id}/rules/?rule=never_says_sorry_twice"
    ).content.decode()
    assert f'href="/runs/{run.pk}/"' in history and f'href="/runs/{fixed.pk}/"' in history
    unchecked = import_run(_unchecked_run(tmp_path / "bare"), world["project"])
    page = viewer.get(f"/compare/?a={run.pk}&b={unchecked.pk}").content.decode()
    assert f"run {unchecked.pk} holds no rule verdicts" in page
    assert str(tmp_path) not in page  # no folder of the server is shown
    theirs = import_run(checked_run(tmp_path / "theirs", 2), world["other"])
    assert viewer.get(f"/compare/?a={run.pk}&b={theirs.pk}").status_code == 404


def test_the_file_editor_shows_located_problems_beside_their_lines_and_keeps_versions(
    world: dict[str, Any],
) -> None:
    project, editor = world["project"], client_for(world["editor"])
    url = f"/projects/{project.pk}/files/new/"
    bad = PROFILE.replace("  goals:", "  gaols:")
    response = csrf_post(
        editor, url, {"kind": "profile", "name": "profiles/o.yaml", "content": bad}
    )
    page = response.content.decode()
    assert response.status_code == 200 and "Not saved" in page
    line = next(n for n, text in enumerate(bad.splitlines(), 1) if "gaols" in text)
    listed = re.search(rf'<li class="bad"><span class="number">{line}</span>(.*?)</li>', page, re.S)
    assert listed is not None and "gaols" in listed.group(1)  # the problem beside its line
    assert "profiles/o.yaml:" in listed.group(1)
    assert not FileVersion.objects.exists()
    response = csrf_post(
        editor, url, {"kind": "profile", "name": "profiles/o.yaml", "content": PROFILE}
    )
    assert response.status_code == 302
    file = project.files.get()
    csrf_post(editor, f"/projects/{project.pk}/files/{file.pk}/", {"content": PROFILE + "\n"})
    assert list(file.versions.values_list("number", flat=True)) == [2, 1]
    page = editor.get(f"/projects/{project.pk}/files/{file.pk}/").content.decode()
    assert f"/projects/{project.pk}/files/{file.pk}/versions/1/" in page
    old = editor.get(f"/projects/{project.pk}/files/{file.pk}/versions/1/").content.decode()
    assert "I would like to order a pizza" in old
    viewer = client_for(world["viewer"])
    assert (
        csrf_post(viewer, f"/projects/{project.pk}/files/{file.pk}/", {"content": "x"}).status_code
        == 403
    )


def test_the_launch_form_is_generated_from_the_jobs_settings_and_starts_a_run(
    world: dict[str, Any], recording_worker: Any
) -> None:
    project, owner = world["project"], world["owner"]
    save_file(
        project,
        "chatbot",
        "chatbot.yaml",
        BOT_YAML,
        owner,
    )
    save_file(project, "profile", "profiles/order.yaml", PROFILE, owner)
    editor = client_for(world["editor"])
    url = f"/projects/{project.pk}/launch/simulate/"
    form = editor.get(url).content.decode()
    for field in ("chatbot", "profiles", "concurrency", "max_turns", "simulator"):
        assert f'name="{field}"' in form, field
    assert 'value="profiles"' in form and 'value="chatbot.yaml"' in form
    # each path setting offers the files of its kind: no profile is offered as a chatbot
    chatbot_choices = form.split('name="chatbot"')[1].split("</select>")[0]
    assert "profiles/order.yaml" not in chatbot_choices and "chatbot.yaml" in chatbot_choices
    response = csrf_post(
        editor, url, {"chatbot": "chatbot.yaml", "profiles": ["profiles"], "concurrency": "abc"}
    )
    assert response.status_code == 200 and not Run.objects.exists()  # a located form error
    response = csrf_post(
        editor,
        url,
        {"chatbot": "chatbot.yaml", "profiles": ["profiles"], "concurrency": "1", "tags": "a, b"},
    )
    assert response.status_code == 302, response.content.decode()[-2000:]
    run = Run.objects.get()
    assert response["Location"] == f"/runs/{run.pk}/" and run.tags == ["a", "b"]
    assert run.settings["concurrency"] == 1 and run.settings["chatbot"].endswith("chatbot.yaml")
    assert client_for(world["viewer"]).get(url).status_code == 403
    assert editor.get(f"/projects/{project.pk}/launch/no-such-job/").status_code == 404


def test_exported_annotations_score_a_detector_with_bench_dbdc(
    world: dict[str, Any], run: Run, tmp_path: Path
) -> None:
    import json

    from typer.testing import CliRunner

    from sparring.cli import app
    from sparring.evaluate import read_annotation_labels, run_dialogues

    editor = client_for(world["editor"])
    url = f"/runs/{run.pk}/annotate/"
    for conversation, turn, label in [
        ("order/0", "5", "wrong"),  # "sorry, sorry": a breakdown
        ("order/0", "1", "correct"),
        ("order/1", "3", "correct"),
        ("order/1", "2", "wrong"),  # a user turn: not a chatbot utterance, left out
    ]:
        note = {"conversation": conversation, "turn": turn, "label": label}
        assert csrf_post(editor, url, note).status_code == 302
    csrf_post(editor, url, {"conversation": "order/1", "label": "wrong"})  # the whole one
    as_json = tmp_path / "annotations.json"
    exported = editor.get(f"/api/annotations/export/?run={run.pk}&format=json")
    as_json.write_text(json.dumps(exported.json()))
    as_csv = tmp_path / "annotations.csv"
    as_csv.write_bytes(editor.get(f"/api/annotations/export/?run={run.pk}&as=csv").content)
    expected = {"order/0": {5: "X", 1: "O"}, "order/1": {3: "O", 2: "X"}}
    assert read_annotation_labels(as_json) == expected == read_annotation_labels(as_csv)
    dialogues = run_dialogues(Path(run.path), read_annotation_labels(as_json))
    assert [d.id for d in dialogues] == ["order/0", "order/1"]
    assert [t.label for t in dialogues[1].turns] == [None, None, None, "O", None, None]
    result = CliRunner().invoke(
        app, ["bench", "dbdc", run.path, "--labels", str(as_csv), "-d", "always"]
    )
    assert result.exit_code == 0, result.output
    assert "team's labels" in result.output
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"conversation": "order/0", "turn": 1, "label": "meh"}]))
    refused = CliRunner().invoke(app, ["bench", "dbdc", run.path, "--labels", str(bad)])
    assert refused.exit_code != 0 and "[0]label" in str(refused.exception)  # located


def test_every_page_of_a_run_is_hidden_from_strangers_and_closed_to_viewers(
    world: dict[str, Any], run: Run
) -> None:
    project = world["project"]
    reads = [
        f"/projects/{project.pk}/",
        f"/projects/{project.pk}/rules/",
        f"/runs/{run.pk}/",
        f"/runs/{run.pk}/progress/",
        f"/runs/{run.pk}/conversations/",
        f"/runs/{run.pk}/conversations/order%2F0",
        f"/compare/?a={run.pk}&b={run.pk}",
    ]
    stranger, viewer = client_for(world["stranger"]), client_for(world["viewer"])
    for url in reads:
        assert stranger.get(url).status_code == 404, url  # its existence is not revealed
        assert viewer.get(url).status_code == 200, url
    assert f"/runs/{run.pk}/" not in stranger.get("/runs/").content.decode()
    writes = [f"/runs/{run.pk}/stop/", f"/runs/{run.pk}/resume/", f"/runs/{run.pk}/annotate/"]
    writes += [f"/projects/{project.pk}/launch/simulate/", f"/projects/{project.pk}/files/new/"]
    for url in writes:
        assert (
            csrf_post(viewer, url, {"conversation": "order/0", "label": "wrong"}).status_code == 403
        ), url
        assert csrf_post(stranger, url, {}).status_code == 404, url
    # without the CSRF token even an owner's POST is refused
    assert client_for(world["owner"]).post(f"/runs/{run.pk}/stop/").status_code == 403


def test_progress_is_read_from_progress_json_and_runs_stop_and_resume(
    world: dict[str, Any], tmp_path: Path
) -> None:
    from datetime import UTC, datetime

    from sparring.jobs import PROGRESS, Progress

    project = world["project"]
    folder = tmp_path / "live"
    folder.mkdir()
    run = Run.objects.create(project=project, job="simulate", path=str(folder), status="running")
    now = datetime.now(UTC)
    progress = Progress(
        job="simulate", status="running", stage="conversations", planned=40, done=12,
        failed=2, cost_usd=0.0125, started_at=now, updated_at=now, eta_seconds=84.0,
    )  # fmt: skip
    (folder / PROGRESS).write_text(progress.model_dump_json())
    editor = client_for(world["editor"])
    page = editor.get(f"/runs/{run.pk}/").content.decode()
    assert f'hx-get="/runs/{run.pk}/progress/"' in page and 'hx-trigger="every 1s"' in page
    panel = editor.get(f"/runs/{run.pk}/progress/", HTTP_HX_REQUEST="true")
    text = panel.content.decode()
    for figure in ('id="progress-planned">40<', 'id="progress-done">12<', ">2<", "0.0125", "84 s"):
        assert figure in text, figure
    assert "HX-Refresh" not in panel
    assert 'id="stop"' in page and csrf_post(editor, f"/runs/{run.pk}/stop/").status_code == 302
    Run.objects.filter(pk=run.pk).update(status="stopped", handle="h1")
    ended = editor.get(f"/runs/{run.pk}/progress/", HTTP_HX_REQUEST="true")
    assert ended["HX-Refresh"] == "true"  # the page reloads to show the run's report
    page = editor.get(f"/runs/{run.pk}/").content.decode()
    assert "/progress/" not in page and 'hx-trigger="every' not in page  # no more polling
    assert 'id="resume"' in page
    assert csrf_post(editor, f"/runs/{run.pk}/resume/").status_code == 302
    assert Run.objects.get(pk=run.pk).status == "queued"
    from sparring.web.models import AuditEvent

    actions = set(AuditEvent.objects.values_list("action", flat=True))
    assert {"run_stopped", "run_resumed"} <= actions
