"""What a job needs is declared by the job and done by the runner (issue 25): the chatbot
loaded and probed, the model loaded once, ``ModelRequired`` for a job with no offline
strategy — all before anything is written — and the HTML report after every job that
produces a run (``JobRun.report``), also when started from Python."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any, ClassVar

import pytest

from sparring.connectors import ChatbotUnreachable
from sparring.conversations import RunStore
from sparring.errors import ConfigError, ModelRequired, UserInputError
from sparring.jobs import JobContext, JobSettings, ModelNeed, Needs, Outcome, StopSignal, job_inputs
from sparring.jobs import outcome as outcomes
from sparring.jobs.events import Probed, StageChanged
from sparring.llm import ScriptedModel
from sparring.runner import JOBS, RUNNER, RunContext, start
from tests.jobs.helpers import StopAfter

DATA = Path(__file__).parents[1] / "simulate" / "data"
SETTINGS = {"profiles": [str(DATA / "profiles")], "chatbot": str(DATA / "chatbot.yaml"),
            "concurrency": 1}  # fmt: skip


class NeedySettings(JobSettings):
    job: ClassVar[str] = "needy"
    chatbot: Path
    model: str | None = None
    probe: bool = True


class NeedyJob:
    """A job that needs a chatbot and a model and records what the runner handed it."""

    name = "needy"
    settings_type = NeedySettings
    creates_run = False
    needs = Needs(chatbot=True, model=ModelNeed.REQUIRED, step="needy work", report=True)

    def __init__(self, model: ScriptedModel | None = None) -> None:
        self.model = model  # a model built in code: used instead of the setting's
        self.seen: dict[str, Any] = {}

    async def execute(self, settings: NeedySettings, ctx: JobContext) -> str:
        self.seen = {"chatbot": ctx.chatbot.info.name, "model": ctx.model, "probe": ctx.probe}
        return "done"

    def outcome(self, result: str) -> Outcome:
        return outcomes.passed(result)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_runner_loads_the_chatbot_and_the_model_and_probes_before_the_work() -> None:
    model = ScriptedModel(responses=["hi"])
    job, seen = NeedyJob(model), StopAfter(items=99)
    run = start(job, {"chatbot": DATA / "chatbot.yaml"}, on_event=seen)
    assert run.result == "done" and run.report is None  # it named no run to report on
    assert job.seen["chatbot"] == "Luigi's pizzeria (scripted)" and job.seen["model"] is model
    assert job.seen["probe"] is not None and job.seen["probe"].reachable
    stages = [e.stage for e in seen.events if isinstance(e, StageChanged)]
    assert stages == ["probe"] and any(isinstance(e, Probed) for e in seen.events)


def test_a_job_without_an_offline_strategy_stops_before_anything_without_a_model() -> None:
    job = NeedyJob()
    with pytest.raises(ModelRequired, match=r"needy work needs a language model.*--model"):
        start(job, {"chatbot": "/nonexistent/chatbot.yaml"})  # before the file is read
    assert job.seen == {}


def test_a_bad_model_spec_is_located_at_the_setting(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        start("simulate", {**SETTINGS, "model": "scripted"}, tmp_path / "run")  # no script
    assert [p.key for p in caught.value.problems] == ["model"]
    assert not (tmp_path / "run").exists()


def test_an_unreachable_chatbot_stops_the_job_before_anything_is_written(tmp_path: Path) -> None:
    chatbot = tmp_path / "chatbot.yaml"
    chatbot.write_text(f"connector: rasa\nparams:\n  url: http://127.0.0.1:{_closed_port()}\n")
    for job, settings in (
        ("simulate", {**SETTINGS, "chatbot": str(chatbot)}),
        ("explore", {"chatbot": str(chatbot)}),
        ("adversarial-probe", {"chatbot": str(chatbot), "suites": ["injection"]}),
    ):
        with pytest.raises(ChatbotUnreachable):
            start(job, settings, tmp_path / job)
        assert not (tmp_path / job).exists(), job
    off = start("simulate", {**SETTINGS, "chatbot": str(DATA / "chatbot.yaml"), "probe": False},
                tmp_path / "unprobed", on_event=(seen := StopAfter(items=99)))  # fmt: skip
    assert off.status == "finished" and not any(isinstance(e, Probed) for e in seen.events)


def test_the_runner_describes_the_chatbot_and_writes_the_report(tmp_path: Path) -> None:
    simulated = start("simulate", SETTINGS, tmp_path / "run")
    manifest = RunStore.open(tmp_path / "run").manifest  # the chatbot as the runner loaded it
    assert manifest.chatbot["info"]["name"] == "Luigi's pizzeria (scripted)"
    assert "params" not in manifest.chatbot  # never the connector's params (secrets)
    assert manifest.chatbot_path == str((DATA / "chatbot.yaml").resolve())
    assert simulated.report == tmp_path / "run" / "report" / "index.html"
    assert simulated.report.is_file()
    simulated.report.unlink()
    rules = Path(__file__).parents[2] / "examples" / "pizzeria" / "rules"
    checked = start("check", {"rules": [rules], "run": tmp_path / "run"})
    assert checked.report == tmp_path / "run" / "report" / "index.html"
    assert checked.report.is_file()
    quiet = start("simulate", SETTINGS, tmp_path / "quiet", report=False)
    assert quiet.report is None and not (tmp_path / "quiet" / "report").exists()


BROKEN = "user:\n  language: English\n  goals: [unclosed\n"  # a YAML syntax error on line 3


def _unreachable(folder: Path) -> Path:
    chatbot = folder / "chatbot.yaml"
    chatbot.write_text(f"connector: rasa\nparams:\n  url: http://127.0.0.1:{_closed_port()}\n")
    return chatbot


def _bad_inputs(tmp_path: Path) -> list[tuple[str, dict[str, Any], Path]]:
    """Per job: settings naming one broken input file (and an unreachable chatbot, or a
    model spec that cannot load), and the file the error must name."""
    chatbot, bad = _unreachable(tmp_path), tmp_path / "broken.yaml"
    bad.write_text(BROKEN)
    project = tmp_path / "project"
    (project / "data").mkdir(parents=True)
    (project / "domain.yml").write_text(BROKEN)
    (project / "config.yml").write_text("language: en\n")
    run = tmp_path / "checked"
    start("simulate", SETTINGS, run, report=False)
    unloadable = "scripted"  # a model spec without its script: a ConfigError once loaded
    return [
        ("simulate", {"profiles": [bad], "chatbot": chatbot}, bad),
        ("simulate", {"profiles": [DATA / "profiles"], "personas": [bad], "chatbot": chatbot},
         bad),
        ("explore", {"chatbot": chatbot, "project": project}, project / "domain.yml"),
        ("run", {"chatbot": chatbot, "rules": [bad]}, bad),
        ("metamorphic", {"chatbot": chatbot, "seeds": run, "rules": [bad]}, bad),
        ("adversarial-probe", {"chatbot": chatbot, "suites": [str(bad)]}, bad),
        ("adversarial-test", {"chatbot": chatbot, "weaknesses": bad, "model": unloadable}, bad),
        ("check", {"rules": [bad], "run": run, "model": unloadable}, bad),
        ("evaluate", {"run": run, "taxonomy": bad, "model": unloadable}, bad),
        ("mutate", {"project": project, "kind": "rasa", "profiles": [bad],
                    "rules": [DATA.parents[2] / "examples" / "pizzeria" / "rules"],
                    "model": unloadable}, bad),
    ]  # fmt: skip


def test_bad_input_is_located_before_the_chatbot_is_probed_or_anything_written(
    tmp_path: Path,
) -> None:
    for number, (job, settings, named) in enumerate(_bad_inputs(tmp_path)):
        out = tmp_path / f"out-{number}"
        before = sorted(tmp_path.rglob("*"))
        with pytest.raises(UserInputError) as caught:  # ConfigError is one: exit 2
            start(job, settings, out if JOBS.get(job).creates_run else None)
        assert not isinstance(caught.value, ChatbotUnreachable), job
        assert named.name in str(caught.value), (job, str(caught.value))
        located = [p for p in caught.value.problems if Path(p.file).name == named.name]
        assert located and located[0].line is not None, (job, caught.value.problems)
        assert sorted(tmp_path.rglob("*")) == before, job  # nothing written


def test_the_llm_simulator_without_a_model_is_said_before_the_probe(tmp_path: Path) -> None:
    settings = {**SETTINGS, "chatbot": _unreachable(tmp_path), "simulator": "llm"}
    with pytest.raises(UserInputError, match="needs a model: set --model"):
        start("simulate", settings, tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_the_command_exits_2_with_the_located_error_not_1_unreachable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from sparring.cli import main

    bad = tmp_path / "broken.yaml"
    bad.write_text(BROKEN)
    out = tmp_path / "run"
    argv = ["simulate", str(bad), "--chatbot", str(_unreachable(tmp_path)),
            "--out", str(out)]  # fmt: skip
    monkeypatch.setenv("COLUMNS", "300")
    monkeypatch.setattr("sys.argv", ["sparring", *argv])
    with pytest.raises(SystemExit) as caught:
        main()
    err = capsys.readouterr().err
    assert caught.value.code == 2, err
    assert "broken.yaml" in err and "cannot be reached" not in err, err
    assert not out.exists()


def test_adversarial_plan_reads_its_files_before_the_model_is_loaded(tmp_path: Path) -> None:
    from sparring.adversarial import PlanJob

    answers = tmp_path / "answers.yaml"
    answers.write_text(BROKEN)
    out = tmp_path / "weaknesses.yaml"
    settings = {"chatbot": DATA / "chatbot.yaml", "answers": answers, "model": "scripted",
                "out": out}  # fmt: skip
    with pytest.raises(ConfigError) as caught:  # the answers, not the unloadable model
        start(PlanJob(), settings)
    assert [Path(p.file).name for p in caught.value.problems] == ["answers.yaml"]
    with pytest.raises(ModelRequired, match="--source"):  # offline: the scan or nothing
        start(PlanJob(), {**settings, "answers": None, "model": None})
    with pytest.raises(ConfigError) as caught:
        start(PlanJob(), {**settings, "answers": None})
    assert [p.key for p in caught.value.problems] == ["model"]
    assert sorted(tmp_path.iterdir()) == [answers]  # nothing written


class ReadingSettings(JobSettings):
    job: ClassVar[str] = "reading"
    rules: str


class ReadingJob:
    """A job whose input is read by ``load_inputs``, counting each read."""

    name = "reading"
    settings_type = ReadingSettings
    creates_run = False

    def __init__(self) -> None:
        self.reads = 0

    def load_inputs(self, settings: ReadingSettings) -> tuple[str, int]:
        self.reads += 1
        return settings.rules, self.reads

    async def execute(self, settings: ReadingSettings, ctx: JobContext) -> tuple[str, int]:
        return job_inputs(ctx, self.load_inputs, settings)

    def outcome(self, result: tuple[str, int]) -> Outcome:
        return outcomes.recorded(result[0])


def test_a_jobs_input_is_what_the_runner_read_or_what_a_stage_reads_itself() -> None:
    """``job_inputs``: the input the runner read before any work (read once, not again by
    the job); in a stage given no input (``ctx.inputs`` ``None``, as ``nested()``), the
    job's ``load_inputs`` read then."""
    job = ReadingJob()
    assert start(job, {"rules": "r.yaml"}).result == ("r.yaml", 1) and job.reads == 1
    stage = RunContext(runner=RUNNER, emit=lambda event: None, stop=StopSignal(), out=None)
    assert stage.inputs is None
    assert job_inputs(stage, job.load_inputs, ReadingSettings(rules="s.yaml")) == ("s.yaml", 2)
