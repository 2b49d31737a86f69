"""The evaluate job on the runner (offline detector): three lines from Python; stopped
after one conversation it keeps that judgement, and a new start judges only the rest and
gives the uninterrupted result."""

from __future__ import annotations

import json
from pathlib import Path

from sparring.jobs import JobStatus
from sparring.jobs.events import ItemDone
from sparring.runner import start
from tests.jobs.helpers import StopAfter

DATA = Path(__file__).parents[1] / "simulate" / "data"


def _simulated(folder: Path) -> Path:
    settings = {"profiles": [str(DATA / "profiles")], "chatbot": str(DATA / "chatbot.yaml")}
    return start("simulate", settings, folder).run_dir or folder


def _judgements(run_dir: Path) -> list[object]:
    stored = json.loads((run_dir / "evaluations" / "breakdowns-offline.json").read_text())
    return [(c["conversation"], [t["score"] for t in c["turns"]]) for c in stored["conversations"]]


def test_evaluate_stops_and_a_new_start_finishes_it(tmp_path: Path) -> None:
    whole_dir = _simulated(tmp_path / "whole")
    whole = start("evaluate", {"run": str(whole_dir), "concurrency": 1})
    assert whole.status is JobStatus.FINISHED  # offline, turns are ranked: no verdict
    assert whole.outcome.verdict == "no_verdict" and "only ranked" in whole.outcome.summary
    assert len(_judgements(whole_dir)) == 3

    run_dir = _simulated(tmp_path / "run")
    settings = {"run": str(run_dir), "concurrency": 1}
    stopper = StopAfter(items=1)
    stopped = start("evaluate", settings, run_dir, on_event=stopper, stop=stopper.stop)
    assert stopped.status is JobStatus.STOPPED and stopped.outcome.exit_code == 3
    assert len(_judgements(run_dir)) == 1  # the judged conversation is kept

    seen = StopAfter(items=99)
    again = start("evaluate", settings, run_dir, on_event=seen)
    assert sum(isinstance(e, ItemDone) for e in seen.events) == 2  # only the rest
    assert again.outcome == whole.outcome
    assert _judgements(run_dir) == _judgements(whole_dir)
