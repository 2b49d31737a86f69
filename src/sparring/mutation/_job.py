"""The ``mutate`` job: sample mutants of a chatbot project, run the same profiles and rules
on the original and on each mutant, and score the rules by the mutants they kill.

    from sparring.mutation import MutateSettings, mutate_job
    settings = MutateSettings(project="examples/pizzeria/rasa", kind="rasa",
                              profiles=["examples/pizzeria/profiles"],
                              rules=["examples/pizzeria/rules"], sample=10)
    result = mutate_job(settings, "runs/mutants")      # result.score, result.mutants

``resume_mutate_job(out)`` finishes an interrupted job with the settings and sample kept
in ``out/mutation.json``, skipping the mutants already finished. The folder's layout is in
``_harness``; the kill decision in ``_kill``.
"""

from __future__ import annotations

import functools
import os
import shutil
from collections.abc import Awaitable, Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import ClassVar

from pydantic import Field

from sparring.check import load_rules
from sparring.conversations import RunStore, job_result_file
from sparring.errors import UserInputError
from sparring.jobs import JobSettings, new_run_dir, run_blocking
from sparring.mutation._build_command import TASKYTO_COMMAND, TASKYTO_ENV, ServeCommandBuilder
from sparring.mutation._build_rasa import RasaBuilder, default_helper
from sparring.mutation._builders import CopyBuilder, MutantBuilder
from sparring.mutation._harness import (
    OnMutant,
    RunPlan,
    original_result,
    run_mutant,
    run_mutants,
    run_original,
)
from sparring.mutation._model import Location, Mutant, MutationOperator, ProjectKind
from sparring.mutation._operators.aiml_reach import Utterance, reached_filter
from sparring.mutation._processes import terminating_signals
from sparring.mutation._result import (
    MUTATION,
    MUTATION_FILE,
    MutantResult,
    MutationResult,
    read_mutation,
)
from sparring.mutation._sample import apply_mutant, sample_mutants


class MutateSettings(JobSettings):
    """Settings of the ``mutate`` job (stored in ``mutation.json``).

    ``project`` is the chatbot project folder the operators mutate, of ``kind``;
    ``profiles`` and ``rules`` are files or folders, run on every bot with ``seed``;
    ``sample`` mutants are drawn (``None``: every one); ``workers`` mutants run at once
    (``None``: the builder's default — half the cores for Rasa, 4 in process);
    ``chatbot`` is the ``chatbot.yaml`` (Rasa: the original's, whose ``params.url`` each
    build replaces, default ``<project>/../chatbot.yaml``; in-process kinds: a path
    inside the project, default ``<project>/chatbot.yaml``); ``rasa_helper`` the project's
    Rasa helper file (default ``<project>/../rasa_bot.py``); ``model`` serves the user
    simulator and model-backed rules (``None``: offline); ``concurrency`` conversations at
    once per bot; ``max_turns`` caps user turns; ``exercised_only`` draws the sample, after
    the original's run, only from locations its conversations reach (``EXERCISED``: AIML);
    ``serve_command`` serves each build with a command instead (``{project}``, ``{port}``;
    Taskyto's ``taskyto-serve`` by default for ``taskyto``); ``original_runs`` runs the
    original that many times, and a rule failing on any of them kills nothing (a bot that
    answers at random).
    """

    job: ClassVar[str] = "mutate"

    project: Path
    kind: ProjectKind
    profiles: list[Path] = Field(min_length=1)
    rules: list[Path] = Field(min_length=1)
    sample: int | None = Field(None, ge=1)
    seed: int = 0
    workers: int | None = Field(None, ge=1)
    chatbot: Path | None = None
    rasa_helper: Path | None = None
    model: str | None = None
    model_base_url: str | None = None
    cache: bool = False
    concurrency: int = Field(4, ge=1)
    max_turns: int = Field(40, ge=1)
    exercised_only: bool = False
    serve_command: list[str] | None = None
    original_runs: int = Field(1, ge=1)

    def plan(self, root: Path | None = None) -> RunPlan:
        """What every bot is run with; the profiles and rules are the copies the job took
        into ``root/inputs`` when it started (``snapshot_inputs``), where there are any."""
        profiles, rules = self.profiles, self.rules
        if root is not None and (root / INPUTS).is_dir():
            profiles, rules = _inputs(root, "profiles"), _inputs(root, "rules")
        return RunPlan(
            project=self.project,
            profiles=profiles,
            rules=rules,
            seed=self.seed,
            model=self.model,
            model_base_url=self.model_base_url,
            cache=self.cache,
            concurrency=self.concurrency,
            max_turns=self.max_turns,
        )


SettingsRunner = Callable[[MutateSettings, Mutant, list[str]], Awaitable[MutantResult]]
"""Runs one mutant of a job with these settings elsewhere (``MutantRunner`` given the
job's settings first)."""

INPUTS = "inputs"
"""The job folder's copy of its profiles and rules: editing the originals while a long job
runs must not judge some mutants with other rules than the original."""


def snapshot_inputs(settings: MutateSettings, root: Path) -> None:
    """Copy the profiles and rules (files or folders) into ``root/inputs/{profiles,rules}/
    <n>-<name>``."""
    for kind, paths in (("profiles", settings.profiles), ("rules", settings.rules)):
        folder = root / INPUTS / kind
        folder.mkdir(parents=True, exist_ok=True)
        for n, path in enumerate(paths):
            target = folder / f"{n}-{path.name}"
            if path.is_dir():
                shutil.copytree(path, target, dirs_exist_ok=True)
            else:
                shutil.copyfile(path, target)


def _inputs(root: Path, kind: str) -> list[Path]:
    found = sorted((root / INPUTS / kind).iterdir(), key=lambda p: int(p.name.split("-")[0]))
    return list(found)


EXERCISED: dict[str, Callable[[Path, Iterable[Utterance]], Callable[[Location], bool]]] = {
    "aiml": reached_filter,
}
"""Per kind of project: a predicate on mutant locations from the user utterances (each with
the bot's reply before it) that a run sent, for ``exercised_only``."""


def exercised_utterances(run: Path) -> list[Utterance]:
    """Each user utterance of the run in ``run`` with the bot's reply before it."""
    found: list[Utterance] = []
    for record in RunStore.open(run, clean=False).iter_records():
        before: str | None = None
        for turn in record.turns:
            if turn.role == "user":
                found.append((turn.text, before))
            else:
                before = turn.text
    return found


def builder_for(settings: MutateSettings) -> MutantBuilder:
    """The builder for ``settings.kind``. Raises ``UserInputError`` for a missing helper
    or chatbot.yaml."""
    project = settings.project
    if settings.kind == "taskyto" or settings.serve_command:
        chatbot = settings.chatbot or project.resolve().parent / "chatbot.yaml"
        if not chatbot.is_file():
            raise UserInputError(f"no chatbot.yaml at {chatbot} (--chatbot)")
        if settings.serve_command:
            return ServeCommandBuilder(settings.serve_command, chatbot)
        return ServeCommandBuilder(TASKYTO_COMMAND, chatbot, env=TASKYTO_ENV)
    if settings.kind == "rasa":
        helper = settings.rasa_helper or default_helper(project)
        chatbot = settings.chatbot or project.resolve().parent / "chatbot.yaml"
        for path, what in ((helper, "Rasa helper (--rasa-helper)"), (chatbot, "chatbot.yaml")):
            if not path.is_file():
                raise UserInputError(f"no {what} at {path}")
        return RasaBuilder(helper, chatbot)
    if settings.kind in ("aiml", "prompt"):
        chatbot = settings.chatbot or project / "chatbot.yaml"
        if not chatbot.resolve().is_relative_to(project.resolve()):
            raise UserInputError(f"{chatbot} must be inside the project {project}")
        relative = chatbot.resolve().relative_to(project.resolve()).as_posix()
        return CopyBuilder(relative, workers=os.cpu_count() or 4)
    raise UserInputError(f"mutate cannot build {settings.kind} projects")


async def mutate_job_async(
    settings: MutateSettings,
    out: Path | str | None = None,
    *,
    builder: MutantBuilder | None = None,
    operators: Sequence[MutationOperator] | None = None,
    on_sample: Callable[[int], None] | None = None,
    on_mutant: OnMutant | None = None,
    run_one: SettingsRunner | None = None,
) -> MutationResult:
    """Sample, run the original into ``out`` (default ``runs/<time>``), then every mutant.

    Raises before writing anything: ``UserInputError``/``ConfigError`` for a missing
    project, bad rules, no applicable operator, an ``out`` already used. Raises
    ``OriginalFailed`` when the original cannot be built or reached. ``builder`` and
    ``operators`` default to the kind's; ``on_sample(n)`` is told the mutants to run;
    ``run_one`` runs each mutant elsewhere (all at once; a broker's workers) instead of in
    this process's pool.
    """
    if not settings.project.is_dir():
        raise UserInputError(f"no project folder {settings.project}")
    load_rules(settings.rules)  # bad rules: a located error now, not after the original
    root = Path(out) if out is not None else new_run_dir()
    if (root / "manifest.json").exists() or read_mutation(root) is not None:
        raise UserInputError(f"{root} already holds a run; pick another --out or --resume it")
    settings = _resolved(settings)
    builder = builder or builder_for(settings)
    if settings.exercised_only and settings.kind not in EXERCISED:
        kinds = ", ".join(sorted(EXERCISED))
        raise UserInputError(f"--exercised-only works for {kinds} projects, not {settings.kind}")
    mutants = (
        []  # drawn after the original's run, from what it exercised
        if settings.exercised_only
        else sample_mutants(
            settings.project, settings.kind, settings.sample, settings.seed, operators
        )
    )
    now = datetime.now(UTC)
    state = MutationResult(
        created_at=now,
        updated_at=now,
        settings=settings.model_dump(mode="json"),
        sampled=[m.id for m in mutants],
    )
    root.mkdir(parents=True, exist_ok=True)
    snapshot_inputs(settings, root)
    state.write(root)
    return await _finish(
        settings, builder, state, mutants, root, on_sample, on_mutant, operators, run_one
    )


async def resume_mutate_job_async(
    out: Path | str,
    *,
    builder: MutantBuilder | None = None,
    operators: Sequence[MutationOperator] | None = None,
    workers: int | None = None,
    on_sample: Callable[[int], None] | None = None,
    on_mutant: OnMutant | None = None,
    run_one: SettingsRunner | None = None,
) -> MutationResult:
    """Finish the job in ``out``: its own settings and sample, the original again only if
    it had not finished, then the mutants not finished yet (an unfinished mutant starts
    over). Raises ``UserInputError`` when ``out`` holds no ``mutation.json``."""
    root = Path(out)
    state = read_mutation(root)
    if state is None:
        raise UserInputError(f"{root} holds no {MUTATION_FILE}: not a mutate job")
    settings = MutateSettings.from_manifest(state.settings, job_result_file(root, MUTATION))
    if workers is not None:
        settings = settings.model_copy(update={"workers": workers})
    builder = builder or builder_for(settings)
    done = state.finished_ids()
    todo = [apply_mutant(settings.project, i, operators) for i in state.sampled if i not in done]
    return await _finish(
        settings, builder, state, todo, root, on_sample, on_mutant, operators, run_one
    )


async def _finish(
    settings: MutateSettings,
    builder: MutantBuilder,
    state: MutationResult,
    mutants: list[Mutant],
    root: Path,
    on_sample: Callable[[int], None] | None,
    on_mutant: OnMutant | None,
    operators: Sequence[MutationOperator] | None,
    run_one: SettingsRunner | None = None,
) -> MutationResult:
    plan = settings.plan(root)
    if state.original is None:
        runs = await run_original(builder, plan, root, settings.original_runs)
        state.original = original_result(runs)
        state.refresh(datetime.now(UTC))
        state.write(root)
    if settings.exercised_only and not state.sampled:
        keep = EXERCISED[settings.kind](settings.project, exercised_utterances(root))
        mutants = sample_mutants(
            settings.project, settings.kind, settings.sample, settings.seed, operators, keep
        )
        state.sampled = [m.id for m in mutants]
        state.refresh(datetime.now(UTC))
        state.write(root)
    if on_sample is not None:
        on_sample(len(mutants))
    workers = settings.workers or builder.workers
    remote = functools.partial(run_one, settings) if run_one is not None else None
    if remote is not None:
        workers = max(1, len(mutants))  # all out at once: the workers' pool bounds them
    await run_mutants(builder, plan, mutants, state, root, workers, on_mutant, remote)
    state.refresh(datetime.now(UTC))
    state.write(root)
    return state


def mutate_job(
    settings: MutateSettings,
    out: Path | str | None = None,
    *,
    builder: MutantBuilder | None = None,
    operators: Sequence[MutationOperator] | None = None,
    on_sample: Callable[[int], None] | None = None,
    on_mutant: OnMutant | None = None,
    run_one: SettingsRunner | None = None,
) -> MutationResult:
    """``mutate_job_async`` for synchronous callers; SIGTERM and SIGHUP stop it like
    Ctrl-C (every server it started is stopped)."""
    job = mutate_job_async(
        settings, out, builder=builder, operators=operators, on_sample=on_sample,
        on_mutant=on_mutant, run_one=run_one,
    )  # fmt: skip
    with terminating_signals():
        return run_blocking(job)


def resume_mutate_job(
    out: Path | str,
    *,
    builder: MutantBuilder | None = None,
    operators: Sequence[MutationOperator] | None = None,
    workers: int | None = None,
    on_sample: Callable[[int], None] | None = None,
    on_mutant: OnMutant | None = None,
    run_one: SettingsRunner | None = None,
) -> MutationResult:
    """``resume_mutate_job_async`` for synchronous callers (signals as ``mutate_job``)."""
    job = resume_mutate_job_async(
        out, builder=builder, operators=operators, workers=workers, on_sample=on_sample,
        on_mutant=on_mutant, run_one=run_one,
    )  # fmt: skip
    with terminating_signals():
        return run_blocking(job)


async def run_one_mutant(
    settings: MutateSettings, mutant_id: str, false_positives: list[str], out: Path
) -> MutantResult:
    """Build, run and judge one mutant of a job with ``settings`` (its stored settings)
    in the folder ``out`` (its run under ``out/mutants/``): what a worker does with one
    mutant (docs/distributed.md). The mutant is rebuilt from its id; ``false_positives``
    are the rules failing on the original. Never raises for the mutant's failures;
    ``UserInputError`` for a project the settings cannot build."""
    builder = builder_for(settings)
    mutant = apply_mutant(settings.project, mutant_id)
    return await run_mutant(builder, settings.plan(), mutant, false_positives, out)


def _resolved(settings: MutateSettings) -> MutateSettings:
    """``settings`` with absolute paths, so the job resumes from any folder."""
    return settings.model_copy(
        update={
            "project": settings.project.resolve(),
            "profiles": [p.resolve() for p in settings.profiles],
            "rules": [p.resolve() for p in settings.rules],
            "chatbot": settings.chatbot.resolve() if settings.chatbot else None,
            "rasa_helper": settings.rasa_helper.resolve() if settings.rasa_helper else None,
        }
    )
