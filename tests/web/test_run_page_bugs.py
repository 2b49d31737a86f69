"""Bugs met on the run pages (issue 37), each pinned by a test that failed before its fix:
the API fetches a conversation by the id it lists; the verdict box of an unchecked run
links to *Check this run…* instead of giving command-line advice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from web_helpers import checked_run, client_for

from sparring.web._imports import import_run
from sparring.web._run_page import warm
from sparring.web.models import Run

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(world: dict[str, Any], tmp_path: Path) -> Run:
    found = import_run(checked_run(tmp_path / "run-a", 3), world["project"])
    warm(found)
    return found


def test_the_api_fetches_a_conversation_by_the_id_it_lists(world: dict[str, Any], run: Run) -> None:
    viewer = client_for(world["viewer"])
    listed = viewer.get(f"/api/runs/{run.pk}/conversations/").json()["results"]
    ids = [row["id"] for row in listed]
    assert ids[0] == "order/0"  # a conversation id holds a slash
    for written in ("order/0", "order%2F0"):  # as listed, and URL-encoded
        response = viewer.get(f"/api/runs/{run.pk}/conversations/{written}/")
        assert response.status_code == 200, written
        assert response.json()["id"] == "order/0"
    assert viewer.get(f"/api/runs/{run.pk}/conversations/order/99/").status_code == 404
    stranger = client_for(world["stranger"])
    assert stranger.get(f"/api/runs/{run.pk}/conversations/order/0/").status_code == 404


def _unchecked(folder: Path) -> Path:
    """A run of one conversation that no rule has checked."""
    from datetime import UTC, datetime

    from sparring.conversations import ConversationRecord, RunManifest, RunStore, Turn

    manifest = RunManifest(
        run_id=folder.name, created_at=datetime.now(UTC), sparring_version="t", job="simulate"
    )
    store = RunStore.create(folder, manifest)
    turns = [Turn(role="user", text="hi"), Turn(role="assistant", text="Hello!", latency=0.1)]
    store.write(ConversationRecord(id="hello/0", profile="hello", turns=turns))
    return folder


def test_the_verdict_of_an_unchecked_run_links_to_check_this_run(
    world: dict[str, Any], tmp_path: Path
) -> None:
    run = import_run(_unchecked(tmp_path / "unchecked"), world["project"])
    warm(run)
    editor = client_for(world["editor"]).get(f"/runs/{run.pk}/").content.decode()
    verdict = editor.split('id="verdict"')[1].split("</section>")[0]
    assert "no verdict" in verdict and "no rules checked" in verdict.lower()
    assert "sparring check" not in verdict and "--run" not in verdict  # no CLI advice
    assert f'href="/runs/{run.pk}/apply/check/"' in verdict and "Check this run…" in verdict
    # a viewer cannot check it: told so, without a link
    viewer = client_for(world["viewer"]).get(f"/runs/{run.pk}/").content.decode()
    shown = viewer.split('id="verdict"')[1].split("</section>")[0]
    assert "sparring check" not in shown and "/apply/check/" not in shown
    assert "no rules checked" in shown.lower()


@pytest.mark.django_db(transaction=True)
def test_an_explore_run_launched_from_the_dashboard_shows_its_workflow_graph(
    world: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``explore`` (offline crawler) on the dental bot of tests/bots, launched through the
    API and run by the dashboard's worker: the run page shows the explored functionalities
    and the workflow graph as an image (the launch failed before: the quota count read
    explore's ``profiles`` switch as paths)."""
    import time

    from web_helpers import run_through_api

    import tests.bots as bots
    from sparring._ssrf import NetworkPolicy, install_policy, installed_policy
    from sparring.web import _worker
    from sparring.web._files import save_file

    before = installed_policy()
    install_policy(NetworkPolicy.from_entries(["127.0.0.0/8"]))
    worker = _worker.Worker()  # the runner's in-process executor
    monkeypatch.setattr(_worker, "_worker", worker)
    worker.start()
    project, owner = world["project"], world["owner"]
    try:
        with bots.serve("dental", (), tmp_path) as chatbot_yaml:
            save_file(project, "chatbot", "chatbot.yaml", chatbot_yaml.read_text(), owner)
            client = client_for(owner)
            pk = run_through_api(client, project.pk, "explore", {"chatbot": "chatbot.yaml"})
            run = Run.objects.get(pk=pk)
            assert run.status == "finished", run.error
            assert 'id="exploration"' in client.get(f"/runs/{pk}/").content.decode()
            section, deadline = "", time.monotonic() + 600
            while "Being computed" in section or not section:  # htmx's request, as a browser
                assert time.monotonic() < deadline
                section = client.get(f"/runs/{pk}/sections/exploration/").content.decode()
                time.sleep(0.5)
    finally:
        install_policy(before)
    assert "Explored with the <strong>offline</strong> strategy" in section
    assert '<img class="figure" alt="figure" src="data:image/svg+xml;base64,' in section
