"""The metamorphic job on the runner: three lines from Python; stopped after its first
judged follow-up (incomplete, status stopped, what finished kept), then started again on
the same run, it gives the uninterrupted run's metamorphic.json."""

from __future__ import annotations

import json
from pathlib import Path

from mt_fixtures import hand_analyser, write_bot

from sparring.conversations import RunStore
from sparring.jobs import JobStatus
from sparring.metamorphic import MetamorphicJob
from sparring.runner import start
from tests.jobs.helpers import StopAfter, conversations


def _result(out: Path) -> dict[str, object]:
    data = json.loads((out / "results" / "metamorphic.json").read_text())
    return {key: data[key] for key in ("follow_ups", "bugs", "metrics", "complete")}


def test_a_stopped_metamorphic_run_finishes_as_the_uninterrupted_one(
    tmp_path: Path, coqa_file: Path
) -> None:
    settings = {"seeds": str(coqa_file), "chatbot": str(write_bot(tmp_path, forgetful=True)),
                "similarity": "tf-idf", "concurrency": 1}  # fmt: skip
    whole = start(MetamorphicJob(hand_analyser), settings, tmp_path / "whole")
    assert whole.status is JobStatus.FINISHED and whole.outcome.verdict == "fail"

    stopper = StopAfter(items=1)
    out = tmp_path / "run"
    job = MetamorphicJob(hand_analyser)
    stopped = start(job, settings, out, on_event=stopper, stop=stopper.stop)
    assert stopped.status is JobStatus.STOPPED and stopped.outcome.exit_code in (1, 3)
    assert RunStore.open(out).manifest.status is JobStatus.STOPPED
    assert json.loads((out / "results" / "metamorphic.json").read_text())["complete"] is False
    assert len(conversations(out)) < len(conversations(tmp_path / "whole"))

    again = start(MetamorphicJob(hand_analyser), settings, out)  # the same out resumes
    assert again.status is JobStatus.FINISHED and again.outcome == whole.outcome
    assert _result(out) == _result(tmp_path / "whole")
    assert RunStore.open(out).manifest.status is JobStatus.FINISHED
