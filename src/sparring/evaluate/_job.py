"""The ``evaluate`` job: breakdown detection, dialogue ratings and statistics over a run.

    from sparring.runner import start
    result = start(EvaluateJob(), EvaluateSettings(run="runs/x", model="gpt-4o-mini")).result
    print(result.statistics.run.breakdowns, result.stored)

Works on any run directory (simulated, or imported with ``sparring import-sensei``). It
stores, in the run's ``evaluations/`` slot, ``breakdowns-<detector>.json`` per detector
(``BreakdownEvaluation``), ``ratings.json`` (``RatingEvaluation``) and
``statistics.json`` (``EvaluationStatistics``). Re-running it judges only the
conversations not judged yet by the same detector and model (or left with a turn no
judgement could score; an offline ranking, unscored but with a score, is kept); results
are saved every few seconds, so an interrupted job loses little. Without a model the
offline detector runs (``sparring.evaluate._offline``) and ratings are skipped; asking for
an LLM detector or for ratings without a model raises ``ModelRequired`` before any work.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, TypeVar

from pydantic import BaseModel, Field

from sparring.connectors import ChatbotInfo, recorded_info
from sparring.conversations import MANIFEST, ConversationRecord, RunStore, Slot
from sparring.errors import ModelRequired, Problem, UnknownName, UserInputError
from sparring.evaluate._detectors import make_detector
from sparring.evaluate._llm_detector import detector_usage, total_usage
from sparring.evaluate._ratings import (
    ConversationRatings,
    DimensionSet,
    RatingDimension,
    RatingEvaluation,
    load_dimensions,
    rate_conversation,
)
from sparring.evaluate._results import (
    CHATBOT_CRASH,
    EVALUATION_SCHEMA_VERSION,
    BreakdownDetector,
    ConversationBreakdowns,
    quality_of,
)
from sparring.evaluate._stats import EvaluationStatistics, conversation_stats, run_stats
from sparring.evaluate._taxonomy import Taxonomy, load_taxonomy
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
from sparring.precision import JudgeQuality
from sparring.types import ModelUsage

DetectorName = str
"""A name in ``BREAKDOWN_DETECTORS`` (``chatchecker``, ``ghassel``, ``offline``, ``always``
or a plug-in's)."""
SAVE_INTERVAL = 2.0
"""Seconds between two saves of a result while the job runs (and once at the end)."""
PREFERENCE = ("chatchecker", "offline", "ghassel")
"""Which stored detector's breakdowns the statistics use when this run asked for none."""
RATINGS, STATISTICS = "ratings", "statistics"

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)


class EvaluateSettings(JobSettings):
    """Settings of the ``evaluate`` job.

    ``run`` is a run directory; ``model`` serves the LLM detectors and ratings (``None``:
    the offline detector, no ratings); ``detectors`` to run (``None``: ``chatchecker`` with
    a model, ``offline`` without; ``[]``: none); ``ratings`` (``None``: when a model is
    configured); ``taxonomy``/``dimensions`` replace the shipped files; ``concurrency`` is
    conversations evaluated at once (each one's turns also run concurrently, within the
    model's own concurrency).
    """

    job: ClassVar[str] = "evaluate"

    run: Path = Field(description="A run directory (simulated or imported).")
    model: str | None = Field(None, description=MODEL_HELP)
    model_base_url: str | None = Field(None, description=MODEL_BASE_URL_HELP)
    cache: bool = Field(False, description=CACHE_HELP)
    detectors: list[DetectorName] | None = Field(
        None,
        description="chatchecker, ghassel, offline, always or a plug-in's (repeatable; "
        "default: chatchecker with a model, offline without).",
    )
    ratings: bool | None = Field(None, description="Rate (default: with a model).")
    taxonomy: Path | None = Field(None, description="Error taxonomy YAML (default: 26 types).")
    dimensions: Path | None = Field(
        None, description="Rating dimensions YAML (default: ChatChecker's)."
    )
    concurrency: int = Field(4, ge=1, description="Conversations evaluated at once.")


class BreakdownEvaluation(BaseModel):
    """``evaluations/breakdowns-<detector>.json``: every judged conversation of a run by one
    detector, the model that judged (``None`` offline), the calls' usage (US dollars) and
    the detector's measured ``quality`` (``None``: not measured)."""

    schema_version: int = EVALUATION_SCHEMA_VERSION
    detector: str
    model: str | None = None
    quality: JudgeQuality | None = None
    conversations: list[ConversationBreakdowns] = Field(default_factory=list)
    usage: ModelUsage = Field(default_factory=ModelUsage)


@dataclass(frozen=True)
class EvaluateResult:
    """What the job did: ``breakdowns`` by detector and ``ratings`` (run now or stored
    before), the ``statistics``, the files ``stored`` and how many conversations were
    ``judged`` now (by any detector or the rater)."""

    run: Path
    breakdowns: dict[str, BreakdownEvaluation]
    ratings: RatingEvaluation | None
    statistics: EvaluationStatistics
    stored: list[Path]
    judged: int


def chatbot_info(store: RunStore) -> ChatbotInfo:
    """chatbot.yaml's ``info`` as the run's manifest recorded it (empty when none: imported
    runs). Raises ``ConfigError`` when it does not validate."""
    recorded = recorded_info(store.manifest.chatbot, store.path / MANIFEST)
    return recorded if recorded is not None else ChatbotInfo()


def _detectors(
    settings: EvaluateSettings, model: Model | None, taxonomy: Taxonomy
) -> list[BreakdownDetector]:
    """The detectors asked for, built from ``BREAKDOWN_DETECTORS`` (a plug-in's too).
    Raises ``UnknownName`` located at ``detectors`` (with "did you mean") for an
    unregistered name, ``ModelRequired`` for an LLM detector without a model."""
    names = settings.detectors
    if names is None:
        names = ["chatchecker"] if model is not None else ["offline"]
    custom = taxonomy if settings.taxonomy is not None else None
    detectors: list[BreakdownDetector] = []
    for name in dict.fromkeys(names):
        try:
            detectors.append(make_detector(name, model=model, taxonomy=custom))
        except UnknownName as exc:
            raise exc.at("", None, "detectors") from None
    return detectors


def _stored(store: RunStore, name: str, model: type[M]) -> M | None:
    """A stored result, or ``None`` when absent (``ConfigError`` when invalid)."""
    path = store.result_path(Slot.EVALUATIONS, name)
    return store.read_result(Slot.EVALUATIONS, name, model) if path.is_file() else None


async def _each(
    records: Sequence[ConversationRecord],
    work: Callable[[ConversationRecord], Awaitable[T]],
    limit: int,
    save: Callable[[list[T]], None],
    ctx: JobContext,
    what: str,
) -> list[T]:
    """``work`` on every record, ``limit`` at a time; ``save`` the results so far every
    ``SAVE_INTERVAL`` seconds and once at the end. Results come back in record order.
    Progress goes to ``ctx`` (stage ``what``, one item per record); once a stop is
    requested no further record is started."""
    slots = asyncio.Semaphore(limit)
    done: dict[int, T] = {}
    last = time.monotonic()
    ctx.stage(what)
    ctx.planned(len(records))

    async def one(index: int, record: ConversationRecord) -> None:
        nonlocal last
        async with slots:
            if ctx.stop.requested:
                return
            done[index] = await work(record)
        ctx.item_done(f"{what}:{record.id}", cost_usd=_cost(done[index]))
        if time.monotonic() - last >= SAVE_INTERVAL:
            last = time.monotonic()
            save([done[i] for i in sorted(done)])

    await asyncio.gather(*(one(i, r) for i, r in enumerate(records)))
    results = [done[i] for i in sorted(done)]
    save(results)
    return results


async def _detect(
    store: RunStore,
    detector: BreakdownDetector,
    model_name: str | None,
    records: list[ConversationRecord],
    chatbot: ChatbotInfo,
    taxonomy: list[str],
    limit: int,
    ctx: JobContext,
) -> tuple[BreakdownEvaluation, int]:
    name = f"breakdowns-{detector.name}"
    previous = _stored(store, name, BreakdownEvaluation)
    kept: dict[str, ConversationBreakdowns] = {}
    if previous is not None and previous.model == model_name:
        kept = {
            c.conversation: c
            for c in previous.conversations
            if all(t.breakdown is not None or t.score is not None for t in c.turns)
        }
    todo = [r for r in records if r.id not in kept]

    def result(new: list[ConversationBreakdowns]) -> BreakdownEvaluation:
        by_id = {**kept, **{c.conversation: c for c in new}}
        ordered = [by_id[r.id] for r in records if r.id in by_id]
        return BreakdownEvaluation(
            detector=detector.name,
            model=model_name,
            conversations=ordered,
            usage=detector_usage(ordered),
            quality=quality_of(detector),
        )

    async def work(record: ConversationRecord) -> ConversationBreakdowns:
        return await detector.detect(record, chatbot, taxonomy)

    def save(new: list[ConversationBreakdowns]) -> None:
        store.write_result(Slot.EVALUATIONS, name, result(new))

    new = await _each(todo, work, limit, save, ctx, name)
    return result(new), len(new)


async def _rate(
    store: RunStore,
    model: Model,
    records: list[ConversationRecord],
    chatbot: ChatbotInfo,
    dimensions: list[RatingDimension],
    limit: int,
    ctx: JobContext,
) -> tuple[RatingEvaluation, int]:
    previous = _stored(store, RATINGS, RatingEvaluation)
    kept: dict[str, ConversationRatings] = {}
    same_keys = previous is not None and previous.keys == [d.key for d in dimensions]
    if previous is not None and previous.model == model.name and same_keys:
        kept = {c.conversation: c for c in previous.conversations if c.scored}
    todo = [r for r in records if r.id not in kept]

    def result(new: list[ConversationRatings]) -> RatingEvaluation:
        by_id = {**kept, **{c.conversation: c for c in new}}
        ordered = [by_id[r.id] for r in records if r.id in by_id]
        usage = total_usage(c.usage for c in ordered)
        return RatingEvaluation(
            model=model.name, dimensions=dimensions, conversations=ordered, usage=usage
        )

    async def work(record: ConversationRecord) -> ConversationRatings:
        return await rate_conversation(model, record, chatbot, dimensions)

    def save(new: list[ConversationRatings]) -> None:
        store.write_result(Slot.EVALUATIONS, RATINGS, result(new))

    new = await _each(todo, work, limit, save, ctx, RATINGS)
    return result(new), len(new)


def _cost(result: object) -> float:
    """The model cost (US dollars) of one conversation's judgement, when it has usage."""
    usage = getattr(result, "usage", None)
    return float(getattr(usage, "cost", 0.0) or 0.0)


def _primary(ran: Sequence[str], stored: Sequence[str]) -> str | None:
    """The detector whose breakdowns the statistics count: the first this job ran, else
    the stored one first in ``PREFERENCE``."""
    if ran:
        return ran[0]
    ranked = sorted(stored, key=lambda n: PREFERENCE.index(n) if n in PREFERENCE else 99)
    return ranked[0] if ranked else None


def _statistics(
    records: list[ConversationRecord],
    breakdowns: dict[str, BreakdownEvaluation],
    ratings: RatingEvaluation | None,
    detector: str | None,
) -> EvaluationStatistics:
    judged = {
        name: {c.conversation: c for c in evaluation.conversations}
        for name, evaluation in breakdowns.items()
    }
    rated = {c.conversation: c for c in ratings.conversations} if ratings else {}
    rows = []
    for record in records:
        others = [j[record.id] for n, j in judged.items() if n != detector and record.id in j]
        mine = judged[detector].get(record.id) if detector else None
        rows.append(conversation_stats(record, mine, rated.get(record.id), other_breakdowns=others))
    primary = breakdowns[detector].conversations if detector else None
    return EvaluationStatistics(
        detector=detector, conversations=rows, run=run_stats(records, rows, primary, detector)
    )


class EvaluateJob(Job[EvaluateSettings, EvaluateResult]):
    """The ``evaluate`` job on the runner: one item per conversation per detector (and for
    the ratings); it writes into the run's ``evaluations/`` slot and creates no run. A
    stopped evaluation is finished by starting it again: what was judged is kept.
    ``model``, when given, is used instead of loading ``settings.model`` (a model built in
    code, e.g. a ``ScriptedModel`` with a responder)."""

    name: ClassVar[str] = EvaluateSettings.job
    settings_type: ClassVar[type[EvaluateSettings]] = EvaluateSettings
    creates_run: ClassVar[bool] = False
    needs: ClassVar[Needs] = Needs(model=ModelNeed.OPTIONAL, report=True)

    def __init__(self, model: Model | None = None) -> None:
        self.model = model

    def load_inputs(self, settings: EvaluateSettings) -> tuple[RunStore, Taxonomy, DimensionSet]:
        """Open the run and read the taxonomy and the rating dimensions; the runner calls it
        before loading the model (``UserInputError``/``ConfigError`` with file, line and
        key)."""
        return _read_inputs(settings)

    async def execute(self, settings: EvaluateSettings, ctx: JobContext) -> EvaluateResult:
        result = await _evaluate(settings, ctx.model, ctx)
        ctx.report_on(result.run)
        return result

    def outcome(self, result: EvaluateResult) -> Outcome:
        """The verdict of the evaluation (``evaluation_outcome``)."""
        return evaluation_outcome(result.breakdowns, result.ratings)


def evaluation_outcome(
    breakdowns: dict[str, BreakdownEvaluation], ratings: RatingEvaluation | None = None
) -> Outcome:
    """``fail`` when any detector labelled a breakdown (a chatbot crash included): a
    labelled breakdown is a finding with the detector's measured precision behind it, never
    green; ``pass`` when turns were labelled and none is a breakdown (or conversations were
    rated and nothing was labelled a breakdown); ``no_verdict`` when no turn of any detector
    was labelled — also when turns were only ranked (a ranking orders turns, each
    unscored: no verdict). Each reason counts over every chatbot turn judged."""
    turns = [t for e in breakdowns.values() for c in e.conversations for t in c.turns]
    labelled = [t for t in turns if t.breakdown is not None]
    ranked = sum(t.breakdown is None and t.score is not None for t in turns)
    rated = ratings is not None and any(c.scored for c in ratings.conversations)
    extra = f", {ranked} only ranked" if ranked else ""
    found = [t for t in labelled if t.breakdown]
    if found:
        crashes = sum(CHATBOT_CRASH in t.error_types for t in found)
        kinds = Counter(name for t in found for name in t.error_types or ["untyped"])
        top = ", ".join(f"{name} {n}" for name, n in kinds.most_common(4))
        return outcomes.failed(
            f"{len(found)} labelled breakdowns ({crashes} chatbot crashes) in {len(turns)} "
            f"chatbot turns ({len(labelled)} labelled{extra}): {top}"
        )
    if not labelled and not rated:
        if ranked:
            return outcomes.no_verdict(
                f"0 of {len(turns)} chatbot turns labelled, {ranked} only ranked (no "
                "detector found a breakdown it can label; the ranking orders the other turns "
                "by how likely a breakdown is, it does not label them); pass --model for "
                "labelled breakdowns"
            )
        return outcomes.no_verdict("no turn could be judged by any detector")
    return outcomes.passed(
        f"{len(labelled)} of {len(turns)} chatbot turns labelled{extra}, no labelled breakdown"
    )


JOBS.register(EvaluateJob.name, EvaluateJob())


def _read_inputs(settings: EvaluateSettings) -> tuple[RunStore, Taxonomy, DimensionSet]:
    """The run, the error taxonomy and the rating dimensions, read and checked
    (``UserInputError``/``ConfigError`` with file, line and key)."""
    return (
        RunStore.open(settings.run),
        load_taxonomy(settings.taxonomy),
        load_dimensions(settings.dimensions),
    )


async def _evaluate(
    settings: EvaluateSettings, model: Model | None, ctx: JobContext
) -> EvaluateResult:
    store, taxonomy, dimension_set = job_inputs(ctx, _read_inputs, settings)
    if settings.ratings and model is None:
        raise ModelRequired("dialogue ratings", "there is no offline rating")
    detectors = _detectors(settings, model, taxonomy)
    chatbot = chatbot_info(store)
    records = list(store.iter_records())
    if not records:
        raise UserInputError(Problem(str(settings.run), None, "", "the run has no conversations"))
    names = [t.name for t in taxonomy.types_for(chatbot)]
    model_name = model.name if model is not None else None
    breakdowns: dict[str, BreakdownEvaluation] = {}
    for name in store.result_names(Slot.EVALUATIONS):
        stored_result = (
            _stored(store, name, BreakdownEvaluation) if name.startswith("breakdowns-") else None
        )
        if stored_result is not None:
            breakdowns[stored_result.detector] = stored_result
    stored: list[Path] = []
    judged = 0
    ran: list[str] = []
    for detector in detectors:
        spec = model_name if detector.strategy == "llm" else None
        evaluation, count = await _detect(
            store, detector, spec, records, chatbot, names, settings.concurrency, ctx
        )
        breakdowns[detector.name] = evaluation
        ran.append(detector.name)
        stored.append(store.result_path(Slot.EVALUATIONS, f"breakdowns-{detector.name}"))
        judged += count
    ratings = _stored(store, RATINGS, RatingEvaluation)
    if model is not None and settings.ratings is not False:
        dimensions = dimension_set.for_chatbot(chatbot)
        ratings, count = await _rate(
            store, model, records, chatbot, dimensions, settings.concurrency, ctx
        )
        stored.append(store.result_path(Slot.EVALUATIONS, RATINGS))
        judged += count
    detector_name = _primary(ran, list(breakdowns))
    statistics = _statistics(records, breakdowns, ratings, detector_name)
    stored.append(store.write_result(Slot.EVALUATIONS, STATISTICS, statistics))
    return EvaluateResult(
        run=store.path,
        breakdowns=breakdowns,
        ratings=ratings,
        statistics=statistics,
        stored=stored,
        judged=judged,
    )
