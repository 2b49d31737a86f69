"""The ``run`` job: explore → generate profiles → simulate → check → coverage → report.

The one place that chains stages (like the CLI, it sits above them and uses only their
public APIs). Layout of ``out``::

    out/                      the simulate run of the generated profiles (manifest, conversations,
      exploration/            summary, verdicts/, report/) — plus:
      explore/model.json      the explore run (its own manifest and exploration conversations)
      explore/profiles/       the model, graph, profiles and rules the run was tested with
      explore/rules/          generated rules (with a model: stays on the explored topics)
      coverage.json           which functionalities, parameters and options were completed
      definition_coverage.json  with --project: intents, form slots, responses, flows reached

The verdict is ``check``'s (0 pass, 1 fail), except that a run which tested nothing beyond
the greeting — the exploration found fewer than two functionalities beyond it, or no
conversation completed one (``Coverage.untested``) — is **NO VERDICT** (exit 3) whatever
the rules said. When the exploration found nothing to write a profile for, no
conversation is simulated: ``coverage.json`` and the report are written into the explore
run (``out/exploration``) and the verdict is NO VERDICT.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import yaml
from pydantic import Field

from sparring.check import DEFAULT_RULES, CheckResult, CheckSettings, check_job_async
from sparring.connectors import ChatbotUnreachable
from sparring.conversations import Slot, write_job_result
from sparring.errors import UserInputError
from sparring.explore import (
    COVERAGE,
    DEFINITION_COVERAGE,
    Coverage,
    DefinitionCoverage,
    ExplorationModel,
    ExplorationResult,
    ExploreSettings,
    coverage,
    definition_coverage,
    explore_job_async,
    read_definition,
)
from sparring.jobs import JobSettings, Outcome, new_run_dir, run_blocking
from sparring.jobs import outcome as outcomes
from sparring.simulate import SimulateSettings, SimulationResult, simulate_job_async

"""The exit code of a run that concluded nothing (``check``'s NO VERDICT)."""
EXPLORATION = "exploration"
"""The explore run's folder inside a ``run``'s directory."""


class RunSettings(JobSettings):
    """Settings of the ``run`` job: what ``explore``, ``simulate`` and ``check`` get.

    ``sessions``/``turns`` bound the exploration; ``model`` serves every model-backed step
    (``None``: offline strategies everywhere); ``rules`` are extra rule files or folders
    checked beside the default rule set; ``concurrency`` conversations at once;
    ``max_turns`` caps a simulated conversation's user turns; ``project`` (the bot's
    definition) and ``docs`` (its help pages) seed the exploration, and with ``project``
    ``definition_coverage.json`` says which intents, form slots, responses and flows the
    conversations reached.
    """

    job: ClassVar[str] = "run"

    chatbot: Path
    model: str | None = None
    profile_model: str | None = None
    model_base_url: str | None = None
    cache: bool = False
    sessions: int = Field(12, ge=1)
    turns: int = Field(12, ge=1)
    seed: int = 0
    concurrency: int = Field(4, ge=1)
    max_turns: int = Field(20, ge=1)
    rules: list[Path] = Field(default_factory=list)
    project: Path | None = None
    docs: Path | None = None


@dataclass
class PipelineResult:
    """Each stage's result, the coverage, the report's path (``None`` when it could not
    be written) and the exit code a CI gate reads (as ``check``: 0 pass, 1 failures, 3 no
    verdict — also when the run tested nothing beyond the greeting, see ``untested``)."""

    path: Path
    exploration: ExplorationResult
    simulation: SimulationResult | None
    check: CheckResult | None
    coverage: Coverage | None
    report: Path | None
    outcome: Outcome
    definition: DefinitionCoverage | None = None

    @property
    def exit_code(self) -> int:
        """The outcome's exit code (0 pass, 1 failures, 3 no verdict)."""
        return self.outcome.exit_code

    @property
    def untested(self) -> str | None:
        """Why the run tested nothing beyond the greeting, with the next step; ``None``
        when it tested something."""
        return self.coverage.untested if self.coverage is not None else None


Stage = Callable[[str], None]
"""Told the name of each stage as it starts (``explore``, ``simulate``, ``check``, …)."""
WriteReport = Callable[[Path], Path]


async def run_job_async(
    settings: RunSettings,
    out: Path | str | None = None,
    *,
    on_stage: Stage | None = None,
    write_report: WriteReport | None = None,
) -> PipelineResult:
    """Test the chatbot of ``settings`` end to end into ``out`` (default ``runs/<time>``).

    Raises what the stages raise before they write anything (``UserInputError``,
    ``ConfigError``, ``ChatbotUnreachable``), and ``ChatbotUnreachable`` when the chatbot
    failed in most exploration conversations. An exploration that found nothing to test is
    no error: the result says why (``untested``, exit code 3). ``write_report(run_dir) ->
    path`` writes the HTML report.
    """
    stage = on_stage or (lambda name: None)
    root = Path(out) if out is not None else new_run_dir()
    if (root / "manifest.json").exists() or (root / EXPLORATION).exists():
        raise UserInputError(f"{root} already holds a run; pick another --out")
    stage("explore")
    explored = await explore_job_async(_explore_settings(settings), root / EXPLORATION)
    if not explored.health.healthy:
        health = explored.health
        raise ChatbotUnreachable(f"during exploration, {health.problem}: {health.cause}")
    profiles = sorted(explored.store.explore_profiles_dir.glob("*.yaml"))
    if not profiles:
        return _nothing_to_simulate(root, explored, stage, write_report)
    tested = _keep_exploration(explored, root)
    stage("simulate")
    simulation = await simulate_job_async(
        SimulateSettings(
            profiles=[tested / "profiles"],
            chatbot=settings.chatbot,
            model=settings.model,
            model_base_url=settings.model_base_url,
            cache=settings.cache,
            concurrency=settings.concurrency,
            seed=settings.seed,
            max_turns=settings.max_turns,
            probe=False,
        ),
        root,
    )
    stage("check")
    rules = [DEFAULT_RULES, *_generated_rules(explored.model, settings, tested), *settings.rules]
    checked = await check_job_async(
        CheckSettings(
            rules=rules,
            run=root,
            model=settings.model,
            model_base_url=settings.model_base_url,
            cache=settings.cache,
        )
    )
    stage("coverage")
    measured = coverage(explored.model, simulation.store.iter_records())
    write_job_result(root, COVERAGE, measured)
    against = None
    if settings.project is not None:
        against = definition_coverage(
            read_definition(settings.project), simulation.store.iter_records()
        )
        write_job_result(root, DEFINITION_COVERAGE, against)
    report = None
    if write_report is not None:
        stage("report")
        report = write_report(root)
    decided = (
        outcomes.no_verdict(measured.untested, f"the checks: {checked.outcome.status}")
        if measured.untested
        else checked.outcome
    )
    return PipelineResult(root, explored, simulation, checked, measured, report, decided, against)


def _nothing_to_simulate(
    root: Path, explored: ExplorationResult, stage: Stage, write_report: WriteReport | None
) -> PipelineResult:
    """No profile to simulate: the coverage (nothing covered, why) and the report go into
    the explore run, and the verdict is NO VERDICT."""
    measured = coverage(explored.model, [])
    write_job_result(explored.store.path, COVERAGE, measured)
    report = None
    if write_report is not None:
        stage("report")
        report = write_report(explored.store.path)
    decided = outcomes.no_verdict(measured.untested or "no profile to simulate")
    return PipelineResult(root, explored, None, None, measured, report, decided)


def run_job(
    settings: RunSettings,
    out: Path | str | None = None,
    *,
    on_stage: Stage | None = None,
    write_report: WriteReport | None = None,
) -> PipelineResult:
    """``run_job_async`` for synchronous callers."""
    return run_blocking(run_job_async(settings, out, on_stage=on_stage, write_report=write_report))


def _explore_settings(settings: RunSettings) -> ExploreSettings:
    return ExploreSettings(
        chatbot=settings.chatbot,
        sessions=settings.sessions,
        turns=settings.turns,
        model=settings.model,
        profile_model=settings.profile_model,
        model_base_url=settings.model_base_url,
        cache=settings.cache,
        seed=settings.seed,
        project=settings.project,
        docs=settings.docs,
    )


def _keep_exploration(explored: ExplorationResult, root: Path) -> Path:
    """Copy the explore slot (model, graph, profiles) into the tested run's own
    ``explore/`` slot, so that run says what it was tested against."""
    source = explored.store.path / Slot.EXPLORE.value
    target = root / Slot.EXPLORE.value
    shutil.copytree(source, target, dirs_exist_ok=True)
    return target


def _generated_rules(model: ExplorationModel, settings: RunSettings, tested: Path) -> list[Path]:
    """With a model, a rule that the bot stays on the explored topics (SENSEI-check's
    ``only_talks_about``, LLM only); none offline."""
    if not settings.model or not model.functionalities:
        return []
    topics = sorted({f.category or f.name for f in model.functionalities})
    rule = {
        "name": "stays_on_explored_topics",
        "description": "The chatbot keeps to the topics the exploration found",
        "active": True,
        "conversations": 1,
        "oracle": f"only_talks_about({topics!r})",
    }
    folder = tested / "rules"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "stays_on_explored_topics.yaml"
    path.write_text(yaml.safe_dump(rule, sort_keys=False), encoding="utf-8")
    return [folder]
