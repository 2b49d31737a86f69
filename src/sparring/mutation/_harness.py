"""Running the original and each mutant: build → simulate → check → close.

Layout of the job's folder ``out``::

    out/                      the mutate job's run (manifest job ``mutate``: settings, status,
                              outcome) holding the ORIGINAL's conversations, summary,
                              verdicts/ and report/ (its simulate and check are stages of
                              the job: ``JobContext.nested``) — plus:
      results/mutation.json   settings, sampled ids, results (``_result``), rewritten
                              through the run's store as each mutant finishes
      build/                  the original's build (logs, generated chatbot.yaml)
      original-runs/<n>/      the original's further runs (``original_runs`` > 1)
      mutants/<safe id>/      each mutant's own simulate run, its build/ folder beside

Every bot gets the same profiles, seed and rules. The original runs first; a mutant's
run is judged against it (``_kill``). Mutants run in a pool of ``workers``; once a stop is
requested no further mutant starts. Runs written before 0.3 hold a ``simulate`` manifest
at the root (the original's run) and ``mutation.json`` at the root or in ``results/``.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sparring.check import CheckJob, CheckReport, CheckSettings
from sparring.connectors import ChatbotUnreachable
from sparring.conversations import RunHealth, assess_run, record_file_name
from sparring.errors import SparringError
from sparring.jobs import Job, JobContext, JobRunner, JobSettings, StopSignal
from sparring.mutation._builders import BuildFailed, BuiltBot, MutantBuilder, copy_project
from sparring.mutation._kill import Kill, failing, judge
from sparring.mutation._model import Mutant
from sparring.mutation._result import UNREACHABLE, Durations, MutantResult, OriginalResult
from sparring.simulate import SimulateJob, SimulateSettings, SimulationResult

logger = logging.getLogger(__name__)

MUTANTS = "mutants"
BUILD = "build"
ORIGINAL_RUNS = "original-runs"
ORIGINAL_ENTRIES = ("summary.json", "verdicts", BUILD, ORIGINAL_RUNS)
"""What a half-done original run leaves in ``out`` besides its conversations (removed before
it is run again; the conversations it finished are kept and not simulated again)."""

OnMutant = Callable[[MutantResult], None]
MutantRunner = Callable[[Mutant, list[str]], Awaitable[MutantResult]]
"""Runs one mutant given the original's false positives and returns its result, never
raising for the mutant's failures: ``run_mutant`` in this process by default, a task on a
``sparring worker`` with a broker (docs/distributed.md)."""


class OriginalFailed(SparringError):
    """The unmutated bot could not be built or reached, or failed in most of its
    conversations (``conversations.assess_run``): nothing can be compared to it."""


@dataclass(frozen=True)
class RunPlan:
    """What every bot is run with: profiles, rules, and simulate/check settings."""

    project: Path
    profiles: list[Path]
    rules: list[Path]
    seed: int = 0
    model: str | None = None
    model_base_url: str | None = None
    cache: bool = False
    concurrency: int = 4
    max_turns: int = 40


@dataclass
class BotRun:
    """One bot's run: its check report, the seconds each step took, and whether the bot
    answered its conversations (``health``)."""

    report: CheckReport
    conversations: int
    durations: Durations
    notes: list[str]
    health: RunHealth = field(default_factory=lambda: assess_run([]))


def mutant_folder(mutant_id: str) -> str:
    """The mutant's folder name under ``mutants/`` (its id, made file-name safe)."""
    return record_file_name(mutant_id).removesuffix(".json")


async def run_bot(
    runner: JobRunner,
    builder: MutantBuilder,
    plan: RunPlan,
    files: dict[str, str],
    run_dir: Path,
    build_dir: Path,
    durations: Durations | None = None,
    ctx: JobContext | None = None,
) -> BotRun:
    """Copy the project with ``files`` written over it, build, simulate into ``run_dir``,
    check, and close the bot (always); ``durations`` is filled as each step ends. With
    ``ctx`` (the original's first run), simulate and check are stages of that job, writing
    into its run (``run_dir``); else ``run_dir`` becomes a simulate run of its own, started
    by ``runner`` (the job's context, or the runner on a worker). Raises ``BuildFailed``,
    ``ChatbotUnreachable``."""
    build_dir.mkdir(parents=True, exist_ok=True)
    build_dir.chmod(0o700)  # logs and generated files beside the private copy
    project = copy_project(plan.project, files, build_dir / "project")
    durations = durations if durations is not None else Durations()
    started = time.monotonic()
    try:
        built: BuiltBot = await builder.build(project, build_dir)
    finally:
        durations.build = time.monotonic() - started
    try:
        started = time.monotonic()
        simulate = _simulate_settings(plan, built.chatbot)
        check = CheckSettings(
            rules=plan.rules,
            run=run_dir,
            model=plan.model,
            model_base_url=plan.model_base_url,
            cache=plan.cache,
        )
        simulated: SimulationResult
        if ctx is None:
            started_run = await runner.run_job(SimulateJob(), simulate, run_dir, report=False)
            simulated = started_run.result
        else:
            job = SimulateJob()
            simulated = await job.execute(simulate, await _stage(ctx, job, simulate))
        durations.run = time.monotonic() - started
        started = time.monotonic()
        if ctx is None:
            report = (await runner.run_job(CheckJob(), check, report=False)).result.report
        else:
            checker = CheckJob(run_written=True)
            report = (await checker.execute(check, await _stage(ctx, checker, check))).report
        durations.check = time.monotonic() - started
    finally:
        await built.close()
        shutil.rmtree(project, ignore_errors=True)
    notes = [*built.notes, *(f"{k} {v:.1f} s" for k, v in built.timings.items())]
    conversations = simulated.summary.conversations
    return BotRun(report, conversations, durations, notes, simulated.health)


async def _stage(ctx: JobContext, job: Job[Any, Any], settings: JobSettings) -> JobContext:
    """A stage of the mutate job writing into its run (``JobContext.nested``) with what
    ``job`` needs for ``settings`` (``JobContext.prepare``: the built bot's chatbot.yaml
    loaded and probed, the model loaded), whose progress events stay its own (the job's
    items are the mutants) and which a stop request does not cut short (the job stops
    between mutants). Raises ``ChatbotUnreachable``."""
    stage = ctx.nested()
    stage.emit = lambda event: None
    stage.stop = StopSignal()
    stage.prepared = await stage.prepare(job, settings)
    return stage


async def run_original(
    builder: MutantBuilder, plan: RunPlan, ctx: JobContext, runs: int = 1
) -> list[BotRun]:
    """The original bot's ``runs`` runs: the first into the job's run itself (``ctx``),
    the others into ``original-runs/<n>`` in it. Raises ``OriginalFailed`` when it cannot
    be built or reached, or when every run of it is unhealthy
    (``conversations.assess_run``: most conversations got no answer, or all failed)."""
    out = ctx.store.path
    for name in ORIGINAL_ENTRIES:
        leftover = out / name
        if leftover.is_dir():
            shutil.rmtree(leftover)
        elif leftover.exists():
            leftover.unlink()
    done: list[BotRun] = []
    try:
        for n in range(1, runs + 1):
            folder = out if n == 1 else out / ORIGINAL_RUNS / str(n)
            stage = ctx if n == 1 else None
            done.append(await run_bot(ctx, builder, plan, {}, folder, folder / BUILD, None, stage))
    except BuildFailed as exc:
        raise OriginalFailed(f"the original bot could not be built: {exc.reason}") from exc
    except ChatbotUnreachable as exc:
        raise OriginalFailed(f"the original bot is unreachable: {exc.cause}") from exc
    if all(not run.health.healthy for run in done):  # one good run: its failures are flaky
        health = done[0].health
        raise OriginalFailed(f"the original bot failed: {health.problem}: {health.cause}")
    return done


def original_result(runs: Sequence[BotRun]) -> OriginalResult:
    """The original's result over its runs: a rule failing on any run is a false positive
    (a bot that answers at random fails a flaky rule on some runs only: ``flaky``)."""
    failed = [set(failing(run.report)) for run in runs]
    every, some = set.intersection(*failed), set.union(*failed)
    first = runs[0]
    return OriginalResult(
        conversations=first.conversations,
        false_positives=sorted(some),
        notes=first.notes,
        durations=first.durations,
        runs=len(runs),
        flaky=sorted(some - every),
    )


async def run_mutant(
    runner: JobRunner,
    builder: MutantBuilder,
    plan: RunPlan,
    mutant: Mutant,
    false_positives: list[str],
    out: Path,
) -> MutantResult:
    """Build, run and judge one mutant (its runs started by ``runner``). Never raises for
    the mutant's failures (stillborn, unreachable, our own error): they are its status."""
    folder = out / MUTANTS / mutant_folder(mutant.id)
    if folder.exists():
        shutil.rmtree(folder)  # an unfinished attempt: start the mutant over
    result = MutantResult(
        id=mutant.id,
        operator=mutant.operator,
        location=mutant.location,
        description=mutant.description,
        diff=mutant.diff,
        status="live",
        run=folder.relative_to(out).as_posix(),
    )
    try:
        run = await run_bot(
            runner, builder, plan, mutant.files, folder, folder / BUILD, result.durations
        )
    except BuildFailed as exc:
        return result.model_copy(update={"status": "stillborn", "reason": exc.reason})
    except ChatbotUnreachable as exc:
        update = {"status": "killed", "killed_by": [UNREACHABLE], "reason": exc.cause}
        return result.model_copy(update=update)
    except Exception as exc:
        logger.warning("mutant %s: %s", mutant.id, exc, exc_info=True)
        reason = f"{type(exc).__name__}: {exc}"
        return result.model_copy(update={"status": "error", "reason": reason})
    kill = judge(false_positives, run.report)
    notes = list(run.notes)
    if kill.killed and needs_confirmation(kill, plan):
        kill, note = await _confirm(runner, builder, plan, mutant, false_positives, folder, kill)
        notes.append(note)
    status = "killed" if kill.killed else "live"
    return result.model_copy(
        update={
            "status": status,
            "killed_by": list(kill.killed_by),
            "durations": run.durations,
            "notes": notes,
        }
    )


UNSTABLE = frozenset({"timeout"})
"""Failures that a loaded machine can cause on its own (a slow start, a slow reply)."""
CONFIRM = "confirm"


def needs_confirmation(kill: Kill, plan: RunPlan) -> bool:
    """A kill is confirmed by a second run when only unstable failures made it, or when a
    model simulates the users (its conversations differ from run to run)."""
    return plan.model is not None or set(kill.killed_by) <= UNSTABLE


async def _confirm(
    runner: JobRunner,
    builder: MutantBuilder,
    plan: RunPlan,
    mutant: Mutant,
    false_positives: list[str],
    folder: Path,
    first: Kill,
) -> tuple[Kill, str]:
    """Run the mutant again (into ``folder/confirm``): it stays killed only by what failed
    both times. A second run that cannot be built or reached confirms nothing."""
    again = folder / CONFIRM
    try:
        run = await run_bot(runner, builder, plan, mutant.files, again, again / BUILD)
    except (BuildFailed, ChatbotUnreachable) as exc:
        return Kill(False), f"not confirmed: the second run failed ({exc})"
    except Exception as exc:
        logger.warning("mutant %s, second run: %s", mutant.id, exc, exc_info=True)
        return Kill(False), f"not confirmed: the second run failed ({type(exc).__name__}: {exc})"
    second = set(judge(false_positives, run.report).killed_by)
    kept = tuple(name for name in first.killed_by if name in second)
    shown = ", ".join(first.killed_by)
    if kept:
        return Kill(True, kept), f"confirmed by a second run ({', '.join(kept)})"
    return Kill(False), f"killed by {shown} once; a second run did not reproduce it"


async def run_mutants(
    runner: JobRunner,
    builder: MutantBuilder,
    plan: RunPlan,
    mutants: Sequence[Mutant],
    false_positives: list[str],
    out: Path,
    workers: int,
    on_mutant: OnMutant,
    run_one: MutantRunner | None = None,
    stop: StopSignal | None = None,
) -> None:
    """Run ``mutants`` ``workers`` at a time (each with ``run_one``, default
    ``run_mutant`` here with ``runner``, judged against ``false_positives``); ``on_mutant``
    is told each result as it finishes. Once ``stop`` is requested no further mutant starts (those
    running finish). Cancelling stops the pool: running builds are closed by their own
    ``finally``."""
    gate = asyncio.Semaphore(workers)

    async def one(mutant: Mutant) -> None:
        async with gate:
            if stop is not None and stop.requested:
                return
            if run_one is not None:
                result = await run_one(mutant, false_positives)
            else:
                result = await run_mutant(runner, builder, plan, mutant, false_positives, out)
        on_mutant(result)

    tasks = [asyncio.create_task(one(m)) for m in mutants]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _simulate_settings(plan: RunPlan, chatbot: Path) -> SimulateSettings:
    return SimulateSettings(
        profiles=plan.profiles,
        chatbot=chatbot,
        model=plan.model,
        model_base_url=plan.model_base_url,
        cache=plan.cache,
        concurrency=plan.concurrency,
        seed=plan.seed,
        max_turns=plan.max_turns,
        probe=True,
    )
