"""``adversarial test`` on the runner (scripted model, in-test bot): stopped after its first
test, resumed from the run's manifest, it gives the uninterrupted run's trajectories."""

from __future__ import annotations

from pathlib import Path

import yaml

from sparring.adversarial import AdversarialTestJob
from sparring.conversations import RunStore
from sparring.jobs import JobStatus, resume, start
from sparring.llm import ScriptedModel
from tests.adversarial.test_threads import responder, write_inputs
from tests.jobs.helpers import StopAfter

KEPT = ("instructions-leak", "unavailable-topping")


def _inputs(tmp_path: Path) -> dict[str, object]:
    chatbot, weaknesses = write_inputs(tmp_path)
    data = yaml.safe_load(weaknesses.read_text())
    data["weaknesses"] = [w for w in data["weaknesses"] if w["id"] in KEPT]
    weaknesses.write_text(yaml.safe_dump(data, sort_keys=False))
    return {"chatbot": str(chatbot), "weaknesses": str(weaknesses), "model": "scripted",
            "rounds": 3, "concurrency": 1}  # fmt: skip


def test_a_stopped_adversarial_run_resumes_to_the_same_trajectories(tmp_path: Path) -> None:
    settings = _inputs(tmp_path)
    whole = start(AdversarialTestJob(ScriptedModel(responder)), settings, tmp_path / "whole")
    assert whole.status is JobStatus.FINISHED and whole.outcome.verdict == "pass"

    stopper = StopAfter(items=1)
    job = AdversarialTestJob(ScriptedModel(responder))
    stopped = start(job, settings, tmp_path / "run", on_event=stopper, stop=stopper.stop)
    assert stopped.status is JobStatus.STOPPED and stopped.outcome.exit_code == 3
    assert not stopped.result.result.complete and stopped.result.result.analysis is None
    assert RunStore.open(tmp_path / "run").manifest.status is JobStatus.STOPPED

    again = resume(tmp_path / "run", job=AdversarialTestJob(ScriptedModel(responder)))
    assert again.status is JobStatus.FINISHED and again.result.result.complete
    for weakness in KEPT:
        assert again.result.result.trajectory(weakness) == whole.result.result.trajectory(weakness)
    assert len(again.result.result.tests) == len(whole.result.result.tests)
    assert again.outcome == whole.outcome
