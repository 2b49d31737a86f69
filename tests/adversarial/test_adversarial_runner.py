"""``adversarial test`` on the runner (scripted model, in-test bot): stopped after its first
test, resumed from the run's manifest, it gives the uninterrupted run's trajectories."""

from __future__ import annotations

from pathlib import Path

import yaml

from sparring.adversarial import AdversarialTestJob
from sparring.conversations import RunStore, incomplete_run
from sparring.jobs import JobStatus
from sparring.llm import ScriptedModel
from sparring.report import RunView
from sparring.runner import resume, start
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


def test_the_report_reads_the_verdict_the_runner_stored(tmp_path: Path) -> None:
    """Issue 35: a finished adversarial run was PASS in its manifest and the CLI but FAILED
    on its report and run page (they decided again from the records' generic failures) and
    "incomplete" (threads that end early by design left planned rounds unwritten)."""
    chatbot, weaknesses = write_inputs(tmp_path)  # every weakness: threads that end early
    settings = {"chatbot": str(chatbot), "weaknesses": str(weaknesses), "model": "scripted",
                "rounds": 3, "concurrency": 1}  # fmt: skip
    run = start(AdversarialTestJob(ScriptedModel(responder)), settings, tmp_path / "run")
    assert run.status is JobStatus.FINISHED and run.outcome.verdict == "pass"
    store = RunStore.open(tmp_path / "run")
    assert store.manifest.outcome == run.outcome
    ran = {t.conversation_id for t in run.result.result.tests if t.conversation_id}
    assert len(ran) < 3 * len(run.result.result.weaknesses)  # some threads ended early
    assert set(store.manifest.planned) == ran and incomplete_run(store.path) is None
    verdict = RunView.open(store.path).verdict
    assert verdict.status == "passed" and verdict.reasons == run.outcome.reasons
    assert run.report is not None
    html = run.report.read_text()
    assert "status-passed" in html and "incomplete" not in html.lower()
