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
from datetime import UTC, datetime
from pathlib import Path
from typing import ClassVar

from pydantic import Field

from sparring import __version__
from sparring.connectors import (
    ChatbotConfig,
    create_connector,
    endpoint_of,
    ensure_reachable,
    load_chatbot_config,
)
from sparring.conversations import (
    RunHealth,
    RunManifest,
    RunStore,
    Slot,
    assess_run,
    atomic_write,
)
from sparring.explore._build import build_model
from sparring.explore._crawl import Crawl, Crawler
from sparring.explore._graph import GraphFormat, GraphvizMissing, render_graph
from sparring.explore._model import ExplorationModel
from sparring.explore._probing import probe_chatbot
from sparring.explore._profiles import GeneratedProfile, write_profiles
from sparring.explore._profiles_llm import generate_profiles
from sparring.explore._project import read_definition
from sparring.explore._seeds import definition_seeds, docs_seeds, seed_notes
from sparring.explore._session import ExplorationContext
from sparring.explore._tracer import explore_with_model
from sparring.jobs import JobSettings, new_run_dir, run_blocking
from sparring.llm import load_model
from sparring.types import TextModel

logger = logging.getLogger(__name__)

PROBE_TIMEOUT = 10.0
"""Seconds the reachability probe waits for the chatbot."""
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

    chatbot: Path
    sessions: int = Field(12, ge=1)
    turns: int = Field(12, ge=1)
    model: str | None = None
    profile_model: str | None = None
    model_base_url: str | None = None
    cache: bool = False
    seed: int = 0
    graph_formats: list[GraphFormat] = Field(default_factory=lambda: list(DEFAULT_FORMATS))
    compact: bool = False
    top_down: bool = False
    nested_forward: bool = False
    profiles: bool = True
    probe: bool = True
    project: Path | None = None
    docs: Path | None = None


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


async def explore_job_async(
    settings: ExploreSettings,
    out: Path | str | None = None,
    *,
    on_session: OnSession | None = None,
    model: TextModel | None = None,
    profile_model: TextModel | None = None,
) -> ExplorationResult:
    """Explore the chatbot of ``settings`` into a new run directory ``out``.

    ``model`` and ``profile_model``, when given, are used instead of the ones the
    settings name (a model built in Python, e.g. a ``ScriptedModel`` with a responder).

    Raises ``UserInputError``/``ConfigError`` for a bad chatbot.yaml or model spec and
    ``ChatbotUnreachable`` when the bot does not answer — before anything is written or a
    model is called. ``on_session`` sees the model after every session.
    """
    config = load_chatbot_config(settings.chatbot)
    definition = read_definition(settings.project) if settings.project else None
    seeds = definition_seeds(definition) if definition else []
    seeds += docs_seeds(settings.docs) if settings.docs else []
    if model is None:
        model = load_model(settings.model, settings.model_base_url, settings.cache)
    writer = profile_model or model
    if profile_model is None and settings.profile_model:
        writer = load_model(settings.profile_model, settings.model_base_url, settings.cache)
    if settings.probe:
        await ensure_reachable(config, PROBE_TIMEOUT)
    target = Path(out) if out is not None else new_run_dir()
    store = RunStore.create(target, _manifest(settings, config))
    connector = create_connector(config)

    def checkpoint(partial: ExplorationModel) -> None:
        save_model(store, partial)
        if on_session is not None:
            on_session(partial)

    ctx = ExplorationContext(
        connector=connector,
        store=store,
        info=config.info,
        sessions=settings.sessions + len(seeds),
        turns=settings.turns,
        seed=settings.seed,
        checkpoint=checkpoint,
        seeds=seeds,
        values_for=definition.values_for if definition else (lambda question: []),
    )
    try:
        explored = await _explore(ctx, model, config)
    finally:
        await connector.aclose()
    explored.greeting = explored.greeting or ctx.findings.greeting
    explored.notes += seed_notes(explored, seeds)
    health = assess_run(store.iter_records())
    if not health.healthy:
        explored.complete = False
        explored.notes.append(f"the chatbot failed: {health.problem}; cause: {health.cause}")
    save_model(store, explored)
    result = ExplorationResult(store, explored, health=health)
    result.files.extend(_graph(store, explored, settings, result.problems))
    if settings.profiles and explored.functionalities:
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


def explore_job(
    settings: ExploreSettings,
    out: Path | str | None = None,
    *,
    on_session: OnSession | None = None,
    model: TextModel | None = None,
    profile_model: TextModel | None = None,
) -> ExplorationResult:
    """``explore_job_async`` for synchronous callers."""
    return run_blocking(
        explore_job_async(
            settings, out, on_session=on_session, model=model, profile_model=profile_model
        )
    )


def save_model(store: RunStore, model: ExplorationModel) -> Path:
    """Write ``model`` atomically to ``<run>/explore/model.json``; return the path."""
    store.slot(Slot.EXPLORE)
    path = store.explore_model_path
    atomic_write(path, model.model_dump_json(indent=2))
    return path


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


def _manifest(settings: ExploreSettings, config: ChatbotConfig) -> RunManifest:
    now = datetime.now(UTC)
    stored = settings.model_copy(update={"chatbot": settings.chatbot.resolve()})
    return RunManifest(
        run_id=now.strftime("%Y%m%d-%H%M%S"),
        created_at=now,
        sparring_version=__version__,
        job=ExploreSettings.job,
        chatbot=config.model_dump(mode="json", exclude={"params"}),
        chatbot_path=str(settings.chatbot.resolve()),
        endpoint=endpoint_of(config),
        settings=stored.model_dump(mode="json"),
    )
