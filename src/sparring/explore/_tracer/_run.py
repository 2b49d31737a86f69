"""The LLM exploration strategy end to end: probing, sessions driven by a queue of
discovered functionalities, extraction and merges after each session, refinement.

After TRACER (Sotillo del Horno, "Automated Exploration and Profiling of Conversational
Agents", 2025, ch. 3–5; ``explorer.py``'s exploration loop). The queue makes sessions
depend on each other: which functionality a session explores depends on what the
previous sessions found. What does not depend is run concurrently, bounded by
``model.concurrency``: the functionalities at the front of the queue are explored by
concurrent branch sessions (a *round*), and each session's extraction runs as soon as
that session ends, overlapping the sessions still running. Results merge in session
order and children found while exploring a functionality go to the front of the queue
(depth-first), so the model does not depend on timing. With the queue empty, one general
session explores.

Faults: a model failure (``ModelError``, ``BudgetExceeded``) stops the exploration and
returns, and checkpoints, the model built so far with ``complete=False`` and a note naming
the step; a cancelled run (Ctrl-C) checkpoints the same way and re-raises. A chatbot that
fails is recorded on its session; when it fails before answering anything the
exploration stops (``complete=False``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from sparring.explore._model import BotType, ExplorationModel, Functionality
from sparring.explore._session import ExplorationContext, Findings
from sparring.explore._tracer import _refine as refine
from sparring.explore._tracer._calls import Asker, StepFailed
from sparring.explore._tracer._explorer import Explorer, Outcome
from sparring.explore._tracer._extract import extract
from sparring.explore._tracer._merge import Graph, merge_session
from sparring.explore._tracer._nodes import Node
from sparring.explore._tracer._probe import Probed, probe
from sparring.types import Strategy, TextModel


async def explore_with_model(ctx: ExplorationContext, model: TextModel) -> ExplorationModel:
    """Explore ``ctx``'s chatbot with ``model`` (TRACER's method) into an
    ``ExplorationModel`` with ``strategy=llm``.

    At most ``ctx.sessions`` sessions (besides the probing session) of at most
    ``ctx.turns`` user turns each, recorded as ``explore/llm-probe`` and
    ``explore/llm-s01``, ``explore/llm-s02``, …; ``ctx.checkpoint`` gets the model after
    every session; model usage is added to ``ctx.usage`` per module (``explore.<step>``);
    ``ctx.findings`` is replaced by what probing confirmed (strategy ``llm``), so the
    session records carry the fallback.

    Never raises for the model or the chatbot: a failure gives the partial model with
    ``complete=False`` and a note. Re-raises ``asyncio.CancelledError`` and
    ``KeyboardInterrupt`` after checkpointing the partial model.
    """
    return await _Exploration(ctx, model).run()


@dataclass
class _Done:
    """One session of a round: its outcome, its nodes, or the model failure."""

    outcome: Outcome | None = None
    nodes: list[Node] | None = None
    failure: StepFailed | None = None


class _Exploration:
    def __init__(self, ctx: ExplorationContext, model: TextModel) -> None:
        self.ctx = ctx
        self.model = model
        self.asker = Asker(model, ctx.usage)
        self.graph = Graph()
        self.queue: list[str] = []
        self.explored: set[str] = set()
        self.outcomes: list[Outcome] = []
        self.notes: list[str] = []
        self.probed = Probed(
            languages=list(dict.fromkeys([*ctx.info.languages, *ctx.findings.languages])),
            fallback=ctx.info.fallback or ctx.findings.fallback,
        )
        self.bot_type: BotType = "unknown"
        self.complete = True

    async def run(self) -> ExplorationModel:
        try:
            self.probed = await probe(self.ctx, self.asker)
            self.notes += self.probed.notes
            self.ctx.findings = Findings(
                languages=list(self.probed.languages),
                fallback=self.probed.fallback,
                greeting=self.ctx.findings.greeting,
                strategy=Strategy.LLM,
            )
            await self._explore()
            if self.ctx.stopping():
                self.notes.append("stopped on request: resume the run to explore the rest")
                return self._checkpoint(complete=False)
            await self._refine()
        except StepFailed as exc:
            self.notes.append(f"stopped: the model failed at {exc.step} ({exc.where}): {exc.cause}")
            self._telemetry()
            return self._checkpoint(complete=False)
        except (asyncio.CancelledError, KeyboardInterrupt):
            self.notes.append("interrupted: the model keeps what was explored")
            self._checkpoint(complete=False)
            raise
        self._telemetry()
        return self._snapshot(complete=self.complete)

    async def _explore(self) -> None:
        explorer = Explorer(self.ctx, self.asker, self.probed.variants, self.probed.languages)
        started = 0
        while started < self.ctx.sessions and not self.ctx.stopping():
            foci = self._next_round(self.ctx.sessions - started)
            names = [f"llm-s{started + i + 1:02d}" for i in range(len(foci))]
            started += len(foci)
            known = self.graph.functionalities()
            done = [_Done() for _ in foci]
            async with asyncio.TaskGroup() as group:
                for name, focus, slot in zip(names, foci, done, strict=True):
                    group.create_task(self._session(explorer, name, focus, known, slot))
            alive = self._merge_round(done)
            await self._merge_nodes(done)
            if not alive:
                return

    def _next_round(self, remaining: int) -> list[Functionality | None]:
        """Up to ``model.concurrency`` queued functionalities, front first (each explored
        once); ``[None]`` (general exploration) when the queue is empty."""
        width = max(1, min(self.model.concurrency, remaining))
        foci: list[Functionality | None] = []
        while self.queue and len(foci) < width:
            node_id = self.queue.pop(0)
            if node_id in self.graph.nodes and node_id not in self.explored:
                self.explored.add(node_id)
                foci.append(self.graph.nodes[node_id].fn.model_copy(deep=True))
        return foci or [None]

    async def _session(
        self,
        explorer: Explorer,
        name: str,
        focus: Functionality | None,
        known: list[Functionality],
        slot: _Done,
    ) -> None:
        slot.outcome = await explorer.run(name, focus, known)
        slot.failure = slot.outcome.failure
        if slot.failure is not None:
            return
        try:
            slot.nodes = await extract(self.asker, slot.outcome)
        except StepFailed as exc:
            slot.failure = exc

    def _merge_round(self, done: list[_Done]) -> bool:
        """Record the round's sessions; false when the chatbot looks down."""
        alive = True
        for slot in done:
            outcome = slot.outcome
            if outcome is None:
                continue
            self.outcomes.append(outcome)
            if outcome.bot_error is not None:
                self.notes.append(f"{outcome.record_id}: the chatbot failed: {outcome.bot_error}")
                if not outcome.answered:
                    alive = False
        if not alive:
            self.notes.append("stopped: the chatbot failed before answering a session")
            self.complete = False
        return alive

    async def _merge_nodes(self, done: list[_Done]) -> None:
        """Merge each session's nodes in session order, checkpointing after each, and
        queue the new ones. Raises the round's first ``StepFailed`` after merging the
        others."""
        failure: StepFailed | None = None
        front: list[str] = []
        back: list[str] = []
        for slot in done:
            if slot.failure is not None:
                failure = failure or slot.failure
            elif slot.outcome is not None and slot.nodes is not None:
                where = slot.outcome.name
                try:
                    added = await merge_session(self.asker, self.graph, slot.nodes, where)
                except StepFailed as exc:
                    failure = failure or exc
                    added = []
                (front if slot.outcome.focus is not None else back).extend(added)
            self._checkpoint(complete=False)
        self.queue = [*front, *self.queue, *back]
        if failure is not None:
            raise failure

    async def _refine(self) -> None:
        if self.queue:
            left = [i for i in self.queue if i not in self.explored]
            if left:
                self.notes.append(f"not explored for lack of sessions: {', '.join(left)}")
        self.notes += await refine.consolidate(self.asker, self.graph)
        self.bot_type = await refine.classify(self.asker, self.graph, self.outcomes)
        self.notes += await refine.infer_workflow(
            self.asker, self.graph, self.outcomes, self.bot_type
        )
        await refine.categorise(self.asker, self.graph)

    def _telemetry(self) -> None:
        impersonations = sum(o.impersonations for o in self.outcomes)
        if impersonations:
            self.notes.append(f"the explorer wrote as the chatbot {impersonations} time(s)")
        fallbacks = sum(o.fallbacks for o in self.outcomes)
        if fallbacks:
            self.notes.append(f"the chatbot answered with its fallback {fallbacks} time(s)")

    def _checkpoint(self, *, complete: bool) -> ExplorationModel:
        model = self._snapshot(complete=complete)
        self.ctx.checkpoint(model)
        return model

    def _snapshot(self, *, complete: bool) -> ExplorationModel:
        return ExplorationModel(
            chatbot=self.ctx.info.name or "",
            languages=self.probed.languages,
            fallback=self.probed.fallback,
            bot_type=self.bot_type,
            functionalities=self.graph.functionalities(),
            strategy=Strategy.LLM,
            complete=complete,
            notes=list(self.notes),
            sessions=len(self.outcomes),
            turns=sum(o.user_turns for o in self.outcomes),
            usage={k: v.model_copy() for k, v in self.ctx.usage.items()},
        )
