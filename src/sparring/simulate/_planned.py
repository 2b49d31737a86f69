"""Running some of a run's planned conversations without a run directory.

A process that runs part of a run elsewhere (a ``sparring worker``, docs/distributed.md)
gets the run's stored settings, the ids of the conversations to run and, from a
coordinator that planned them, their specs and the chatbot's configuration (without
them it plans the run the way the ``simulate`` job did: same profiles and seed, same ids,
plans and seeds); it runs the named conversations and returns their records. Whoever
owns the run directory writes them (``RunStore.write``, keyed by conversation id).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from sparring.connectors import (
    ChatbotConfig,
    LimiterFactory,
    create_connector,
    load_chatbot_config,
    local_limiter,
)
from sparring.conversations import ConversationRecord
from sparring.errors import UserInputError
from sparring.jobs import run_blocking
from sparring.llm import Model, load_model
from sparring.simulate._job import SimulateJob, SimulateSettings, plan_specs
from sparring.simulate._simulation import SimulationOptions, drive
from sparring.simulate._spec import ConversationSpec


async def planned_specs(
    settings: SimulateSettings, config: ChatbotConfig | None = None, model: Model | None = None
) -> list[ConversationSpec]:
    """Every conversation ``settings`` plan (with ``repeat`` copies), as the ``simulate``
    job plans them: the same ids, plans and seeds for the same profiles and seed. The
    chatbot's configuration (``config``) and the model are read from ``settings`` when not
    given; nothing is probed. Raises ``ConfigError`` for bad profiles or a bad
    ``chatbot.yaml``."""
    inputs = SimulateJob().load_inputs(settings)
    config = config if config is not None else load_chatbot_config(settings.chatbot)
    if model is None:
        model = load_model(settings.model, settings.model_base_url, settings.cache)
    specs, _ = await plan_specs(settings, config, model, inputs)
    return specs


async def run_planned_async(
    settings: SimulateSettings,
    ids: Iterable[str],
    *,
    specs: list[ConversationSpec] | None = None,
    limiter: LimiterFactory = local_limiter,
    before_each: Callable[[ConversationSpec], bool] | None = None,
    config: ChatbotConfig | None = None,
) -> list[ConversationRecord]:
    """Run the planned conversations ``ids`` of a run with ``settings`` (its stored
    settings: ``SimulateSettings.from_manifest``), ``settings.concurrency`` at once, and
    return their records in the order they ended; nothing is written.

    ``specs`` are the run's planned specs when the caller already has them
    (``planned_specs(settings)``; planned here otherwise). ``limiter`` builds the limiter
    of a connector with ``requests_per_minute`` (a distributed run passes one shared by
    every process). ``before_each`` is called before each conversation starts; ``False``
    skips it and every conversation not started yet. ``config`` is the chatbot's
    configuration when the caller has it (a worker gets it from the coordinator; read
    from ``settings.chatbot`` otherwise). Raises ``UserInputError`` naming ids
    the settings do not plan, ``ConfigError`` for bad profiles or ``chatbot.yaml``; the
    chatbot's failures are recorded, never raised.
    """
    wanted = list(dict.fromkeys(ids))
    config = config if config is not None else load_chatbot_config(settings.chatbot)
    model = load_model(settings.model, settings.model_base_url, settings.cache)
    if specs is None:
        specs = await planned_specs(settings, config, model)
    planned = {spec.id: spec for spec in specs}
    unknown = [i for i in wanted if i not in planned]
    if unknown:
        raise UserInputError(f"not planned by these settings: {', '.join(unknown[:5])}")
    options = SimulationOptions(
        simulator=settings.simulator_kind(),
        model=model,
        concurrency=settings.concurrency,
        limits=settings.limits(config),
    )
    records: list[ConversationRecord] = []

    async def keep(record: ConversationRecord) -> None:
        records.append(record)

    connector = create_connector(config, limiter=limiter)
    try:
        await drive((planned[i] for i in wanted), connector, options, keep, before_each)
    finally:
        await connector.aclose()
    return records


def run_planned(
    settings: SimulateSettings,
    ids: Iterable[str],
    *,
    specs: list[ConversationSpec] | None = None,
    limiter: LimiterFactory = local_limiter,
    before_each: Callable[[ConversationSpec], bool] | None = None,
    config: ChatbotConfig | None = None,
) -> list[ConversationRecord]:
    """``run_planned_async`` for synchronous callers."""
    return run_blocking(
        run_planned_async(
            settings, ids, specs=specs, limiter=limiter, before_each=before_each, config=config
        )
    )
