"""Many conversations at once: bounded concurrency, streaming records to the run store.

SENSEI runs conversations one after another; here ``concurrency`` workers share one
connector and pull conversation specs from an iterator, so memory stays flat however many
conversations a run has: each record is written to the store as its conversation ends and
then dropped.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Literal

from sparring.connectors import Connector
from sparring.conversations import ConversationError, ConversationRecord, ErrorCode, RunStore
from sparring.llm import Meter, Model
from sparring.simulate._agenda import AgendaSimulator
from sparring.simulate._base import UserSimulator
from sparring.simulate._llm_simulator import LLMSimulator
from sparring.simulate._persona_simulator import PersonaSimulator
from sparring.simulate._runner import RunnerLimits, run_conversation
from sparring.simulate._spec import ConversationSpec

SimulatorKind = Literal["agenda", "llm"]


@dataclass
class SimulationOptions:
    """How to run: which user simulator, which model (``None``: offline), how many at once."""

    simulator: SimulatorKind = "agenda"
    model: Model | None = None
    concurrency: int = 4
    limits: RunnerLimits = field(default_factory=RunnerLimits)
    temperature: float | None = None
    press_buttons: bool = False
    """The agenda user presses a button that names its value instead of typing its text."""


def make_simulator(
    spec: ConversationSpec, options: SimulationOptions, meter: Meter | None
) -> UserSimulator:
    """The user simulator for one conversation, seeded by the conversation's seed: with
    ``llm``, ``PersonaSimulator`` when a persona plays the user, else ``LLMSimulator``;
    else ``AgendaSimulator`` (which acts out a persona's behaviours offline).

    Raises ``ValueError`` when the LLM simulator is asked for without a model.
    """
    rng = random.Random(spec.seed)
    if options.simulator == "llm":
        if options.model is None:
            raise ValueError("the llm user simulator needs a model: pass --model")
        if spec.persona is not None:
            return PersonaSimulator(spec, options.model, meter, rng, options.temperature)
        return LLMSimulator(spec, options.model, meter, rng, options.temperature)
    return AgendaSimulator(spec, rng, press_buttons=options.press_buttons)


async def simulate(
    specs: Iterable[ConversationSpec],
    connector: Connector,
    store: RunStore,
    options: SimulationOptions,
    on_record: Callable[[ConversationRecord], None] | None = None,
    stop: Callable[[], bool] | None = None,
) -> int:
    """Run every spec whose id the store has not finished; return how many ran. Once
    ``stop()`` is true no new conversation starts; those running finish and are stored.

    Each record is written atomically by ``store.write`` when its conversation ends, so an
    interrupted run can be resumed by calling this again on the same store.
    """
    finished = store.finished_ids()
    pending = (s for s in specs if s.id not in finished)
    count = 0

    async def write(record: ConversationRecord) -> None:
        nonlocal count
        await asyncio.to_thread(store.write, record)
        count += 1
        if on_record is not None:
            on_record(record)

    before_each = None if stop is None else (lambda _: not stop())
    await drive(pending, connector, options, write, before_each)
    return count


async def drive(
    specs: Iterable[ConversationSpec],
    connector: Connector,
    options: SimulationOptions,
    sink: Callable[[ConversationRecord], Awaitable[None]],
    before_each: Callable[[ConversationSpec], bool] | None = None,
) -> None:
    """Run ``specs`` with ``options.concurrency`` conversations at once, handing each
    record to ``sink`` as its conversation ends. ``before_each`` is called before a
    conversation starts; when it returns ``False`` the conversations not yet started are
    skipped (a distributed chunk whose run moved on)."""
    pending: Iterator[ConversationSpec] = iter(specs)
    run_meters: dict[str, Meter] = {}
    workers = max(1, options.concurrency)
    # Records are handed over by tasks off the conversation's path (a durable write costs
    # milliseconds); at most ``workers`` wait at once, so memory stays bounded.
    writes = asyncio.Semaphore(workers)

    async def hand_over(record: ConversationRecord) -> None:
        try:
            await sink(record)
        finally:
            writes.release()

    async with asyncio.TaskGroup() as group:

        async def worker() -> None:
            for spec in pending:
                if before_each is not None and not before_each(spec):
                    return
                record = await _one(spec, connector, options, run_meters)
                await writes.acquire()
                group.create_task(hand_over(record))

        for _ in range(workers):
            group.create_task(worker())


async def _one(
    spec: ConversationSpec,
    connector: Connector,
    options: SimulationOptions,
    run_meters: dict[str, Meter],
) -> ConversationRecord:
    run_meter = run_meters.setdefault(spec.profile, Meter(spec.run_max_cost, "run"))
    meter = Meter(spec.stop.max_cost, "conversation", parent=run_meter)
    if spec.run_max_cost is not None and run_meter.spent >= spec.run_max_cost:
        return _skipped(spec, options, run_meter)
    simulator = make_simulator(spec, options, meter)
    record = await run_conversation(
        spec,
        connector,
        simulator,
        simulator_name=options.simulator,
        meter=meter,
        extraction_model=options.model,
        limits=options.limits,
    )
    return record


def _skipped(
    spec: ConversationSpec, options: SimulationOptions, run_meter: Meter
) -> ConversationRecord:
    """The record of a conversation not started because the run's budget is spent."""
    message = f"run budget of ${spec.run_max_cost} spent (${run_meter.spent:.4f}); not started"
    return ConversationRecord(
        id=spec.id,
        profile=spec.profile,
        profile_path=spec.profile_path,
        index=spec.index,
        seed=spec.seed,
        plan=spec.plan,
        repeat=spec.repeat,
        simulator=options.simulator,
        goals=list(spec.goals),
        variables=dict(spec.variables),
        settings=dict(spec.settings),
        persona=spec.persona.name if spec.persona is not None else None,
        persona_path=spec.persona_path,
        errors=[ConversationError(code=int(ErrorCode.EXCEEDED_MAX_COST), message=message)],
    )
