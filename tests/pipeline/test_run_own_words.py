"""Zero-config ``run`` offers a date back in the chatbot's own words (explore's
``Parameter.stated``) and fails a chatbot that refuses it (check's
``task_steps_missing(stated)``), on the test bots of two domains (``tests/bots``): the
dental clinic that loops on a day in words (``loop_date``) fails, its correct variant and
the train booking (a date in its own ISO form) pass; and on a restaurant's table booking
(``bots/table_bot.py``), which fails when it loops on a date written out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from sparring.conversations import RunStore
from sparring.runner import start
from tests import bots

TABLE = Path(__file__).parent / "bots"


def _run(name: str, bugs: list[str], tmp_path: Path) -> tuple[Path, int]:
    if name == "table":
        chatbot = tmp_path / "table.yaml"
        params = {"target": "table_bot.py:Conversation", "path": str(TABLE), "timeout": 10}
        config = {"connector": "python", "params": {**params, "kwargs": {"bugs": bugs}}}
        chatbot.write_text(yaml.safe_dump(config), encoding="utf-8")
    else:
        chatbot = bots.python_chatbot(name, bugs, tmp_path)
    run = start("run", {"chatbot": chatbot, "seed": 1}, tmp_path / "run")
    return tmp_path / "run", run.outcome.exit_code


def _stated(root: Path) -> list[str]:
    model = json.loads((root / "explore" / "model.json").read_text())
    return [v for f in model["functionalities"] for p in f["parameters"] for v in p["stated"]]


@pytest.mark.parametrize(
    ("name", "stated"),
    [("dental", "2 March 2027"), ("train", "2027-03-01"), ("table", "2 March 2027")],
)
def test_a_correct_bot_takes_the_date_it_wrote_itself(
    name: str, stated: str, tmp_path: Path
) -> None:
    root, code = _run(name, [], tmp_path)
    assert _stated(root) == [stated]  # dental: "Tuesday, 2 March 2027" without the weekday
    said = [r for r in RunStore.open(root).iter_records() if stated in r.variables.values()]
    assert said  # some conversation offered it back
    rule = (root / "explore" / "rules" / "task_completed.yaml").read_text()
    assert f"task_steps_missing(['{stated}'])" in rule
    assert code == 0


@pytest.mark.parametrize(("name", "bug"), [("dental", "loop_date"), ("table", "loop_written_date")])
def test_a_bot_that_loops_on_its_own_date_fails_naming_the_step(
    name: str, bug: str, tmp_path: Path
) -> None:
    root, code = _run(name, [bug], tmp_path)
    assert code == 1
    failed = [
        v
        for path in (root / "verdicts").glob("*.json")
        for result in json.loads(path.read_text())["results"]
        if result["rule"] == "task_completed"
        for v in result["verdicts"]
        if v["status"] == "fail"
    ]
    assert failed
    assert all("2 March 2027" in json.dumps(v) for v in failed)
    assert all("own words" in (v.get("message") or v.get("reason") or "") for v in failed)


def test_two_dates_in_one_flow_get_no_stated_date(tmp_path: Path) -> None:
    """The car rental asks for a pick-up and a return date: the confirmation's date could be
    either, and the pick-up date given as the return date is rightly refused."""
    root, code = _run("carrental", [], tmp_path)
    assert _stated(root) == []
    assert code == 0
