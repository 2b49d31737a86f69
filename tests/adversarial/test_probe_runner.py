"""The probe job on the runner: three lines from Python; stopped after its first probe
(status stopped, probes.json not complete), resumed from its manifest to the uninterrupted
run's verdicts; the CLI resumes too."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from sparring.cli import app
from sparring.conversations import RunStore
from sparring.jobs import JobStatus
from sparring.runner import resume, start
from tests.jobs.helpers import StopAfter

FIXTURES = Path(__file__).parent / "probe_fixtures"


def _chatbot(tmp_path: Path) -> Path:
    path = tmp_path / "chatbot.yaml"
    path.write_text(
        f"connector: python\nparams:\n  target: probe_bots:pii_echo\n  path: {FIXTURES}\n"
        "  timeout: 0.5\ninfo:\n  type: task-oriented\n  fallback: 'Hmm, pizza is my only topic.'\n"
    )
    return path


def _verdicts(out: Path) -> list[tuple[str, str]]:
    report = json.loads((out / "results" / "probes.json").read_text())
    return [(v["rule"], v["status"]) for v in report["verdicts"]]


def test_a_stopped_probe_run_resumes_to_the_same_verdicts(tmp_path: Path) -> None:
    settings = {"chatbot": str(_chatbot(tmp_path)), "suites": [str(FIXTURES / "mini.yaml")],
                "concurrency": 1}  # fmt: skip
    whole = start("adversarial-probe", settings, tmp_path / "whole")
    assert whole.status is JobStatus.FINISHED and whole.outcome.verdict == "fail"

    stopper = StopAfter(items=1)
    out = tmp_path / "run"
    stopped = start("adversarial-probe", settings, out, on_event=stopper, stop=stopper.stop)
    assert stopped.status is JobStatus.STOPPED
    assert json.loads((out / "results" / "probes.json").read_text())["complete"] is False
    assert len(RunStore.open(out)) < len(RunStore.open(tmp_path / "whole"))

    resumed = resume(out)
    assert resumed.status is JobStatus.FINISHED and resumed.outcome == whole.outcome
    assert _verdicts(out) == _verdicts(tmp_path / "whole")


def test_the_cli_resumes_a_stopped_probe_run(tmp_path: Path) -> None:
    settings = {"chatbot": str(_chatbot(tmp_path)), "suites": [str(FIXTURES / "mini.yaml")],
                "concurrency": 1}  # fmt: skip
    stopper = StopAfter(items=1)
    start("adversarial-probe", settings, tmp_path / "run", on_event=stopper, stop=stopper.stop)
    result = CliRunner().invoke(app, ["adversarial", "probe", "--resume", str(tmp_path / "run")])
    assert result.exit_code == 1, result.output  # pii_echo fails a probe: FAIL
    report = json.loads((tmp_path / "run" / "results" / "probes.json").read_text())
    assert report["complete"] is True
    assert RunStore.open(tmp_path / "run").manifest.status is JobStatus.FINISHED


def test_the_report_reads_the_verdict_the_job_stored(tmp_path: Path) -> None:
    from sparring.report import RunView

    settings = {"chatbot": str(_chatbot(tmp_path)), "suites": [str(FIXTURES / "mini.yaml")]}
    run = start("adversarial-probe", settings, tmp_path / "run")
    view = RunView.open(tmp_path / "run")
    assert view.verdict.status == "failed"
    assert view.verdict.reasons == [run.outcome.summary]  # the job's words, not the report's
    manifest = tmp_path / "run" / "manifest.json"
    data = json.loads(manifest.read_text())
    data.pop("outcome")  # a run written before 0.3: no stored verdict, none decided again
    manifest.write_text(json.dumps(data))
    old = RunView.open(tmp_path / "run").verdict
    assert old.status == "no verdict" and "sparring check" in old.reasons[0]
