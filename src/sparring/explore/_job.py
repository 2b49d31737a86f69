"""The ``explore`` job: chatbot.yaml → a run with the exploration conversations, the
functionality model (``explore/model.json``), its workflow graph and generated profiles.

Order of work, so that nothing is spent on a bot that is down and nothing learnt is lost:
reachability probe (``ChatbotUnreachable`` before any model call or file), run directory,
offline probing (greeting, fallback, languages), the strategy (the offline crawler, or the
TRACER sessions with a model), the model saved after every session and again when the
job is interrupted or a model call fails (``complete: false`` with a note), then the graph
and the profiles. When the chatbot failed in the exploration conversations (most got no
answer, or all failed: ``conversations.assess_run``), the model is marked incomplete with
a note and ``ExplorationResult.health`` says so: ``explore`` then exits 1 and ``run`` stops.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from pydantic import Field

from sparring.connectors import ChatbotConfig, create_connector
from sparring.conversations import RunHealth, RunStore, Slot, assess_run
from sparring.explore._build import build_model
from sparring.explore._crawl import Crawl, Crawler
from sparring.explore._graph import GraphFormat, GraphvizMissing, render_graph
from sparring.explore._model import ExplorationModel
from sparring.explore._probing import probe_chatbot
from sparring.explore._profiles import GeneratedProfile, write_profiles
from sparring.explore._profiles_llm import generate_profiles
from sparring.explore._project import Definition, read_definition
from sparring.explore._seeds import definition_seeds, docs_seeds, seed_notes
from sparring.explore._session import ExplorationContext
from sparring.explore._tracer import explore_with_model
from sparring.jobs import (
    JOBS,
    Job,
    JobContext,
    JobSettings,
    ModelNeed,
    Needs,
    Outcome,
    job_inputs,
)
from sparring.jobs import outcome as outcomes
from sparring.llm import CACHE_HELP, MODEL_BASE_URL_HELP, MODEL_HELP
from sparring.types import TextModel

logger = logging.getLogger(__name__)

DEFAULT_FORMATS: tuple[GraphFormat, ...] = ("svg", "png")
GRAPH_NAME = "workflow"
"""The workflow graph's file stem in the ``explore`` slot."""


class ExploreSettings(JobSettings):
    """Settings of the ``explore`` job (stored in the run's manifest).

    ``chatbot`` is the chatbot.yaml; ``sessions`` the most exploration conversations and
    ``turns`` the most user turns in each; ``model`` a model spec for the TRACER strategy
    (``None``: the offline crawler); ``profile_model`` the model that writes profiles
    (default: ``model``); ``graph_formats``, ``compact`` and ``top_down`` shape the
    workflow graph (TRACER's ``--graph-format``, ``--compact``, ``--top-down``);
    ``nested_forward`` chains dependent variables with ``forward`` (TRACER's
    ``--nested-forward``); ``profiles`` turns profile generation off when false;
    ``project`` the bot's definition (Rasa, Taskyto, AIML) and ``docs`` its help pages,
    which seed the offline exploration (``sessions`` is raised to one per seed plus the
    probes, so every seed is tried).
    """

    job: ClassVar[str] = "explore"

    chatbot: Path = Field(description="chatbot.yaml of the chatbot under test.")
    sessions: int = Field(12, ge=1, description="Most exploration conversations.")
    turns: int = Field(12, ge=1, description="Most user turns per conversation.")
    model: str | None = Field(None, description=MODEL_HELP)
    profile_model: str | None = Field(
        None, description="Model that writes the profiles (default: --model)."
    )
    model_base_url: str | None = Field(None, description=MODEL_BASE_URL_HELP)
    cache: bool = Field(False, description=CACHE_HELP)
    seed: int = Field(0, description="Seed for choices and generated values.")
    graph_formats: list[GraphFormat] = Field(
        default_factory=lambda: list(DEFAULT_FORMATS),
        description="Workflow graph formats: svg, png, pdf (repeat).",
    )
    compact: bool = Field(False, description="Graph nodes show names only.")
    top_down: bool = Field(False, description="Draw the graph top-down.")
    nested_forward: bool = Field(
        False, description="Chain dependent profile variables with forward()."
    )
    profiles: bool = Field(True, description="Generate test profiles.")
    probe: bool = Field(True, description="Check the chatbot answers before starting.")
    project: Path | None = Field(
        None, description="The bot's definition (Rasa 1.x/3.x, Taskyto, AIML) to seed exploration."
    )
    docs: Path | None = Field(
        None, description="FAQ or help pages (txt, md, html) to seed capability probes."
    )


@dataclass
class ExplorationResult:
    """What an ``explore`` job did: the run's store, the model (also in
    ``explore/model.json``), the files written (graph, profiles), the generated profiles
    and problems met on the way (no Graphviz, profiles that did not validate); ``health``
    whether the chatbot answered the exploration conversations."""

    store: RunStore
    model: ExplorationModel
    health: RunHealth = field(default_factory=lambda: assess_run([]))
    files: list[Path] = field(default_factory=list)
    profiles: list[GeneratedProfile] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


OnSession = Callable[[ExplorationModel], None]


@dataclass(frozen=True)
class ExploreInputs:
    """What an exploration reads before any work: the bot's definition (``None``: no
    ``project``) and the seeds (kind, utterance) from it and from the help pages."""

    definition: Definition | None
    seeds: list[tuple[str, str]]


def read_inputs(project: Path | None, docs: Path | None) -> ExploreInputs:
    """The definition in ``project`` and the seeds from it and the help pages in ``docs``
    (either may be ``None``). Raises ``UserInputError``/``ConfigError`` for a bad
    definition or help page."""
    definition = read_definition(project) if project else None
    seeds = definition_seeds(definition) if definition else []
    seeds += docs_seeds(docs) if docs else []
    return ExploreInputs(definition, seeds)


class ExploreJob(Job[ExploreSettings, ExplorationResult]):
    """The ``explore`` job on the runner (``sparring.runner.start("explore", …)``): one item
    per exploration session; a stop request starts no new session and keeps the model
    learnt so far (``complete: false``). ``sparring.runner.resume(run)`` plays the stored
    sessions again from their records (``_replay``: the chatbot is not asked again) and
    explores on from there. ``model`` and ``profile_model``, when given, are used instead
    of the ones the settings name (a model built in Python, e.g. a ``ScriptedModel``);
    ``on_session`` sees the model after every session."""

    name: ClassVar[str] = "explore"
    settings_type: ClassVar[type[ExploreSettings]] = ExploreSettings
    creates_run: ClassVar[bool] = True
    needs: ClassVar[Needs] = Needs(
        chatbot=True,
        model=ModelNeed.OPTIONAL,
        models=("model", "profile_model"),
        report=True,
    )

    def __init__(
        self,
        model: TextModel | None = None,
        profile_model: TextModel | None = None,
        on_session: OnSession | None = None,
    ) -> None:
        self.model = model
        self.profile_model = profile_model
        self.on_session = on_session

    def load_inputs(self, settings: ExploreSettings) -> ExploreInputs:
        """Read the bot's definition (``project``) and help pages (``docs``) into seeds;
        the runner calls it before the chatbot is loaded or probed. Raises
        ``UserInputError``/``ConfigError`` for a bad definition or help page."""
        return read_inputs(settings.project, settings.docs)

    async def execute(self, settings: ExploreSettings, ctx: JobContext) -> ExplorationResult:
        """Open (or reopen) the run and explore (the runner read the definition and help
        pages, loaded the chatbot and the models and probed the chatbot)."""
        return await _explore_job(settings, ctx, self)

    def outcome(self, result: ExplorationResult) -> Outcome:
        """``error`` when the chatbot failed in the exploration conversations (exit 1),
        else ``recorded`` (exit 0): the exploration ran and judged nothing (how much it
        found is in the model), so it is never shown as a pass."""
        health = result.health
        if not health.healthy:
            cause = [f"cause: {health.cause}"] if health.cause else []
            return outcomes.error(f"the chatbot failed: {health.problem}", *cause)
        found = len(result.model.functionalities)
        return outcomes.recorded(f"{found} functionalit{'y' if found == 1 else 'ies'} explored")


JOBS.register(ExploreJob.name, ExploreJob())


async def _explore_job(
    settings: ExploreSettings, ctx: JobContext, job: ExploreJob
) -> ExplorationResult:
    config, model = ctx.chatbot, ctx.model
    writer = ctx.models.get("profile_model") or model
    inputs = job_inputs(ctx, job.load_inputs, settings)
    definition, seeds = inputs.definition, list(inputs.seeds)
    store = ctx.open_run(settings.model_copy(update={"chatbot": settings.chatbot.resolve()}))
    replays = {r.id: r for r in store.iter_records()} if ctx.resuming else {}
    connector = create_connector(config)

    def checkpoint(partial: ExplorationModel) -> None:
        save_model(store, partial)
        if job.on_session is not None:
            job.on_session(partial)

    sessions = settings.sessions + len(seeds)
    explore = ExplorationContext(
        connector=connector,
        store=store,
        info=config.info,
        sessions=sessions,
        turns=settings.turns,
        seed=settings.seed,
        checkpoint=checkpoint,
        seeds=seeds,
        values_for=definition.values_for if definition else (lambda question: []),
        replays=replays,
        stopping=lambda: ctx.stop.requested,
        ended=lambda record_id, ok: ctx.item_done(record_id, ok),
    )
    ctx.stage("explore")
    ctx.planned(sessions + 1)  # at most: the probing session and the sessions
    try:
        explored = await _explore(explore, model, config)
    finally:
        await connector.aclose()
    if definition is not None:
        explored.synonyms = dict(definition.synonyms)
    return await _finish(settings, ctx, store, explored, explore, seeds, writer)


async def _finish(
    settings: ExploreSettings,
    ctx: JobContext,
    store: RunStore,
    explored: ExplorationModel,
    explore: ExplorationContext,
    seeds: list[tuple[str, str]],
    writer: TextModel | None,
) -> ExplorationResult:
    """The model saved with its notes and the run's health, then (unless stopped) the
    graph and the profiles."""
    explored.greeting = explored.greeting or explore.findings.greeting
    explored.notes += seed_notes(explored, seeds)
    health = assess_run(store.iter_records())
    if not health.healthy:
        explored.complete = False
        explored.notes.append(f"the chatbot failed: {health.problem}; cause: {health.cause}")
    if ctx.stop.requested:
        explored.complete = False
        explored.notes.append(STOPPED_NOTE)
    save_model(store, explored)
    result = ExplorationResult(store, explored, health=health)
    if ctx.stop.requested:
        return result
    ctx.stage("graph")
    result.files.extend(_graph(store, explored, settings, result.problems))
    if settings.profiles and explored.functionalities:
        ctx.stage("profiles")
        result.profiles = await generate_profiles(
            explored, writer, seed=settings.seed, nested_forward=settings.nested_forward
        )
        result.files.extend(write_profiles(result.profiles, store.explore_profiles_dir))
        result.problems.extend(
            f"profile {p.name} does not validate: {'; '.join(p.problems)}"
            for p in result.profiles
            if not p.valid
        )
    return result


STOPPED_NOTE = "stopped on request: the model holds what was explored; resume the run to finish"


def save_model(store: RunStore, model: ExplorationModel) -> Path:
    """Write ``model`` atomically to ``<run>/explore/model.json`` (the run's ``explore``
    slot); return the path."""
    return store.write_result(Slot.EXPLORE, EXPLORE_MODEL_NAME, model)


EXPLORE_MODEL_NAME = "model"
"""The functionality model's name in the ``explore`` slot (``explore/model.json``)."""


async def _explore(
    ctx: ExplorationContext, model: TextModel | None, config: ChatbotConfig
) -> ExplorationModel:
    """Probe, then run the strategy; an interruption saves what was learnt and re-raises."""
    ctx.findings = await probe_chatbot(ctx)
    name = config.info.name or ""
    if model is not None:
        return await explore_with_model(ctx, model)

    def after_session(crawl: Crawl) -> None:
        ctx.checkpoint(build_model(crawl, ctx.findings, name))

    crawler = Crawler(ctx, on_session=after_session)
    try:
        crawl = await crawler.run()
    except (asyncio.CancelledError, KeyboardInterrupt):
        partial = build_model(crawler.crawl, ctx.findings, name)
        partial.complete = False
        partial.notes.append("interrupted: the model holds what was explored until then")
        ctx.checkpoint(partial)
        raise
    return build_model(crawl, ctx.findings, name)


def _graph(
    store: RunStore, model: ExplorationModel, settings: ExploreSettings, problems: list[str]
) -> list[Path]:
    if not model.functionalities:
        return []
    try:
        return render_graph(
            model,
            store.slot(Slot.EXPLORE) / GRAPH_NAME,
            settings.graph_formats,
            compact=settings.compact,
            top_down=settings.top_down,
        )
    except GraphvizMissing as exc:
        problems.append(str(exc))
        return [store.slot(Slot.EXPLORE) / f"{GRAPH_NAME}.dot"]
