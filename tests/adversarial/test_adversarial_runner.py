"""``adversarial test`` on the runner (scripted model, in-test bot): stopped after its first
test, resumed from the run's manifest, it gives the uninterrupted run's trajectories."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from sparring.adversarial import AdversarialTestJob
from sparring.conversations import RunManifest, RunStore, incomplete_run
from sparring.jobs import JobStatus, Outcome
from sparring.llm import ScriptedModel
from sparring.outcome import combine
from sparring.report import RunView
from sparring.runner import JobRun, resume, start
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


def test_a_check_after_the_job_is_stored_in_the_one_verdict(tmp_path: Path) -> None:
    """Issue 35: a check applied to an adversarial run gave its verdict to the CLI and the
    runs list (PASS) while the report combined it with its own reading of the adversarial
    section (NO VERDICT), and the manifest kept the job's. The runner now stores the run's
    verdict once (the job's outcome and every check's, the gravest); every view reads it."""
    run = start(AdversarialTestJob(ScriptedModel(responder)), _inputs(tmp_path), tmp_path / "run")
    assert run.outcome.verdict == "pass"
    checked, manifest = _check(tmp_path, "polite", "not chatbot_returns('stupid')")
    assert checked.outcome.verdict == "pass" and manifest.outcome is not None
    verdict = RunView.open(tmp_path / "run").verdict
    assert verdict.status == "passed" and manifest.outcome.verdict == "pass"
    assert verdict.reasons == [*run.outcome.reasons, *checked.outcome.reasons]
    assert manifest.outcome.reasons == verdict.reasons and manifest.job_outcome == run.outcome
    assert checked.report is not None and "status-passed" in checked.report.read_text()

    failed, manifest = _check(tmp_path, "rude", "chatbot_returns('stupid')")
    assert failed.outcome.verdict == "fail" and manifest.outcome is not None
    assert manifest.outcome.verdict == "fail"
    assert RunView.open(tmp_path / "run").verdict.status == "failed"
    stored = {p.stem for p in (tmp_path / "run" / "verdicts").glob("rules-*.json")}
    assert set(manifest.judged) == stored and len(stored) == 2
    _, manifest = _check(tmp_path, "rude", "chatbot_returns('stupid')")  # replaces its own
    assert set(manifest.judged) == stored and manifest.outcome == _combined(manifest)


def _combined(manifest: RunManifest) -> Outcome | None:
    """The verdict the manifest's parts give (the job's own and each later check's)."""
    own = [manifest.job_outcome] if manifest.job_outcome is not None else []
    return combine([*own, *manifest.judged.values()])


def _check(tmp_path: Path, name: str, oracle: str) -> tuple[JobRun[Any], RunManifest]:
    """Check the run in ``tmp_path/run`` with one rule; the check's run and the manifest."""
    rules = tmp_path / f"{name}.yaml"
    rules.write_text(f"name: {name}\noracle: {oracle}\n")
    checked = start("check", {"rules": [str(rules)], "run": str(tmp_path / "run")})
    return checked, RunStore.open(tmp_path / "run").manifest
