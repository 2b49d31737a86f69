"""The ``run`` job: explore → generate profiles → simulate → check → coverage → report.

The one place that chains stages (like the CLI, it sits above them and uses only their
public APIs), as one job on the runner (``RunJob``). Layout of ``out``::

    out/                      the run (manifest job ``run``: status, outcome), with the
                              simulated conversations, summary, verdicts/, report/ — plus:
      exploration/            the explore run (its own manifest and exploration conversations)
      explore/model.json      the model, graph, profiles and rules the run was tested with
      explore/profiles/
      explore/rules/          generated rules (ids handed out are unique; with a model: stays
                              on the explored topics)
      results/coverage.json   which functionalities, parameters and options were completed
      results/definition_coverage.json  with --project: intents, form slots, responses, flows

Runs written before 0.3 hold a ``simulate`` manifest at the root and the coverage files
at the root (still read: ``job_result_file``). The verdict is ``check``'s (0 pass, 1 fail),
except that a run which tested nothing beyond the greeting — the exploration found fewer
than two functionalities beyond it, or no conversation completed one
(``Coverage.untested``) — is **NO VERDICT** (exit 3) whatever the rules said. When the
exploration found nothing to write a profile for, no conversation is simulated: the
coverage is written into the run and into the explore run (``out/exploration``), and the
verdict is NO VERDICT.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import yaml
from pydantic import Field

from sparring.check import DEFAULT_RULES, CheckJob, CheckResult, CheckSettings, load_rules
from sparring.connectors import ChatbotUnreachable
from sparring.conversations import RunStore, Slot, is_run_directory
from sparring.errors import UserInputError
from sparring.explore import (
    COVERAGE,
    DEFINITION_COVERAGE,
    Coverage,
    DefinitionCoverage,
    ExplorationModel,
    ExplorationResult,
    ExploreJob,
    ExploreSettings,
    coverage,
    definition_coverage,
    read_definition,
)
from sparring.jobs import (
    JOBS,
    Job,
    JobContext,
    JobEvent,
    JobSettings,
    ModelNeed,
    Needs,
    Outcome,
)
from sparring.jobs import outcome as outcomes
from sparring.jobs.events import ItemDone, Planned
from sparring.simulate import SimulateJob, SimulateSettings, SimulationResult

EXPLORATION = "exploration"
"""The explore run's folder inside a ``run``'s directory."""


_EXPLORE = ExploreSettings.model_fields
"""The settings ``run`` hands to ``explore``, described there."""


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

    chatbot: Path = Field(description=_EXPLORE["chatbot"].description)
    model: str | None = Field(None, description=_EXPLORE["model"].description)
    profile_model: str | None = Field(None, description=_EXPLORE["profile_model"].description)
    model_base_url: str | None = Field(None, description=_EXPLORE["model_base_url"].description)
    cache: bool = Field(False, description=_EXPLORE["cache"].description)
    sessions: int = Field(12, ge=1, description=_EXPLORE["sessions"].description)
    turns: int = Field(12, ge=1, description="Most user turns per exploration.")
    seed: int = Field(0, description="Seed for every choice.")
    concurrency: int = Field(4, ge=1, description="Conversations at once.")
    max_turns: int = Field(20, ge=1, description="Most user turns per simulated conversation.")
    rules: list[Path] = Field(
        default_factory=list, description="Extra rule files or folders (repeat)."
    )
    project: Path | None = Field(None, description=_EXPLORE["project"].description)
    docs: Path | None = Field(None, description=_EXPLORE["docs"].description)


@dataclass
class PipelineResult:
    """Each stage's result, the coverage, the report's path (``None`` when it could not
    be written) and the exit code a CI gate reads (as ``check``: 0 pass, 1 failures, 3 no
    verdict — also when the run tested nothing beyond the greeting, see ``untested``).
    ``exploration`` is ``None`` for a run stopped before its exploration began."""

    path: Path
    exploration: ExplorationResult | None
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


class RunJob(Job[RunSettings, PipelineResult]):
    """The ``run`` job on the runner (``sparring.runner.start("run", …)``): its run is
    ``out`` (manifest job ``run``), the exploration a run of its own in ``out/exploration``,
    the simulate and check stages write into ``out`` (``JobContext.nested``). Events are
    the stages' (``StageChanged`` explore, simulate, check, coverage; each stage's
    ``Planned``/``ItemDone``). A stop request ends the stage running (explore: after the
    session, simulate: after the conversations running, check: after the rule) and what
    finished is kept; ``sparring.runner.resume(out)`` resumes the exploration (its sessions
    played again from their records), simulates only the conversations missing, and
    checks again. The runner loads the chatbot and the model once (the simulate and
    check stages use them), probes the chatbot and writes the report (``needs``)."""

    name: ClassVar[str] = "run"
    settings_type: ClassVar[type[RunSettings]] = RunSettings
    creates_run: ClassVar[bool] = True
    needs: ClassVar[Needs] = Needs(chatbot=True, model=ModelNeed.OPTIONAL, report=True)

    def load_inputs(self, settings: RunSettings) -> None:
        """Read and check the rules (with ``check.DEFAULT_RULES``), the bot's definition
        and its help pages; the runner calls it before the chatbot is loaded or probed.
        Raises ``ConfigError``/``UserInputError`` with file, line and key."""
        load_rules([DEFAULT_RULES, *settings.rules])
        ExploreJob().load_inputs(_explore_settings(settings))

    async def execute(self, settings: RunSettings, ctx: JobContext) -> PipelineResult:
        """Test the chatbot end to end (see the module docstring). Raises what the stages
        raise before anything is written (``UserInputError``, ``ConfigError``,
        ``ChatbotUnreachable``), and ``ChatbotUnreachable`` when the chatbot failed in
        most exploration conversations. An exploration that found nothing to test is no
        error: the result says why (``untested``, NO VERDICT)."""
        return await _run(settings, ctx)

    def outcome(self, result: PipelineResult) -> Outcome:
        """The checks' outcome, or NO VERDICT when nothing beyond the greeting was tested
        (``PipelineResult.outcome``)."""
        return result.outcome


JOBS.register(RunJob.name, RunJob())


async def _run(settings: RunSettings, ctx: JobContext) -> PipelineResult:
    if not ctx.resuming:
        assert ctx.out is not None
        if is_run_directory(ctx.out) or (ctx.out / EXPLORATION).exists():
            raise UserInputError(f"{ctx.out} already holds a run; pick another --out")
    store = ctx.open_run(settings.model_copy(update={"chatbot": settings.chatbot.resolve()}))
    root = store.path
    ctx.stage("explore")
    explored = await _explore(settings, ctx, root / EXPLORATION)
    if explored is None or ctx.stop.requested:
        return _stopped(root, explored)
    if not explored.health.healthy:
        health = explored.health
        raise ChatbotUnreachable(f"during exploration, {health.problem}: {health.cause}")
    tested = _keep_exploration(explored, root)
    profiles = sorted((tested / "profiles").glob("*.yaml"))
    if not profiles:
        return _nothing_to_simulate(root, store, explored)
    ctx.stage("simulate")
    simulation = await SimulateJob().execute(_simulate_settings(settings, tested), ctx.nested())
    if ctx.stop.requested:
        return _stopped(root, explored, simulation)
    ctx.stage("check")
    rules = [DEFAULT_RULES, *_generated_rules(explored.model, settings, tested), *settings.rules]
    check = CheckSettings(
        rules=rules,
        run=root,
        model=settings.model,
        model_base_url=settings.model_base_url,
        cache=settings.cache,
    )
    checked = await CheckJob(run_written=True).execute(check, ctx.nested())
    ctx.stage("coverage")
    measured = coverage(explored.model, store.iter_records())
    store.write_result(Slot.RESULTS, COVERAGE, measured)
    against = None
    if settings.project is not None:
        against = definition_coverage(read_definition(settings.project), store.iter_records())
        store.write_result(Slot.RESULTS, DEFINITION_COVERAGE, against)
    decided = (
        outcomes.no_verdict(measured.untested, f"the checks: {checked.outcome.status}")
        if measured.untested
        else checked.outcome
    )
    return PipelineResult(root, explored, simulation, checked, measured, None, decided, against)


async def _explore(
    settings: RunSettings, ctx: JobContext, folder: Path
) -> ExplorationResult | None:
    """The exploration as a run of its own in ``folder``: started, or resumed when a
    resumed ``run`` holds one (stored sessions played again, the rest explored); ``None``
    when a stop came before it began (while the runner prepared it)."""

    def forward(event: JobEvent) -> None:
        if isinstance(event, Planned | ItemDone):
            ctx.emit(event)

    job = ExploreJob()
    if is_run_directory(folder):
        run = await ctx.resume_job(folder, job, on_event=forward, stop=ctx.stop)
    else:
        run = await ctx.run_job(job, _explore_settings(settings), folder,
                                on_event=forward, stop=ctx.stop)  # fmt: skip
    return run.result if run.has_result else None


def _stopped(
    root: Path, explored: ExplorationResult | None, simulation: SimulationResult | None = None
) -> PipelineResult:
    """What a stopped ``run`` holds (the runner makes its outcome *incomplete*)."""
    decided = outcomes.incomplete("stopped before the checks")
    return PipelineResult(root, explored, simulation, None, None, None, decided)


def _nothing_to_simulate(
    root: Path, store: RunStore, explored: ExplorationResult
) -> PipelineResult:
    """No profile to simulate: the coverage (nothing covered, why) goes into the run and
    the explore run, and the verdict is NO VERDICT — stored in both manifests, so the
    explore run's report and page read the same verdict as the run (one stored verdict)."""
    measured = coverage(explored.model, [])
    store.write_result(Slot.RESULTS, COVERAGE, measured)
    explored.store.write_result(Slot.RESULTS, COVERAGE, measured)
    decided = outcomes.no_verdict(measured.untested or "no profile to simulate")
    explored.store.manifest = explored.store.manifest.model_copy(update={"outcome": decided})
    explored.store.save_manifest()
    return PipelineResult(root, explored, None, None, measured, None, decided)


def _simulate_settings(settings: RunSettings, tested: Path) -> SimulateSettings:
    return SimulateSettings(
        profiles=[tested / "profiles"],
        chatbot=settings.chatbot,
        model=settings.model,
        model_base_url=settings.model_base_url,
        cache=settings.cache,
        concurrency=settings.concurrency,
        seed=settings.seed,
        max_turns=settings.max_turns,
        probe=False,
    )


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
        probe=False,  # the run probed the chatbot
    )


def _keep_exploration(explored: ExplorationResult, root: Path) -> Path:
    """Copy the explore slot (model, graph, profiles) into the tested run's own
    ``explore/`` slot, so that run says what it was tested against."""
    source = explored.store.path / Slot.EXPLORE.value
    target = root / Slot.EXPLORE.value
    shutil.copytree(source, target, dirs_exist_ok=True)
    return target


def _generated_rules(model: ExplorationModel, settings: RunSettings, tested: Path) -> list[Path]:
    """The rules written from the exploration into ``tested/rules``: each generated
    profile's task reaches the bot's confirmation or answer (``task_completed``, check's
    ``task_steps_missing``: else the failure names the step that did not; a value in the
    chatbot's own words that it refused, explore's ``Parameter.stated``, is its fault);
    a question for a time or an amount gets a reply that carries one or speaks of it
    (``answers_carry_the_asked_type``, check's ``answer_type_missing``: the expected type
    comes from the question's words, not the explored outputs, which a bot answering the
    wrong text gives the exploration too);
    each identifier the bot hands out at the end of a task
    (``ExplorationModel.transaction_ids``, named as the generated profiles name the output)
    is unique across the conversations; with a model, the bot stays on the explored topics
    (SENSEI-check's ``only_talks_about``, LLM only)."""
    stated = sorted({v for f in model.functionalities for p in f.parameters for v in p.stated})
    steps = f"task_steps_missing({stated!r})" if stated else "task_steps_missing()"
    rules: list[dict[str, object]] = [
        {
            "name": "task_completed",
            "description": (
                "Each generated profile's task reaches the chatbot's confirmation or answer; "
                "a failure names the step that did not happen"
            ),
            "active": True,
            "conversations": 1,
            "oracle": f"not {steps}",
            "yields": f'"; ".join({steps})',
        }
    ]
    rules.append(
        {
            "name": "answers_carry_the_asked_type",
            "description": (
                "A question for a time of day or an amount of money gets a reply that carries "
                "one, or at least speaks of what was asked"
            ),
            "active": True,
            "conversations": 1,
            "oracle": "not answer_type_missing()",
            "yields": '"; ".join(answer_type_missing())',
        }
    )
    rules += [
        {
            "name": f"unique_{name}",
            "description": f"Every task gets its own {name.replace('_', ' ')}",
            "active": True,
            "conversations": "all",
            "oracle": f"is_unique({name!r})",
        }
        for name in model.transaction_ids()
    ]
    if settings.model and model.functionalities:
        topics = sorted({f.category or f.name for f in model.functionalities})
        rules.append(
            {
                "name": "stays_on_explored_topics",
                "description": "The chatbot keeps to the topics the exploration found",
                "active": True,
                "conversations": 1,
                "oracle": f"only_talks_about({topics!r})",
            }
        )
    if not rules:
        return []
    folder = tested / "rules"
    folder.mkdir(parents=True, exist_ok=True)
    for rule in rules:
        path = folder / f"{rule['name']}.yaml"
        path.write_text(yaml.safe_dump(rule, sort_keys=False), encoding="utf-8")
    return [folder]
