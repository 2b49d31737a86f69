"""The ``mutate`` job on the runner: sample mutants of a chatbot project, run the same
profiles and rules on the original and on each mutant, and score the rules by the mutants
they kill::

    from sparring.runner import start
    run = start("mutate", {"project": "examples/pizzeria/rasa", "kind": "rasa",
                           "profiles": ["examples/pizzeria/profiles"],
                           "rules": ["examples/pizzeria/rules"], "sample": 10}, "runs/m")
    print(run.outcome.verdict, run.result.score, run.result.mutants)

The runner builds the run's manifest (job ``mutate``, its settings, the status kept
current); the original's simulate and check are stages of the job writing into that run
(``JobContext.nested``), so the run directory is the original's run — ``sparring report``
shows its conversations beside the mutation section — and it resumes like every run.
Each mutant is one item (``ItemDone``: ``ok`` unless it could not be built or run); a stop
request starts no further mutant (status ``stopped``, the finished ones kept), and
``sparring.runner.resume(run)`` runs only the mutants not finished
yet. The result is ``results/mutation.json`` (``_result``); the folder's layout is in
``_harness``, the kill decision in ``_kill``.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import ClassVar

from sparring.check import load_rules
from sparring.conversations import RunStore, is_run_directory, job_result_file
from sparring.errors import UserInputError
from sparring.jobs import JOBS, Job, JobContext, JobRunner, ModelNeed, Needs, Outcome
from sparring.mutation._builders import MutantBuilder
from sparring.mutation._harness import (
    OnMutant,
    original_result,
    run_mutant,
    run_mutants,
    run_original,
)
from sparring.mutation._model import Mutant, MutationOperator
from sparring.mutation._result import (
    MUTATION,
    MutantResult,
    MutationResult,
    mutation_outcome,
    read_mutation,
)
from sparring.mutation._sample import apply_mutant, sample_mutants
from sparring.mutation._settings import (
    EXERCISED,
    MutateSettings,
    builder_for,
    exercised_utterances,
    resolved,
    snapshot_inputs,
)
from sparring.simulate import load_plan_inputs

SettingsRunner = Callable[[MutateSettings, Mutant, list[str]], Awaitable[MutantResult]]
"""Runs one mutant of a job with these settings elsewhere (``MutantRunner`` given the
job's settings first)."""

COUNTED = ("killed", "live")
"""The statuses of a mutant that was built and run (``ItemDone.ok``)."""


class MutateJob(Job[MutateSettings, MutationResult]):
    """The ``mutate`` job (``sparring.runner.start("mutate", …)``; see the module docstring).

    ``builder`` and ``operators`` default to the kind's; ``run_one`` runs each mutant
    elsewhere (a broker's workers: all sent at once, their pool bounds them) instead of in
    this process's pool; ``on_mutant`` is told each mutant's result as it finishes. The
    runner checks the model spec before any work and writes the report (``needs``); each
    bot's chatbot.yaml is the builder's, loaded and probed as each stage starts."""

    name: ClassVar[str] = MutateSettings.job
    settings_type: ClassVar[type[MutateSettings]] = MutateSettings
    creates_run: ClassVar[bool] = True
    needs: ClassVar[Needs] = Needs(model=ModelNeed.OPTIONAL, report=True)

    def __init__(
        self,
        builder: MutantBuilder | None = None,
        operators: Sequence[MutationOperator] | None = None,
        run_one: SettingsRunner | None = None,
        on_mutant: OnMutant | None = None,
    ) -> None:
        self.builder = builder
        self.operators = operators
        self.run_one = run_one
        self.on_mutant = on_mutant

    async def execute(self, settings: MutateSettings, ctx: JobContext) -> MutationResult:
        """Check the input, sample, open the run, run the original (again only if it had
        not finished), then every mutant not finished yet. Raises before the run is
        created: ``UserInputError``/``ConfigError`` for a missing project, bad rules, no
        applicable operator, an ``out`` already used; ``OriginalFailed`` when the original
        cannot be built or reached (the run's status is then ``failed``)."""
        if ctx.resuming:
            store = ctx.store
            state = read_mutation(store.path)
            if state is None:  # killed before its first write: sampled again (seeded)
                state = _new_state(settings, [m.id for m in self._sample(settings)])
            builder = self.builder or builder_for(settings)
            done = state.finished_ids()
            todo = [
                apply_mutant(settings.project, i, self.operators)
                for i in state.sampled
                if i not in done
            ]
        else:
            settings, store, state, builder, todo = self._open(settings, ctx)
        state.settings = settings.model_dump(mode="json")  # a resume's changes (workers…)
        return await self._finish(settings, builder, state, todo, store, ctx)

    def outcome(self, result: MutationResult) -> Outcome:
        """By the mutation score (``mutation_outcome``, with the run's ``min_score``)."""
        min_score = MutateSettings.model_validate(result.settings).min_score
        return mutation_outcome(result, min_score)

    def load_inputs(self, settings: MutateSettings) -> None:
        """Check the project folder, the rules and the profiles (and that
        ``exercised_only`` fits the project's kind) before any build or model; the runner
        calls it first. Raises ``UserInputError``/``ConfigError`` with file, line and key
        — not after the original has been built and run."""
        if not settings.project.is_dir():
            raise UserInputError(f"no project folder {settings.project}")
        load_rules(settings.rules)
        load_plan_inputs(settings.profiles, [])
        if settings.exercised_only and settings.kind not in EXERCISED:
            kinds = ", ".join(sorted(EXERCISED))
            message = f"--exercised-only works for {kinds} projects, not {settings.kind}"
            raise UserInputError(message)

    def _open(
        self, settings: MutateSettings, ctx: JobContext
    ) -> tuple[MutateSettings, RunStore, MutationResult, MutantBuilder, list[Mutant]]:
        settings = resolved(settings)
        builder = self.builder or builder_for(settings)
        mutants = self._sample(settings)
        store = ctx.open_run(settings)
        snapshot_inputs(settings, store.path)
        state = _new_state(settings, [m.id for m in mutants])
        state.write(store)
        return settings, store, state, builder, mutants

    def _sample(self, settings: MutateSettings) -> list[Mutant]:
        """The seeded sample (none yet with ``exercised_only``: drawn after the original's
        run, from what it exercised)."""
        if settings.exercised_only:
            return []
        return sample_mutants(
            settings.project, settings.kind, settings.sample, settings.seed, self.operators
        )

    async def _finish(
        self,
        settings: MutateSettings,
        builder: MutantBuilder,
        state: MutationResult,
        mutants: list[Mutant],
        store: RunStore,
        ctx: JobContext,
    ) -> MutationResult:
        root = store.path
        plan = settings.plan(root)
        if state.original is None:
            ctx.stage("original")
            runs = await run_original(builder, plan, ctx, settings.original_runs)
            state.original = original_result(runs)
            _save(state, store)
        if settings.exercised_only and not state.sampled:
            keep = EXERCISED[settings.kind](settings.project, exercised_utterances(root))
            mutants = sample_mutants(
                settings.project, settings.kind, settings.sample, settings.seed,
                self.operators, keep,
            )  # fmt: skip
            state.sampled = [m.id for m in mutants]
            _save(state, store)
        ctx.stage("mutants")
        ctx.planned(len(mutants))

        def done(result: MutantResult) -> None:
            state.add(result, datetime.now(UTC))
            state.write(store)
            ok = result.status in COUNTED
            ctx.item_done(result.id, ok, error=None if ok else result.reason or result.status)
            if self.on_mutant is not None:
                self.on_mutant(result)

        workers = settings.workers or builder.workers
        remote = functools.partial(self.run_one, settings) if self.run_one else None
        if remote is not None:
            workers = max(1, len(mutants))  # all out at once: the workers' pool bounds them
        false_positives = state.original.false_positives
        await run_mutants(
            ctx, builder, plan, mutants, false_positives, root, workers, done, remote, ctx.stop
        )
        _save(state, store)
        return state


JOBS.register(MutateJob.name, MutateJob())


def _new_state(settings: MutateSettings, sampled: list[str]) -> MutationResult:
    now = datetime.now(UTC)
    return MutationResult(
        created_at=now,
        updated_at=now,
        settings=settings.model_dump(mode="json"),
        sampled=sampled,
    )


def _save(state: MutationResult, store: RunStore) -> None:
    state.refresh(datetime.now(UTC))
    state.write(store)


def adopt_old_run(out: Path | str) -> MutateSettings | None:
    """Make a mutate folder written before 0.3 (the original's ``simulate`` manifest at
    the root, ``mutation.json`` at the root or in ``results/``) a ``mutate`` run the
    runner resumes: its manifest names the job ``mutate`` with the settings kept in
    ``mutation.json``. Returns those settings when the folder has no manifest (its
    original never finished a conversation: the job starts over in it), else ``None``
    (nothing to do for a folder that is no old mutate job). Raises ``ConfigError`` when
    the stored settings do not validate."""
    folder = Path(out)
    state = read_mutation(folder)
    if state is None:
        return None
    settings = MutateSettings.from_manifest(state.settings, job_result_file(folder, MUTATION))
    if not is_run_directory(folder):
        return settings
    store = RunStore.open(folder, clean=False)
    if store.manifest.job != MutateJob.name:
        stored = settings.model_dump(mode="json")
        store.manifest = store.manifest.model_copy(
            update={"job": MutateJob.name, "settings": stored}
        )
        store.save_manifest()
    return None


async def run_one_mutant(
    settings: MutateSettings,
    mutant_id: str,
    false_positives: list[str],
    out: Path,
    runner: JobRunner,
) -> MutantResult:
    """Build, run and judge one mutant of a job with ``settings`` (its stored settings)
    in the folder ``out`` (its run under ``out/mutants/``): what a worker does with one
    mutant (docs/distributed.md). The mutant is rebuilt from its id; ``false_positives``
    are the rules failing on the original; ``runner`` starts its runs (a worker passes
    ``sparring.runner.RUNNER``). Never raises for the mutant's failures;
    ``UserInputError`` for a project the settings cannot build."""
    builder = builder_for(settings)
    mutant = apply_mutant(settings.project, mutant_id)
    return await run_mutant(runner, builder, settings.plan(), mutant, false_positives, out)
