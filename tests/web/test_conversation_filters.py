"""The conversation list's filters and search (issue 37): failing only, by rule, by error
code, by breakdown type, by annotation, full text on the turns; in the URL (a filtered
view is a link), kept by the pager, and read from a cached per-run index."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from web_helpers import checked_run, client_for, csrf_post

from sparring.web._imports import import_run
from sparring.web._run_page import warm
from sparring.web.models import Run

pytestmark = pytest.mark.django_db


def _with_errors_and_breakdowns(folder: Path, n: int) -> Path:
    """``checked_run`` (every 4th conversation fails the rule), then: conversations 1
    and 5 carry a generic failure 1001 and 2 a 504, the detector marked a turn of 3
    ("ignore question") and 7 ("repetition"), and conversation 6 asks for a refund."""
    from sparring.conversations import ConversationError, ErrorCode, RunStore, Turn

    checked_run(folder, n)
    store = RunStore.open(folder, clean=False)
    for index, code in ((1, ErrorCode.GOAL_NOT_COMPLETED), (5, ErrorCode.GOAL_NOT_COMPLETED),
                        (2, ErrorCode.TIMEOUT)):  # fmt: skip
        record = store.read(f"order/{index}")
        failure = ConversationError(code=code, message="it failed")
        store.write(record.model_copy(update={"errors": [failure]}))
    record = store.read("order/6")
    turns = [*record.turns, Turn(role="user", text="I want a REFUND for the cold pizza")]
    store.write(record.model_copy(update={"turns": turns}))
    judged = [
        {"conversation": f"order/{i}", "detector": "offline",
         "turns": [{"turn": 1, "breakdown": True, "error_types": [kind], "detector": "offline",
                    "strategy": "offline"}]}
        for i, kind in ((3, "ignore question"), (7, "repetition"))
    ]  # fmt: skip
    evaluations = folder / "evaluations"
    evaluations.mkdir(exist_ok=True)
    data = {"detector": "offline", "conversations": judged}
    (evaluations / "breakdowns-offline.json").write_text(json.dumps(data))
    return folder


@pytest.fixture
def run(world: dict[str, Any], tmp_path: Path) -> Run:
    found = import_run(_with_errors_and_breakdowns(tmp_path / "run-a", 60), world["project"])
    warm(found)
    return found


def _ids(page: str) -> list[str]:
    return re.findall(r'<td><a href="/runs/\d+/conversations/[^"]+">([^<]+)</a></td>', page)


def test_each_filter_narrows_the_list_in_the_url(world: dict[str, Any], run: Run) -> None:
    viewer = client_for(world["viewer"])
    base = f"/runs/{run.pk}/conversations/"

    def shown(query: str) -> list[str]:
        response = viewer.get(base + "?" + query)
        assert response.status_code == 200
        return _ids(response.content.decode())

    assert len(shown("")) == 50  # unfiltered: the first page
    failing = shown("failing=1")  # 15 fail the rule (every 4th), 3 more carry a failure
    assert len(failing) == 18 and {"order/0", "order/1", "order/2", "order/4"} <= set(failing)
    assert "order/3" not in failing
    by_rule = shown("rule=never_says_sorry_twice")
    assert by_rule == [f"order/{i}" for i in range(0, 60, 4)]
    assert shown("code=goal_not_completed") == ["order/1", "order/5"]
    assert shown("code=504") == ["order/2"]  # by name or number
    assert shown("breakdown=ignore+question") == ["order/3"]
    assert shown("breakdown=any") == ["order/3", "order/7"]
    assert shown("q=refund") == ["order/6"] and shown("q=Cold+REFUND") == ["order/6"]
    assert shown("q=refund+never") == []
    assert shown("failing=1&code=goal_not_completed&q=pizza") == ["order/1", "order/5"]
    page = viewer.get(base + "?failing=1&code=timeout").content.decode()
    assert "1 of 60 match" in page  # the form keeps what was chosen: the URL is the state
    assert "<option selected>timeout</option>" in page and 'id="filter-failing" checked' in page


def test_the_annotation_filter_reads_the_labels_people_gave(
    world: dict[str, Any], run: Run
) -> None:
    editor = client_for(world["editor"])
    note = {"conversation": "order/9", "turn": "1", "label": "wrong", "breakdown": "topic"}
    assert csrf_post(editor, f"/runs/{run.pk}/annotate/", note).status_code == 302
    note = {"conversation": "order/11", "label": "correct"}
    assert csrf_post(editor, f"/runs/{run.pk}/annotate/", note).status_code == 302
    base = f"/runs/{run.pk}/conversations/?annotation="
    assert _ids(editor.get(base + "wrong").content.decode()) == ["order/9"]
    assert _ids(editor.get(base + "correct").content.decode()) == ["order/11"]
    assert _ids(editor.get(base + "any").content.decode()) == ["order/9", "order/11"]


def test_the_pager_keeps_the_filters_and_strangers_see_nothing(
    world: dict[str, Any], run: Run
) -> None:
    viewer = client_for(world["viewer"])
    base = f"/runs/{run.pk}/conversations/"
    first = viewer.get(base + "?q=pizza").content.decode()
    assert "60 of 60 match" in first and "q=pizza&amp;page=2" in first
    second = viewer.get(base + "?q=pizza&page=2").content.decode()
    assert _ids(second) == [f"order/{i}" for i in range(50, 60)]
    assert client_for(world["stranger"]).get(base + "?q=pizza").status_code == 404


def test_a_new_conversation_is_found_by_the_next_search(world: dict[str, Any], run: Run) -> None:
    """The index is keyed on the run's conversations: a record written later is searched."""
    import os

    from sparring.conversations import ConversationRecord, RunStore, Turn

    viewer = client_for(world["viewer"])
    url = f"/runs/{run.pk}/conversations/?q=lasagne"
    assert _ids(viewer.get(url).content.decode()) == []
    store = RunStore.open(Path(run.path), clean=False)
    turns = [Turn(role="user", text="a lasagne please"), Turn(role="assistant", text="No.")]
    store.write(ConversationRecord(id="order/60", profile="order", turns=turns))
    folder = Path(run.path) / "conversations"
    stat = folder.stat()  # a second write in the same clock tick still moves the key
    os.utime(folder, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert _ids(viewer.get(url).content.decode()) == ["order/60"]
