"""A run made by the CLI is imported into a project and shown like the others; deleting it
from the dashboard keeps its files."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from web_helpers import api, client_for

from sparring.conversations import ConversationRecord, RunManifest, RunStore, Turn
from sparring.errors import UserInputError
from sparring.web._imports import import_run


def _cli_run(folder: Path) -> Path:
    manifest = RunManifest(run_id="cli", created_at=datetime.now(UTC), sparring_version="t")
    store = RunStore.create(folder, manifest)
    store.write(ConversationRecord(id="c1", profile="p", turns=[Turn(role="user", text="hi")]))
    return folder


def test_an_imported_cli_run_is_listed_and_its_conversations_read(
    world: dict[str, Any], tmp_path: Path
) -> None:
    run = import_run(_cli_run(tmp_path / "cli-run"), world["project"])
    assert run.imported and run.job == "simulate"
    viewer = client_for(world["viewer"])
    listed = api(viewer, "get", "/api/runs/", {"project": world["project"].pk}).data["results"]
    assert [r["id"] for r in listed] == [run.pk]
    page = api(viewer, "get", f"/api/runs/{run.pk}/conversations/").data
    assert page["count"] == 1 and page["results"][0]["id"] == "c1"
    with pytest.raises(UserInputError, match="already imported"):
        import_run(tmp_path / "cli-run", world["project"])
    response = api(client_for(world["owner"]), "delete", f"/api/runs/{run.pk}/")
    assert response.status_code == 204
    assert (tmp_path / "cli-run" / "manifest.json").is_file()


def test_a_folder_that_is_not_a_run_is_refused(world: dict[str, Any], tmp_path: Path) -> None:
    with pytest.raises(UserInputError, match="not a run directory"):
        import_run(tmp_path, world["project"])
