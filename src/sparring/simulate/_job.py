"""The ``simulate`` job: settings → a run directory of conversations and its summary.

``SimulateJob`` on the runner (``sparring.runner.start("simulate", settings, out)``) plans
the profiles, creates the run (manifest with the typed settings), runs every conversation
and writes the summary; ``sparring.runner.resume(run_dir)`` reads the settings back from the
manifest and runs only what is missing.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field, model_validator

from sparring.connectors import ChatbotConfig, ProbeResult, create_connector
from sparring.conversations import (
    DEFAULT_MAX_CHATBOT_FAILURE_SHARE,
    ConversationRecord,
    RunHealth,
    RunStore,
    RunSummary,
    assess_run,
    summarize,
)
from sparring.errors import Problem, UserInputError
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
from sparring.llm import CACHE_HELP, MODEL_BASE_URL_HELP, MODEL_HELP, Model
from sparring.profiles import planned_count
from sparring.simulate._persona_plan import MAX_TURN_WORDS, TYPICAL_TURN_WORDS
from sparring.simulate._plan import PlanInputs, load_plan_inputs, plan_run
from sparring.simulate._repeat import repeat_specs
from sparring.simulate._runner import RunnerLimits
from sparring.simulate._simulation import SimulationOptions, SimulatorKind, simulate
from sparring.simulate._spec import ConversationSpec

logger = logging.getLogger(__name__)


OnRecord = Callable[[ConversationRecord], None]
"""Called once before the first conversation with the number of conversations to run."""


class SimulateSettings(JobSettings):
    """Settings of the ``simulate`` job (stored in the run's manifest).

    ``profiles`` are profile files or folders; ``personas`` persona files or folders that
    play every profile's conversations, or, with no profiles, one conversation each
    (docs/personas.md); one of the two must be given. ``chatbot`` the ``chatbot.yaml``;
    ``simulator`` ``llm`` or ``agenda`` (``None``: ``llm`` with a model, else ``agenda``);
    ``model`` a model spec (``None``: offline); ``concurrency`` conversations at once;
    ``seed`` drives variable picks and the simulators; ``max_turns`` caps user turns (code
    1000); ``repeat_limit`` identical replies in a row that end a conversation (code 1002,
    0 = off); ``reply_timeout`` seconds the runner waits for one reply (``None``: the
    connector's ``timeout`` plus 5 s); ``repeat`` runs each planned conversation that
    many times with the same seed (ids ``<id>#<r>``); ``probe`` checks the chatbot
    answers before the first conversation; ``max_failure_share`` is the share of
    conversations that may fail with chatbot failures before the run is unhealthy;
    ``template_check`` records a reply that shows an unfilled slot (code 1004).
    """

    job: ClassVar[str] = "simulate"

    profiles: list[Path] = Field(
        default_factory=list, description="Profile files or folders (SENSEI format)."
    )
    personas: list[Path] = Field(
        default_factory=list,
        description="Persona file or folder (repeatable): plays every profile's "
        "conversations, or one conversation of its own when no profile is given.",
    )
    chatbot: Path = Field(description="chatbot.yaml of the chatbot under test.")
    simulator: SimulatorKind | None = Field(
        None, description="llm or agenda (default: llm with a model, else agenda)."
    )
    model: str | None = Field(None, description=MODEL_HELP)
    model_base_url: str | None = Field(None, description=MODEL_BASE_URL_HELP)
    cache: bool = Field(False, description=CACHE_HELP)
    concurrency: int = Field(4, ge=1, description="Conversations at once.")
    seed: int = Field(0, description="Seed for variable picks and the simulators.")
    max_turns: int = Field(40, ge=1, description="Hard cap on user turns (code 1000).")
    repeat_limit: int = Field(
        3, ge=0, description="Same reply N times in a row ends it (code 1002; 0 = off)."
    )
    reply_timeout: float | None = Field(
        None, gt=0, description="Seconds per reply (default: the connector's + 5)."
    )
    repeat: int = Field(
        1, ge=1, description="Run each planned conversation K times (same plan and seed)."
    )
    probe: bool = Field(True, description="Check the chatbot answers before starting.")
    max_failure_share: float = Field(
        DEFAULT_MAX_CHATBOT_FAILURE_SHARE,
        ge=0,
        le=1,
        description="Exit 1 when more than this share of conversations got no answer from "
        "the chatbot (500/504).",
    )
    template_check: bool = Field(
        True, description="Record replies showing an unfilled slot ('Thanks None!'; code 1004)."
    )

    @model_validator(mode="after")
    def _something_to_simulate(self) -> SimulateSettings:
        if not self.profiles and not self.personas:
            raise ValueError("give at least one profile or persona file")
        return self

    def simulator_kind(self) -> SimulatorKind:
        """``simulator``, or ``llm`` with a model and ``agenda`` without. Raises
        ``UserInputError`` for ``llm`` without a model."""
        kind = self.simulator or ("llm" if self.model else "agenda")
        if kind == "llm" and not self.model:
            raise UserInputError(
                "the llm user simulator needs a model: set --model (or SPARRING_MODEL)"
            )
        return kind

    def limits(self, config: ChatbotConfig) -> RunnerLimits:
        """The runner's limits; the reply timeout defaults to the connector's plus 5 s."""
        timeout = config.reply_timeout(self.reply_timeout)
        return RunnerLimits(
            max_turns=self.max_turns,
            repeat_limit=self.repeat_limit,
            reply_timeout=timeout,
            template_check=self.template_check,
        )


@dataclass(frozen=True)
class SimulationResult:
    """What a ``simulate`` job did: the run's store, its summary (also in
    ``summary.json``), how many conversations this call ran, and the run's health (a CI
    gate fails an unhealthy run: every conversation failed, or too many got no answer)."""

    store: RunStore
    summary: RunSummary
    ran: int
    health: RunHealth
    missing: int = 0
    """Planned conversations with no record (conversations run elsewhere that did not all
    come back)."""


OnProbe = Callable[[ProbeResult], None]


RemoteConversations = Callable[
    [JobContext, "SimulateSettings", list[ConversationSpec]],
    Awaitable[tuple[int, RunSummary, int]],
]
"""Runs a run's missing planned conversations elsewhere (``sparring worker``s,
docs/distributed.md) and has their records written to ``ctx.store``: returns how many it
wrote, the summary to store (with how the distribution went) and how many planned
conversations still have no record."""


class SimulateJob(Job[SimulateSettings, SimulationResult]):
    """The ``simulate`` job on the runner (``sparring.runner.start("simulate", …)``): one
    item per planned conversation; a stop request starts no new conversation. With
    ``remote``, the conversations run elsewhere and come back to this run's store;
    ``on_probe`` sees the reachability probe's result (the runner probes)."""

    name: ClassVar[str] = SimulateSettings.job
    settings_type: ClassVar[type[SimulateSettings]] = SimulateSettings
    creates_run: ClassVar[bool] = True
    needs: ClassVar[Needs] = Needs(chatbot=True, model=ModelNeed.OPTIONAL, report=True)

    def __init__(
        self, on_probe: OnProbe | None = None, remote: RemoteConversations | None = None
    ) -> None:
        self.on_probe = on_probe
        self.remote = remote

    def load_inputs(self, settings: SimulateSettings) -> PlanInputs:
        """Check the simulator has what it needs (``llm`` without a model:
        ``UserInputError`` naming ``--model``) and read the profiles and persona files
        (``ConfigError`` with file, line and key); the runner calls it before the chatbot is
        loaded or probed."""
        settings.simulator_kind()
        return load_plan_inputs(settings.profiles, settings.personas)

    async def execute(self, settings: SimulateSettings, ctx: JobContext) -> SimulationResult:
        """Plan the profiles (the runner read them, loaded the chatbot and the model and
        probed the chatbot), create (or reopen) the run, run what is missing."""
        kind = settings.simulator_kind()
        config, model = ctx.chatbot, ctx.model
        inputs = job_inputs(ctx, self.load_inputs, settings)
        ctx.stage("plan")
        specs, files = await plan_specs(settings, config, model, inputs)
        if ctx.resuming:
            specs = _still_planned(specs, ctx.store)
        else:
            ctx.open_run(**_manifest(settings, kind, config, files, specs))
        ctx.stage("conversations")
        if self.remote is not None:
            ran, summary, missing = await self.remote(ctx, settings, specs)
            return finish_run(ctx.store, settings, ran, summary, missing)
        return await _run(ctx, settings, kind, config, model, specs)

    def outcome(self, result: SimulationResult) -> Outcome:
        """``error`` for an unhealthy run (the chatbot did not answer, every conversation
        failed: exit 1), ``incomplete`` when conversations run elsewhere did not all come
        back (exit 3), else ``recorded`` (exit 0: the run holds conversations a check can
        judge; simulating judges nothing, so it is no pass)."""
        if not result.health.healthy:
            cause = [f"cause: {result.health.cause}"] if result.health.cause else []
            return outcomes.error(result.health.problem or "the run is unhealthy", *cause)
        if result.missing:
            return outcomes.incomplete(
                f"{result.missing} planned conversations have no record (summary.json: "
                "distributed.failed_chunks); finish them with --resume RUN --broker URL"
            )
        ran = result.summary.conversations
        what = f"{ran} conversation{'' if ran == 1 else 's'} recorded, none judged"
        return outcomes.recorded(f"{what}: judge them with `sparring check RULES --run RUN`")


JOBS.register(SimulateJob.name, SimulateJob())


async def _run(
    ctx: JobContext,
    settings: SimulateSettings,
    kind: SimulatorKind,
    config: ChatbotConfig,
    model: Model | None,
    specs: list[ConversationSpec],
) -> SimulationResult:
    store = ctx.store
    options = SimulationOptions(
        simulator=kind,
        model=model,
        concurrency=settings.concurrency,
        limits=settings.limits(config),
    )
    finished = store.finished_ids()
    ctx.planned(sum(spec.id not in finished for spec in specs))

    def done(record: ConversationRecord) -> None:
        error = record.errors[0].message if record.errors else None
        ctx.item_done(record.id, not record.errors, record.cost, error)

    connector = create_connector(config)
    try:
        ran = await simulate(specs, connector, store, options, on_record=done, stop=ctx.stop)
    finally:
        await connector.aclose()
    return finish_run(store, settings, ran)


MAX_RUN_CONVERSATIONS = 100_000
"""Conversations one run may plan (every profile's, times ``--repeat`` and the personas)
unless ``SPARRING_MAX_RUN_CONVERSATIONS`` says otherwise: checked before planning, so
200 profiles of 10,000 or ``--repeat 100000`` are refused before memory grows."""
RUN_CAP_ENV = "SPARRING_MAX_RUN_CONVERSATIONS"


def run_conversation_cap() -> int:
    """Conversations one run may plan: ``SPARRING_MAX_RUN_CONVERSATIONS`` when set, else
    ``MAX_RUN_CONVERSATIONS``; ``UserInputError`` when the variable is not a positive
    whole number."""
    raw = os.environ.get(RUN_CAP_ENV, "").strip()
    if not raw:
        return MAX_RUN_CONVERSATIONS
    if not raw.isdigit() or int(raw) < 1:
        raise UserInputError(f"{RUN_CAP_ENV} must be a positive whole number (got {raw!r})")
    return int(raw)


def check_run_size(settings: SimulateSettings, inputs: PlanInputs) -> int:
    """The conversations the run plans, counted before planning (``planned_count``: a
    lower bound where values come from a model or a generator); raises
    ``UserInputError`` naming the profiles, ``--repeat`` and the setting to raise the cap
    when the sum is over it."""
    profiles, personas = inputs
    cap = run_conversation_cap()
    per_profile = max(1, len(personas)) if profiles else 1
    total = sum(planned_count(p) for p in profiles) * per_profile or len(personas)
    total *= max(1, settings.repeat)
    if total > cap:
        where = ", ".join(str(p) for p in settings.profiles[:3]) or "personas"
        message = (
            f"the run plans {total:,} conversations ({len(profiles)} profiles × --repeat "
            f"{settings.repeat}{f' × {len(personas)} personas' if personas and profiles else ''}"
            f"), over the limit of {cap:,} per run; lower conversation.number or --repeat, "
            f"split the run, or raise the limit with {RUN_CAP_ENV}"
        )
        raise UserInputError(Problem(where, None, "conversation.number", message))
    return total


async def plan_specs(
    settings: SimulateSettings, config: ChatbotConfig, model: Model | None, inputs: PlanInputs
) -> tuple[list[ConversationSpec], list[Path]]:
    """The run's conversations (``repeat`` copies made) and the persona files read, planned
    from ``inputs`` (``SimulateJob.load_inputs``); ``UserInputError`` over the run cap."""
    check_run_size(settings, inputs)
    specs, files = await plan_run(
        settings.profiles,
        seed=settings.seed,
        model=model,
        chatbot=config.info,
        **_user_simulation(config),
        personas=settings.personas,
        inputs=inputs,
    )
    return repeat_specs(specs, settings.repeat), files


def finish_run(
    store: RunStore,
    settings: SimulateSettings,
    ran: int,
    summary: RunSummary | None = None,
    missing: int = 0,
) -> SimulationResult:
    """Write the run's ``summary.json`` (``summary``, default the records' summary) and
    assess its health; ``ran`` is how many conversations this call ran, ``missing`` how
    many planned ones have no record."""
    summary = summary if summary is not None else summarize(store.iter_records())
    store.write_summary(summary)
    health = assess_run(store.iter_records(), settings.max_failure_share)
    return SimulationResult(store=store, summary=summary, ran=ran, health=health, missing=missing)


def _manifest(
    settings: SimulateSettings,
    kind: SimulatorKind,
    config: ChatbotConfig,
    files: list[Path],
    specs: list[ConversationSpec],
) -> dict[str, Any]:
    """What the manifest of a new run holds besides the job and the chatbot (the runner's):
    what ``resume`` needs to finish it."""
    stored = settings.model_copy(
        update={
            "simulator": kind,
            "profiles": [p.resolve() for p in files],
            "personas": [p.resolve() for p in settings.personas],
            "chatbot": settings.chatbot.resolve(),
        }
    )
    return {
        "settings": stored,
        "profiles": [str(p.resolve()) for p in files],
        "planned": [s.id for s in specs],
    }


def _still_planned(specs: list[ConversationSpec], store: RunStore) -> list[ConversationSpec]:
    """On resume, the specs the run planned; warns when the profiles changed since."""
    planned = set(store.manifest.planned)
    kept = [s for s in specs if s.id in planned]
    missing = planned - {s.id for s in kept}
    if missing:
        logger.warning(
            "%d planned conversations are no longer in the profiles (changed since the run "
            "started?): %s", len(missing), ", ".join(sorted(missing)[:5]),
        )  # fmt: skip
    return kept


def _user_simulation(config: ChatbotConfig) -> dict[str, Any]:
    """``plan_run``'s turn lengths and persona turn limit from ChatChecker's
    ``user_simulation_config`` when chatbot.yaml has one (else the defaults)."""
    simulation = config.user_simulation
    if simulation is None:
        return {}
    typical, longest = simulation.typical_words, simulation.max_words
    return {
        "turn_words": (typical or TYPICAL_TURN_WORDS, longest or MAX_TURN_WORDS),
        "persona_turns": simulation.turn_limit,
    }
