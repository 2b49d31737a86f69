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


def test_compare_two_runs_and_the_history_of_a_rule(
    world: dict[str, Any], run: Run, tmp_path: Path
) -> None:
    fixed = import_run(checked_run(tmp_path / "run-b", 60, sorry_every=1000), world["project"])
    fixed.path = fixed.path  # the same conversation ids, the rule no longer failing but once
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
