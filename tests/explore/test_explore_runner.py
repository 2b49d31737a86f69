"""The explore job on the runner: three lines from Python; stopped after the probing
session and two crawl sessions, resumed (the stored sessions are played again from their
records, the chatbot is not asked again), it ends with the model, profiles and sessions of
a run that was never stopped."""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

from sparring.jobs import JobStatus, read_progress
from sparring.jobs.events import ItemDone
from sparring.runner import resume, start
from tests.explore.conftest import pizza_chatbot_yaml
from tests.jobs.helpers import StopAfter, conversations


def _fresh_order_ids() -> None:
    """The test pizzeria numbers orders in a module-level counter: start it again, so two
    runs in one process meet the same bot."""
    bot = sys.modules.get("pizza_bot")
    if bot is not None:
        bot._ORDER_IDS = itertools.count(1001)  # type: ignore[attr-defined]


def _model(run_dir: Path) -> dict[str, object]:
    return json.loads((run_dir / "explore" / "model.json").read_text(encoding="utf-8"))


def _profiles(run_dir: Path) -> dict[str, str]:
    folder = run_dir / "explore" / "profiles"
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.yaml"))}


def test_explore_stops_and_resumes_to_the_uninterrupted_result(tmp_path: Path) -> None:
    settings = {"chatbot": str(pizza_chatbot_yaml(tmp_path, "text")), "sessions": 8, "turns": 6}
    whole_dir = tmp_path / "whole"
    _fresh_order_ids()
    whole = start("explore", settings, whole_dir)
    assert whole.status is JobStatus.FINISHED and whole.outcome.verdict == "recorded"

    _fresh_order_ids()
    stopper = StopAfter(items=3)  # the probing session and two crawl sessions
    stopped = start("explore", settings, tmp_path / "run", on_event=stopper, stop=stopper.stop)
    assert stopped.status is JobStatus.STOPPED and stopped.outcome.exit_code == 3
    run_dir = tmp_path / "run"
    partial = _model(run_dir)
    assert partial["complete"] is False
    assert any("stopped on request" in note for note in partial["notes"])  # type: ignore[union-attr]
    assert not (run_dir / "explore" / "profiles").exists()
    kept = {p.name: p.read_bytes() for p in (run_dir / "conversations").iterdir()}
    assert len(kept) == 3
    progress = read_progress(run_dir)
    assert progress is not None and progress.status is JobStatus.STOPPED and progress.done == 3

    seen = StopAfter(items=99)
    resumed = resume(run_dir, on_event=seen)
    assert resumed.status is JobStatus.FINISHED and resumed.outcome == whole.outcome
    assert sum(isinstance(e, ItemDone) for e in seen.events) == len(conversations(run_dir))
    for name, content in kept.items():  # played again, not asked again: the records stand
        assert (run_dir / "conversations" / name).read_bytes() == content
    assert _model(run_dir) | {"created_at": None} == _model(whole_dir) | {"created_at": None}
    assert _profiles(run_dir) == _profiles(whole_dir)
    assert conversations(run_dir) == conversations(whole_dir)
