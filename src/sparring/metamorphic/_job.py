"""The ``metamorphic`` job: seeds → follow-ups → answerability → replay → relations.

The runner loads chatbot.yaml and the model and probes the chatbot (``needs``); the job
loads and checks the rest (perturbation names, seeds, user transformations) before the run
directory is written. The run directory then holds each seed's source conversation
replayed against the chatbot under test (``<seed>@source``: the source outputs come from
the same bot as the follow-ups' replies, never from the seed run, which may be another bot
or version), one record per follow-up as it ends, and
``metamorphic.json`` rewritten as follow-ups are judged. Running the job again on the same
``out`` with the same settings (``concurrency`` and ``probe`` may change) resumes it:
finished records are kept and not replayed; with other settings it is refused, so one run
never mixes two.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from sparring.connectors import create_connector
from sparring.conversations import summarize
from sparring.jobs import (
    JOBS,
    Job,
    JobContext,
    ModelNeed,
    Needs,
    Outcome,
    job_inputs,
)
from sparring.metamorphic._answerability import DialogueAnalysis, SeedDialogue
from sparring.metamorphic._judge import Judge
from sparring.metamorphic._perturb import (
    FollowUp,
    Perturbation,
    dialogue_follow_up,
    follow_up_id,
    seed_rng,
    text_follow_up,
)
from sparring.metamorphic._relations import Similarity
from sparring.metamorphic._replay import (
    MetamorphicLink,
    ReplayItem,
    replay,
)
from sparring.metamorphic._result import (
    FollowUpSummary,
    MetamorphicResult,
    SkippedSeed,
    metamorphic_outcome,
)
from sparring.metamorphic._seeds import Seed, Skipped, load_seeds
from sparring.metamorphic._settings import (
    MetamorphicSettings,
    choose_similarity,
    parse_perturbations,
)
from sparring.metamorphic._transform import (
    Transformation,
    check_variables,
    load_transformations,
    transform,
)
from sparring.similarity import THRESHOLDS
from sparring.types import TextModel

SOURCE = "source"
ISOLATED = "isolated"
CONFIRM = "confirm"
CONFIRMATIONS = 2
"""Extra replays of the source up to a round that got a similarity violation (MR1, MR3),
run after the follow-ups: a bot that answers the round otherwise in its own context
answers it at random, and the violations are withdrawn (``Judge``)."""
"""The role (and perturbation prefix) of a source round asked alone (``context_probe``)."""
"""The perturbation name of a question-answering seed's own replay."""
Analyser = Callable[[Sequence[SeedDialogue]], Awaitable[list[DialogueAnalysis]]]
"""Analyses seed dialogues into answerability (one ``DialogueAnalysis`` per dialogue, in
order)."""


def default_analyser(model: TextModel | None) -> Analyser:
    """The answerability analyser: MORTAR's LLM pipeline with a model, else the offline
    spaCy one (``sparring.metamorphic._answerability``, imported only when used)."""

    async def analyse(dialogues: Sequence[SeedDialogue]) -> list[DialogueAnalysis]:
        from sparring.metamorphic._answerability import analyse_llm_many, analyse_offline

        if model is None:
            return list(await asyncio.to_thread(analyse_offline, dialogues))
        return list(await analyse_llm_many(dialogues, model))

    return analyse


def make_follow_ups(
    seeds: Sequence[Seed], perturbations: Sequence[Perturbation], seed: int, method: str
) -> tuple[list[FollowUp], list[SkippedSeed]]:
    """Every follow-up of ``seeds``, reproducibly; seeds none could be made from, with
    the reason (a two-round seed reduced is one round, shuffled is one other order)."""
    follow_ups: list[FollowUp] = []
    skipped: list[SkippedSeed] = []
    for item in seeds:
        questions = [r.question for r in item.dialogue.rounds]
        made = 0
        for kind in perturbations:
            rng = seed_rng(seed, item.id, kind)
            made_one = (
                dialogue_follow_up(kind, item.id, questions, rng)
                if kind.dialogue_level
                else text_follow_up(kind, item.id, questions, rng, method)
            )
            if made_one is not None:
                follow_ups.append(made_one)
                made += 1
        if not made:
            skipped.append(SkippedSeed(seed=item.id, reason="no perturbation changed it"))
    return follow_ups, skipped


@dataclass(frozen=True)
class MetamorphicInputs:
    """What a metamorphic run reads before any work: the perturbations, the seeds (and
    those unfit to be one, with why) and the rules' transformations."""

    perturbations: list[Perturbation]
    seeds: list[Seed]
    unfit: list[Skipped]
    transformations: list[Transformation]


class MetamorphicJob(Job[MetamorphicSettings, MetamorphicResult]):
    """The ``metamorphic`` job on the runner: one item per follow-up judged; a stop request
    replays no new follow-up. Starting it again on the same ``out`` with the same settings
    (``concurrency`` and ``probe`` may change), or ``sparring.runner.resume(out)``, finishes
    it. ``analyser`` replaces the answerability analysers (tests)."""

    name: ClassVar[str] = MetamorphicSettings.job
    settings_type: ClassVar[type[MetamorphicSettings]] = MetamorphicSettings
    creates_run: ClassVar[bool] = True
    needs: ClassVar[Needs] = Needs(chatbot=True, model=ModelNeed.OPTIONAL, report=True)

    def __init__(
        self,
        analyser: Analyser | None = None,
        on_follow_up: Callable[[FollowUpSummary], None] | None = None,
    ) -> None:
        self.analyser = analyser
        self.on_follow_up = on_follow_up

    def load_inputs(self, settings: MetamorphicSettings) -> MetamorphicInputs:
        """Read and check the perturbations, the seeds and the rules' transformations; the
        runner calls it before the chatbot is loaded or probed. Raises
        ``UserInputError``/``ConfigError`` with file, line and key."""
        perturbations = parse_perturbations(settings.perturbations)
        seeds, unfit = load_seeds(settings.seeds)
        transformations = load_transformations(settings.rules)
        check_variables(transformations, {k for s in seeds if s.record for k in s.record.variables})
        return MetamorphicInputs(perturbations, seeds, unfit, transformations)

    async def execute(self, settings: MetamorphicSettings, ctx: JobContext) -> MetamorphicResult:
        inputs = job_inputs(ctx, self.load_inputs, settings)
        return await _metamorphic(settings, ctx, inputs, self.analyser, self.on_follow_up)

    def outcome(self, result: MetamorphicResult) -> Outcome:
        """``fail`` when a relation was violated, ``no_verdict`` when no follow-up was
        effective (nothing concluded: never a pass), else ``pass``."""
        return metamorphic_outcome(result)


JOBS.register(MetamorphicJob.name, MetamorphicJob())


async def _metamorphic(
    settings: MetamorphicSettings,
    ctx: JobContext,
    inputs: MetamorphicInputs,
    analyser: Analyser | None,
    on_follow_up: Callable[[FollowUpSummary], None] | None,
) -> MetamorphicResult:
    perturbations, seeds, unfit = inputs.perturbations, inputs.seeds, inputs.unfit
    transformations = inputs.transformations
    config, model = ctx.chatbot, ctx.model
    method, note = choose_similarity(settings.similarity)
    follow_ups, unchanged = make_follow_ups(seeds, perturbations, settings.seed, method)
    by_seed = {s.id: s for s in seeds}
    items = _replay_items(
        seeds,
        follow_ups,
        transformations,
        settings.seed,
        settings.source_replays,
        settings.context_probe,
    )
    ctx.stage("answerability")
    analyses = await (analyser or default_analyser(model))([s.dialogue for s in seeds])
    analysis_of = {a.dialogue_id: a for a in analyses}
    store = ctx.open_run(
        settings,
        reuse=RESUME_MAY_CHANGE,
        planned=[i.id for i in items],
    )
    result = MetamorphicResult(
        seeds=str(settings.seeds),
        chatbot=str(settings.chatbot),
        similarity=method,
        threshold=THRESHOLDS[method],
        answerability=analyses[0].strategy if analyses else None,
        perturbations=[str(p) for p in perturbations] + [t.perturbation for t in transformations],
        skipped=[SkippedSeed(seed=s.seed, reason=s.reason) for s in unfit] + unchanged,
        notes=[note] if note else [],
    )
    similarity = Similarity(method, THRESHOLDS[method])
    isolated = {s.id: (len(s.dialogue.rounds) - 1 if settings.context_probe else 0) for s in seeds}
    judge = Judge(
        result,
        by_seed,
        analysis_of,
        similarity,
        store,
        settings.source_replays,
        isolated,
        acts=(settings.fallback_guard, settings.state_guard),
        fallback=config.info.fallback,
    )
    judge.follow_ups = {f.id: f for f in follow_ups}
    for record in store.iter_records():
        judge.add(record)
    finished = store.finished_ids()
    ctx.stage("follow-ups")
    ctx.planned(sum(1 for i in items if i.id not in finished and i.link.role == "follow-up"))

    def judged(summary: FollowUpSummary) -> None:
        ctx.item_done(summary.id, ok=summary.bugs == 0)
        if on_follow_up is not None:
            on_follow_up(summary)

    judge.on_follow_up = judged
    connector = create_connector(config, settings.chatbot.parent)
    try:
        await replay(items, connector, store, settings.concurrency, judge.add, ctx.stop)
        if not ctx.stop.requested:
            confirmations = _confirmation_items(by_seed, judge.to_confirm())
            await replay(confirmations, connector, store, settings.concurrency, judge.add)
    finally:
        await connector.aclose()
    store.write_summary(summarize(store.iter_records()))
    if settings.context_probe:
        asked = sum(isolated.values())
        dependent = sum(len(rounds) for rounds in judge.dependent.values())
        result.notes.append(
            f"context probe: {asked} source rounds asked alone, {dependent} depend on their "
            "context (held to MR1 only after the same rounds as in the source)"
        )
    result.complete = not ctx.stop.requested
    judge.flush(force=True)
    return result


def _replay_items(
    seeds: Sequence[Seed],
    follow_ups: Sequence[FollowUp],
    transformations: Sequence[Transformation],
    seed: int,
    source_replays: int = 1,
    context_probe: bool = False,
) -> list[ReplayItem]:
    by_seed = {s.id: s for s in seeds}
    items: list[ReplayItem] = []
    for item in seeds:
        order = list(range(len(item.dialogue.rounds)))
        questions = [r.question for r in item.dialogue.rounds]
        for repeat in range(source_replays):
            name = SOURCE if repeat == 0 else f"{SOURCE}-{repeat + 1}"
            items.append(_item(item, follow_up_id(item.id, name), name, order, questions, "source"))
        if context_probe:
            for index in order[1:]:  # the first round is asked alone by the source itself
                name = f"{ISOLATED}-{index}"
                record_id = follow_up_id(item.id, name)
                items.append(_item(item, record_id, name, [index], [questions[index]], ISOLATED))
    for follow_up in follow_ups:
        item = by_seed[follow_up.seed]
        items.append(
            _item(item, follow_up.id, follow_up.perturbation, follow_up.order, follow_up.questions)
        )
    for transformation in transformations:
        for item in seeds:
            questions = [r.question for r in item.dialogue.rounds]
            variables = dict(item.record.variables) if item.record else {}
            rng = seed_rng(seed, item.id, transformation.perturbation)
            made = transform(transformation, questions, variables, rng)
            if made is None:
                continue
            new = _item(
                item,
                follow_up_id(item.id, transformation.perturbation),
                transformation.perturbation,
                made.order,
                made.turns,
            )
            new.base["variables"] = {**new.base.get("variables", {}), **made.variables}
            items.append(new)
    return items


def _confirmation_items(
    seeds: dict[str, Seed], rounds: Sequence[tuple[str, int]]
) -> list[ReplayItem]:
    """``CONFIRMATIONS`` replays of each seed's source up to each of ``rounds``."""
    items = []
    for seed_id, index in rounds:
        seed = seeds[seed_id]
        questions = [r.question for r in seed.dialogue.rounds][: index + 1]
        for k in range(1, CONFIRMATIONS + 1):
            name = f"{CONFIRM}-{index}-{k}"
            record_id = follow_up_id(seed_id, name)
            items.append(_item(seed, record_id, name, list(range(index + 1)), questions, CONFIRM))
    return items


def _item(
    seed: Seed,
    record_id: str,
    perturbation: str,
    order: list[int],
    questions: list[str],
    role: str = "follow-up",
) -> ReplayItem:
    story = seed.dialogue.story
    source = follow_up_id(seed.id, SOURCE)
    base: dict[str, object] = {}
    if seed.record is not None:
        base = {
            "variables": dict(seed.record.variables),
            "goals": list(seed.record.goals),
            "language": seed.record.language,
            "fallback": seed.record.fallback,
        }
    return ReplayItem(
        id=record_id,
        turns=([story] if story else []) + list(questions),
        link=MetamorphicLink(
            role=role,
            seed=seed.id,
            source=source,
            perturbation=perturbation,
            order=order,
            story_turn=bool(story),
        ),
        profile=seed.record.profile if seed.record is not None else "coqa",
        base=base,
    )


RESUME_MAY_CHANGE = ("concurrency", "probe")
"""Settings a resumed metamorphic run may change (how it runs, not what it holds)."""
