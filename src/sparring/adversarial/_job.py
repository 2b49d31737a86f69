"""The ``adversarial test`` job: weaknesses → concurrent judge-steered threads → results
and the model's analysis, in a run directory (Agent-Testing Agent, arXiv 2508.17393, §3.2
and §3.3)::

    from sparring.runner import start
    done = start("adversarial-test", AdversarialTestSettings(
        chatbot="chatbot.yaml", weaknesses="weaknesses.yaml", model="gpt-4o-mini"), "runs/adv")
    done.result.result.tests   # one AdversarialTest per test; done.run_dir the run

The run holds one conversation record per test (``conversations/<weakness>/round-N``), the
results in ``adversarial.json`` (rewritten after every test) and ``summary.json``.
``sparring.runner.resume(run_dir)`` finishes an interrupted run: finished tests are kept
and each thread goes on from its last difficulty.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field

from sparring.adversarial._analysis import analyse, ask
from sparring.adversarial._results import (
    ADVERSARIAL,
    ADVERSARIAL_FILE,
    AdversarialResult,
    AdversarialTest,
)
from sparring.adversarial._rubrics import Rubric, load_rubric
from sparring.adversarial._threads import (
    OnTest,
    SharedState,
    ThreadContext,
    conversation_id,
    run_threads,
)
from sparring.adversarial._weaknesses import WeaknessFile, load_weaknesses
from sparring.connectors import ChatbotConfig, create_connector
from sparring.conversations import (
    RunStore,
    job_result_file,
    read_json_model,
    summarize,
)
from sparring.errors import ModelError, ModelRequired, UserInputError
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
from sparring.llm import CACHE_HELP, MODEL_BASE_URL_HELP, MODEL_HELP, Meter, Model

"""Called once before the first test with the most tests the run can still make."""


class AdversarialTestSettings(JobSettings):
    """Settings of ``sparring adversarial test`` (stored in the run's manifest).

    ``chatbot`` the ``chatbot.yaml``; ``weaknesses`` the ``weaknesses.yaml``; ``model`` the
    model spec playing attacker, user and judge (required); ``rounds`` tests per weakness
    at most (the paper's three); ``concurrency`` weakness threads at once; ``rubric`` a
    rubric YAML (``None``: the paper's overall utility scale); ``reply_timeout`` seconds to
    wait for one chatbot reply (``None``: the connector's ``timeout`` + 5 s); ``probe``
    checks the chatbot answers before anything is written.
    """

    job: ClassVar[str] = "adversarial-test"

    chatbot: Path = Field(description="The chatbot under test (chatbot.yaml).")
    weaknesses: Path = Field(description="The weaknesses to test (weaknesses.yaml).")
    model: str | None = Field(None, description=MODEL_HELP)
    model_base_url: str | None = Field(None, description=MODEL_BASE_URL_HELP)
    cache: bool = Field(False, description=CACHE_HELP)
    rounds: int = Field(3, ge=1, le=20, description="Tests per weakness at most.")
    concurrency: int = Field(4, ge=1, description="Weakness threads at once.")
    rubric: Path | None = Field(None, description="Judge rubric YAML (default: overall utility).")
    reply_timeout: float | None = Field(
        None, gt=0, description="Seconds per reply (default: the connector's + 5)."
    )
    probe: bool = Field(True, description="Check the chatbot answers first.")

    def timeout(self, config: ChatbotConfig) -> float:
        """Seconds the runner waits for one reply."""
        return config.reply_timeout(self.reply_timeout)


@dataclass(frozen=True)
class AdversarialRun:
    """What the job did: the run's store and its results (also in ``adversarial.json``)."""

    store: RunStore
    result: AdversarialResult

    @property
    def results_path(self) -> Path:
        """``<run>/results/adversarial.json`` (a run before 0.3: ``<run>/adversarial.json``)."""
        return job_result_file(self.store.path, ADVERSARIAL)


@dataclass(frozen=True)
class _Inputs:
    config: ChatbotConfig
    weaknesses: WeaknessFile
    rubric: Rubric
    model: Model


def _read_files(settings: AdversarialTestSettings) -> tuple[WeaknessFile, Rubric]:
    """The weaknesses and the rubric, read and checked (``ConfigError`` with file, line
    and key)."""
    return load_weaknesses(settings.weaknesses), load_rubric(settings.rubric)


def _inputs(settings: AdversarialTestSettings, ctx: JobContext) -> _Inputs:
    """The files loaded and checked before any work (``ConfigError`` with file, line and
    key), beside the chatbot and the model the runner provided."""
    weaknesses, rubric = job_inputs(ctx, _read_files, settings)
    assert ctx.model is not None  # needs a model: the runner stopped without one
    return _Inputs(ctx.chatbot, weaknesses, rubric, ctx.model)


class AdversarialTestJob(Job[AdversarialTestSettings, AdversarialRun]):
    """``adversarial test`` on the runner: one item per test; a stop request starts no new
    test (the analysis waits for the run's end); ``sparring.runner.resume(run)`` goes on
    from each thread's difficulty. ``model`` overrides ``settings.model`` (tests)."""

    name: ClassVar[str] = AdversarialTestSettings.job
    settings_type: ClassVar[type[AdversarialTestSettings]] = AdversarialTestSettings
    creates_run: ClassVar[bool] = True
    needs: ClassVar[Needs] = Needs(
        chatbot=True,
        model=ModelNeed.REQUIRED,
        step="adversarial testing",
        detail="the attacker, the simulated user and the judge",
        report=True,
    )

    def __init__(self, model: Model | None = None, on_test: OnTest | None = None) -> None:
        self.model = model
        self.on_test = on_test

    def load_inputs(self, settings: AdversarialTestSettings) -> tuple[WeaknessFile, Rubric]:
        """Read the weaknesses and the rubric; the runner calls it before the chatbot is
        loaded or probed (``ConfigError`` with file, line and key)."""
        return _read_files(settings)

    async def execute(self, settings: AdversarialTestSettings, ctx: JobContext) -> AdversarialRun:
        inputs = _inputs(settings, ctx)
        if ctx.resuming:
            store = ctx.store
            result = read_json_model(job_result_file(store.path, ADVERSARIAL), AdversarialResult)
            result.complete = False
        else:
            store = ctx.open_run(**_manifest(settings, inputs))
            result = AdversarialResult(
                model=inputs.model.name,
                rubric=inputs.rubric.name,
                rounds=settings.rounds,
                started_at=datetime.now(UTC),
                weaknesses=inputs.weaknesses.weaknesses,
            )

        def tested(test: AdversarialTest) -> None:
            failed = test.status == "chatbot_failure"
            ctx.item_done(test.conversation_id or test.weakness, ok=not failed,
                          cost_usd=test.usage.cost)  # fmt: skip
            if self.on_test is not None:
                self.on_test(test)

        return await _run(store, settings, inputs, SharedState(result, store, tested), ctx)

    def outcome(self, run: AdversarialRun) -> Outcome:
        """``no_verdict`` when no test was scored by the judge; else ``pass`` with the
        lowest mean score named (the judge's scores are findings to read, not a gate)."""
        result = run.result
        means = [(m, w.id) for w in result.weaknesses
                 if (m := result.mean_score(w.id)) is not None]  # fmt: skip
        if not means:
            return outcomes.no_verdict("the judge scored no test")
        lowest, weakness = min(means)
        return outcomes.passed(
            f"{len(result.tests)} tests judged; lowest mean score {lowest:.2f} ({weakness})"
        )


JOBS.register(AdversarialTestJob.name, AdversarialTestJob())


async def _run(
    store: RunStore,
    settings: AdversarialTestSettings,
    inputs: _Inputs,
    state: SharedState,
    ctx: JobContext,
) -> AdversarialRun:
    state.save()
    result = state.result
    ctx.stage("threads")
    ctx.planned(
        sum(max(0, settings.rounds - len(result.tests_of(w.id))) for w in result.weaknesses)
    )
    connector = create_connector(inputs.config)
    context = ThreadContext(
        model=inputs.model,
        rubric=inputs.rubric,
        connector=connector,
        chatbot=inputs.config.info,
        rounds=settings.rounds,
        reply_timeout=settings.timeout(inputs.config),
        state=state,
        stop=ctx.stop,
    )
    try:
        await run_threads(state.result.weaknesses, context, settings.concurrency)
    finally:
        await connector.aclose()
    if ctx.stop.requested:  # the analysis reads every thread: it waits for the resume
        state.save()
        store.write_summary(summarize(store.iter_records()))
        return AdversarialRun(store=store, result=result)
    if result.analysis is None:
        meter = Meter()
        try:
            result.analysis = await analyse(inputs.model, result, meter)
            result.analysis_error = None
        except ModelError as exc:
            result.analysis_error = f"the model could not write the analysis: {exc}"
        for usage in meter.usage.values():
            result.analysis_usage.calls += usage.calls
            result.analysis_usage.prompt_tokens += usage.prompt_tokens
            result.analysis_usage.completion_tokens += usage.completion_tokens
            result.analysis_usage.cost += usage.cost
    result.complete = True
    state.save()
    _plan_what_ran(store, result)
    store.write_summary(summarize(store.iter_records()))
    return AdversarialRun(store=store, result=result)


def _plan_what_ran(store: RunStore, result: AdversarialResult) -> None:
    """A thread ends early by design (the bot crashed, the judge stopped it…): once every
    thread ended, the rounds none ran leave the manifest's ``planned``, so a finished run
    holds every conversation it planned (``conversations.incomplete_run``) and a stopped
    one still lacks the rounds its threads had left."""
    ran = {t.conversation_id for t in result.tests if t.conversation_id is not None}
    planned = [i for i in store.manifest.planned if i in ran]
    store.manifest = store.manifest.model_copy(update={"planned": planned})
    store.save_manifest()


def _manifest(settings: AdversarialTestSettings, inputs: _Inputs) -> dict[str, Any]:
    """What the new run's manifest holds besides the job and the chatbot (the runner's)."""
    stored = settings.model_copy(
        update={
            "chatbot": settings.chatbot.resolve(),
            "weaknesses": settings.weaknesses.resolve(),
            "rubric": settings.rubric.resolve() if settings.rubric is not None else None,
        }
    )
    return {
        "settings": stored,
        "planned": [
            conversation_id(w.id, r)
            for w in inputs.weaknesses.weaknesses
            for r in range(settings.rounds)
        ],
    }


def load_results(run_dir: Path | str) -> AdversarialResult:
    """The ``adversarial.json`` of ``run_dir``. Raises ``UserInputError`` when the run has
    none, ``ConfigError`` when it does not validate."""
    path = job_result_file(run_dir, ADVERSARIAL)
    if not path.is_file():
        raise UserInputError(f"{run_dir}: no {ADVERSARIAL_FILE} (not an adversarial test run?)")
    return read_json_model(path, AdversarialResult)


async def ask_async(run_dir: Path | str, question: str, model: Model | None) -> str:
    """``sparring adversarial ask``: the model's answer to ``question`` from the run's
    stored results. Raises ``ModelRequired`` (naming ``--model``) without a model,
    ``UserInputError`` without results, ``ModelError`` when the model fails."""
    if model is None:
        raise ModelRequired("answering questions about the results", "there is no offline answer")
    return await ask(model, load_results(run_dir), question)
