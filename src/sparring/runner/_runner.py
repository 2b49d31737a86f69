"""The job runner: the one lifecycle every job goes through.

``start(job, settings, out)``: settings typed (a mapping's errors located, exit 2) → the
run directory chosen (``out``, or ``runs/<UTC time>`` collision-free) → ``Started`` →
what the job needs (``Job.needs``: the chatbot loaded and probed, the model loaded;
``sparring.jobs._needs``) → the job's ``execute`` (it loads and checks its input, then
``ctx.open_run(...)``: the runner builds the manifest with the status ``running`` and
creates the run) → the outcome (``Job.outcome``; ``incomplete`` when stopped) stored in
the manifest with the status → ``Finished`` → the report (``needs.report``).
``resume(run_dir)`` reads the job and its typed settings back from the manifest and runs
the same job again on the reopened run: every job resumes the same way.
Events go to ``on_event`` and to ``<run>/progress.json``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar, overload

from sparring._redact import counting, current_counts
from sparring.conversations import MANIFEST, RunManifest, RunStore, is_run_directory
from sparring.errors import Problem, UserInputError
from sparring.jobs import (
    JOBS,
    NO_RESULT,
    Job,
    JobRun,
    JobSettings,
    JobStatus,
    OnEvent,
    Prepared,
    SettingsInput,
    StopSignal,
    needs_of,
    new_run_dir,
    run_blocking,
)
from sparring.jobs import outcome as outcomes
from sparring.jobs.events import Finished, JobEvent, Started
from sparring.outcome import Outcome
from sparring.runner._context import RunContext, chatbot_fields
from sparring.runner._prepare import prepare
from sparring.runner._progress import ProgressRecorder
from sparring.runner._run import find_job

logger = logging.getLogger(__name__)

BUILTIN_JOBS = (
    "sparring.simulate",
    "sparring.check",
    "sparring.evaluate",
    "sparring.explore",
    "sparring.metamorphic",
    "sparring.mutation",
    "sparring.pipeline",
    "sparring.adversarial",
    "sparring.importers",
)
"""The packages whose jobs are built in: each registers its jobs in ``JOBS`` when imported,
which the registry does on the first look-up (so ``sparring check`` loads no mutation)."""
JOBS.builtins = BUILTIN_JOBS

S = TypeVar("S", bound=JobSettings)
R = TypeVar("R")


@overload
async def start_async(
    job: Job[S, R],
    settings: S | Mapping[str, Any],
    out: Path | str | None = None,
    *,
    on_event: OnEvent | None = None,
    stop: StopSignal | None = None,
    report: bool = True,
) -> JobRun[R]: ...
@overload
async def start_async(
    job: str,
    settings: SettingsInput,
    out: Path | str | None = None,
    *,
    on_event: OnEvent | None = None,
    stop: StopSignal | None = None,
    report: bool = True,
) -> JobRun[Any]: ...
async def start_async(
    job: str | Job[Any, Any],
    settings: SettingsInput,
    out: Path | str | None = None,
    *,
    on_event: OnEvent | None = None,
    stop: StopSignal | None = None,
    report: bool = True,
) -> JobRun[Any]:
    """Run ``job`` with ``settings`` (typed, or a mapping validated with located errors)
    into the new run directory ``out`` (default ``runs/<UTC time>`` for a job that
    creates a run; the job's own target for one that writes into an existing run).

    A job passed as an instance (``Job[S, R]``: ``SimulateJob()``) takes settings of its
    type ``S`` and gives a ``JobRun[R]``, its result typed; a job named by a string
    (``"simulate"``, looked up in ``JOBS``) gives a ``JobRun[Any]``. Typed callers pass
    the job.

    Raises ``UserInputError``/``ConfigError`` (file, line, key) for bad settings or input
    found before the run is created, ``ModelRequired`` (naming ``--model``) and
    ``ChatbotUnreachable`` from what the job needs (``Job.needs``), and whatever the job
    raises (the run's status is then ``failed``). A stop request ends it with the status
    ``stopped``. ``report=False`` writes no report even for a job whose ``needs.report``
    (a caller composing jobs, such as mutate's harness)."""
    return await _start(job, settings, out, on_event, stop, report)


async def _start(
    job: str | Job[Any, Any],
    settings: SettingsInput,
    out: Path | str | None,
    on_event: OnEvent | None,
    stop: StopSignal | None,
    report: bool,
) -> JobRun[Any]:
    spec = find_job(job)
    typed = spec.settings_type.from_values(settings)
    target = Path(out) if out is not None else (new_run_dir() if spec.creates_run else None)
    with counting():  # the run's redactions, for its manifest
        return await _drive(spec, typed, target, None, on_event, stop, report)


@overload
async def resume_async(
    run_dir: Path | str,
    *,
    on_event: OnEvent | None = None,
    stop: StopSignal | None = None,
    changes: Mapping[str, Any] | None = None,
    job: Job[Any, R],
    report: bool = True,
) -> JobRun[R]: ...
@overload
async def resume_async(
    run_dir: Path | str,
    *,
    on_event: OnEvent | None = None,
    stop: StopSignal | None = None,
    changes: Mapping[str, Any] | None = None,
    job: None = None,
    report: bool = True,
) -> JobRun[Any]: ...
async def resume_async(
    run_dir: Path | str,
    *,
    on_event: OnEvent | None = None,
    stop: StopSignal | None = None,
    changes: Mapping[str, Any] | None = None,
    job: Job[Any, Any] | None = None,
    report: bool = True,
) -> JobRun[Any]:
    """Finish the interrupted (stopped, failed or killed) run in ``run_dir`` with its own
    job and settings (read typed from its manifest); ``changes`` overrides settings that
    change how a run goes, not what it holds (e.g. ``concurrency``). Items already stored
    are kept. Raises ``UserInputError`` when ``run_dir`` is not a run, or its job cannot
    resume; ``ConfigError`` (manifest, ``settings.<key>``) when its settings do not
    validate. ``job`` runs it instead of the registered job of that name (one built with
    a model or callbacks of its own); it must be the run's job, and the result is then
    typed (``JobRun[R]`` for a ``Job[S, R]``; ``JobRun[Any]`` without ``job``)."""
    return await _resume(run_dir, on_event, stop, changes, job, report)


async def _resume(
    run_dir: Path | str,
    on_event: OnEvent | None,
    stop: StopSignal | None,
    changes: Mapping[str, Any] | None,
    job: Job[Any, Any] | None,
    report: bool,
) -> JobRun[Any]:
    store = RunStore.open(run_dir)
    spec = find_job(store.manifest.job) if job is None else job
    if spec.name != store.manifest.job:
        message = f"{run_dir} was made by the {store.manifest.job!r} job, not {spec.name!r}"
        raise UserInputError(message)
    if not spec.creates_run:
        raise UserInputError(f"{run_dir} was made by the {spec.name!r} job, which cannot resume")
    typed = spec.settings_type.from_manifest(store.manifest.settings, store.path / MANIFEST)
    if changes:
        typed = spec.settings_type.from_values(
            {**typed.model_dump(), **changes}, str(store.path / MANIFEST)
        )
    with counting(store.manifest.redactions):  # from the counts the run has so far
        return await _drive(spec, typed, store.path, store, on_event, stop, report)


@overload
def start(
    job: Job[S, R],
    settings: S | Mapping[str, Any],
    out: Path | str | None = None,
    *,
    on_event: OnEvent | None = None,
    stop: StopSignal | None = None,
    report: bool = True,
) -> JobRun[R]: ...
@overload
def start(
    job: str,
    settings: SettingsInput,
    out: Path | str | None = None,
    *,
    on_event: OnEvent | None = None,
    stop: StopSignal | None = None,
    report: bool = True,
) -> JobRun[Any]: ...
def start(
    job: str | Job[Any, Any],
    settings: SettingsInput,
    out: Path | str | None = None,
    *,
    on_event: OnEvent | None = None,
    stop: StopSignal | None = None,
    report: bool = True,
) -> JobRun[Any]:
    """``start_async`` for synchronous callers (typed the same way: a job instance gives
    its result typed, a job name ``Any``)."""
    return run_blocking(_start(job, settings, out, on_event, stop, report))


@overload
def resume(
    run_dir: Path | str,
    *,
    on_event: OnEvent | None = None,
    stop: StopSignal | None = None,
    changes: Mapping[str, Any] | None = None,
    job: Job[Any, R],
    report: bool = True,
) -> JobRun[R]: ...
@overload
def resume(
    run_dir: Path | str,
    *,
    on_event: OnEvent | None = None,
    stop: StopSignal | None = None,
    changes: Mapping[str, Any] | None = None,
    job: None = None,
    report: bool = True,
) -> JobRun[Any]: ...
def resume(
    run_dir: Path | str,
    *,
    on_event: OnEvent | None = None,
    stop: StopSignal | None = None,
    changes: Mapping[str, Any] | None = None,
    job: Job[Any, Any] | None = None,
    report: bool = True,
) -> JobRun[Any]:
    """``resume_async`` for synchronous callers (typed the same way)."""
    return run_blocking(_resume(run_dir, on_event, stop, changes, job, report))


class Runner:
    """The runner as a job sees it (``sparring.jobs.JobRunner``): ``start_async``,
    ``resume_async`` and ``prepare`` for a job that runs others (``run``'s exploration,
    ``mutate``'s mutants), handed to it as its ``JobContext`` or, outside a job (a worker
    running one mutant), as ``RUNNER``."""

    async def run_job(
        self,
        job: Job[S, R],
        settings: S | Mapping[str, Any],
        out: Path | None = None,
        *,
        on_event: OnEvent | None = None,
        stop: StopSignal | None = None,
        report: bool = True,
    ) -> JobRun[R]:
        return await start_async(job, settings, out, on_event=on_event, stop=stop, report=report)

    async def resume_job(
        self,
        run_dir: Path,
        job: Job[Any, R],
        *,
        on_event: OnEvent | None = None,
        stop: StopSignal | None = None,
        report: bool = True,
    ) -> JobRun[R]:
        return await resume_async(run_dir, on_event=on_event, stop=stop, job=job, report=report)

    async def prepare(
        self, job: Job[Any, Any], settings: JobSettings, *, probe: bool = True
    ) -> Prepared:
        return await prepare(job, settings, lambda event: None, probe=probe)


RUNNER = Runner()
"""The runner (``sparring.jobs.JobRunner``) for code that runs jobs outside a job."""


async def _drive(
    spec: Job[S, R],
    settings: S,
    out: Path | None,
    store: RunStore | None,
    on_event: OnEvent | None,
    stop: StopSignal | None,
    report: bool = True,
) -> JobRun[R]:
    signal = stop or StopSignal()
    recorder = ProgressRecorder(spec.name)

    def emit(event: JobEvent) -> None:
        recorder(event)
        if on_event is not None:
            on_event(event)

    def open_run(
        stored: JobSettings, reuse: Sequence[str] | None = None, **fields: Any
    ) -> RunStore:
        assert out is not None  # a job that creates a run always has a target
        if reuse is not None and is_run_directory(out):
            reopened = _reopen(spec, out, stored, reuse)
            recorder.attach(out, resuming=True)
            return reopened
        fields = {**chatbot_fields(ctx.prepared.chatbot, stored), **fields}
        manifest = RunManifest.for_job(spec.name, stored, out.name, **fields)
        hint = f"or resume it with `sparring {spec.name} --resume {out}`"
        created = RunStore.create(out, manifest, resume_hint=hint)
        recorder.attach(out)
        return created

    ctx = RunContext(
        runner=RUNNER,
        emit=emit,
        stop=signal,
        out=out,
        resuming=store is not None,
        store=store,
        open_run=open_run if spec.creates_run else None,
    )
    if store is not None:
        _save(store, JobStatus.RUNNING, None)
    if out is not None and out.is_dir() and (store is not None or not spec.creates_run):
        recorder.attach(out, resuming=store is not None)
    run_id = out.name if out is not None and spec.creates_run else ""
    emit(Started(job=spec.name, run_id=run_id, resuming=store is not None))
    try:
        ctx.prepared = await prepare(spec, settings, emit)
        if signal.requested:  # stopped while it was being prepared: no work starts
            return _stopped_before_work(ctx, spec, emit)
        result = await spec.execute(settings, ctx)
    except (KeyboardInterrupt, asyncio.CancelledError):
        _end(ctx, spec, JobStatus.STOPPED, outcomes.stopped(None), emit)
        raise
    except BaseException:
        _end(ctx, spec, JobStatus.FAILED, None, emit)
        raise
    decided = spec.outcome(result)
    status = JobStatus.STOPPED if signal.requested else JobStatus.FINISHED
    if status is JobStatus.STOPPED:
        decided = outcomes.stopped(decided)
    _end(ctx, spec, status, decided, emit)
    run_dir = ctx.store.path if ctx.has_store else out
    reported = run_dir if spec.creates_run else ctx.reported
    if ctx.reported is not None and ctx.judged is not None and status is JobStatus.FINISHED:
        _judge(ctx.reported, ctx.judged, decided)
    written = None
    if report and needs_of(spec).report and reported is not None:
        written = _report(reported)
    return JobRun(run_dir, status, decided, returned=result, report=written)


def _stopped_before_work(ctx: RunContext, spec: Job[S, R], emit: OnEvent) -> JobRun[R]:
    """A job stopped before its first item (while its input, chatbot and model were being
    prepared): the job does not run; a new run is not created (``run_dir`` ``None``), a
    resumed one is kept ``stopped``."""
    decided = outcomes.stopped(None)
    _end(ctx, spec, JobStatus.STOPPED, decided, emit)
    run_dir = ctx.store.path if ctx.has_store else None
    return JobRun(run_dir, JobStatus.STOPPED, decided, returned=NO_RESULT)


def _report(run_dir: Path) -> Path | None:
    """Write the run's HTML report once the job ended (its outcome stored first, so the
    report reads it); a report that cannot be written is logged, never the job's failure."""
    from sparring.report import write_report  # Jinja2 and plots: imported when a job ends

    try:
        return write_report(run_dir)
    except Exception as exc:  # the job's own result stands
        logger.warning("the report could not be written: %s: %s", type(exc).__name__, exc)
        return None


def _reopen(
    spec: Job[Any, Any], out: Path, settings: JobSettings, reuse: Sequence[str]
) -> RunStore:
    """The run of ``spec`` in ``out``, to be finished with ``settings``: refused (naming
    ``out``) when it holds another job's run, or one whose settings differ apart from the
    names in ``reuse`` (one run never mixes two)."""
    store = RunStore.open(out)
    if store.manifest.job != spec.name:
        message = f"holds a {store.manifest.job} run, not a {spec.name} one"
        raise UserInputError(Problem(str(out), None, "", message))
    stored = spec.settings_type.from_manifest(store.manifest.settings, out / MANIFEST)
    changed = settings.differences(stored, ignore=reuse)
    if changed:
        message = (
            f"holds a {spec.name} run made with other settings ({'; '.join(changed)}); "
            "rerun with its settings to resume it, or pick another --out"
        )
        raise UserInputError(Problem(str(out), None, "", message))
    _save(store, JobStatus.RUNNING, None)
    return store


def _end(
    ctx: RunContext, spec: Job[Any, Any], status: JobStatus, decided: Outcome | None, emit: OnEvent
) -> None:
    if ctx.has_store and spec.creates_run:
        _save(ctx.store, status, decided)
    emit(Finished(status=status, verdict=decided.verdict if decided is not None else None))


def _save(store: RunStore, status: JobStatus, decided: Outcome | None) -> None:
    """Keep the manifest's status (and, once decided, the outcome) and the redactions
    counted so far current; a manifest that cannot be written is logged, never the job's
    failure."""
    update = {"status": status, "redactions": current_counts()}
    store.manifest = store.manifest.model_copy(update=update).decided(decided)
    _write(store)


def _judge(run_dir: Path, name: str, decided: Outcome) -> None:
    """Store ``decided`` (a later job's, stored in the run as ``name``: a check's report)
    in the verdict of the run in ``run_dir`` — the one verdict every view reads."""
    try:
        store = RunStore.open(run_dir, clean=False)
    except (UserInputError, OSError) as exc:
        logger.warning("could not store the verdict in %s: %s", run_dir, exc)
        return
    store.manifest = store.manifest.judged_by(name, decided)
    _write(store)


def _write(store: RunStore) -> None:
    """Save the manifest; one that cannot be written is logged, never the job's failure."""
    try:
        store.save_manifest()
    except OSError as exc:
        logger.warning("could not update %s: %s", store.path / MANIFEST, exc)
