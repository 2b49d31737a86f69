"""The ``Job`` protocol, what the runner hands a job (the ``JobContext`` protocol) and the
``JOBS`` registry: the contract every job codes against; ``sparring.runner`` runs it."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from sparring.jobs._needs import Prepared
from sparring.jobs._run import JobRun
from sparring.jobs._settings import JobSettings
from sparring.jobs._stop import StopSignal
from sparring.jobs.events import JobEvent
from sparring.outcome import Outcome
from sparring.registry import Registry

if TYPE_CHECKING:
    from sparring.connectors import ChatbotConfig, ProbeResult
    from sparring.conversations import RunStore
    from sparring.llm import Model


S = TypeVar("S", bound=JobSettings)
"""A job's settings type (a ``JobSettings`` model)."""
R = TypeVar("R")
"""A job's result type (what ``execute`` returns and ``outcome`` judges)."""

OnEvent = Callable[[JobEvent], None]
SettingsInput = JobSettings | Mapping[str, Any]


class JobRunner(Protocol):
    """What a job may ask of the runner to run other jobs: a job composing others (``run``'s
    exploration, ``mutate``'s original and mutants) gets it as its ``JobContext`` (or, on a
    worker, as the runner itself: ``sparring.runner.RUNNER``), so no stage imports the runner.

    ``run_job`` starts ``job`` in a run of its own, as ``sparring.runner.start_async`` (the
    same errors); ``resume_job`` finishes the interrupted run of ``job`` in ``run_dir``, as
    ``sparring.runner.resume_async``; both give the job's result typed (``JobRun[R]`` for
    a ``Job[S, R]``). ``prepare`` provides what ``job`` declared it needs for ``settings``
    (``Needs``: its own input, the chatbot loaded and, unless ``probe`` is false, probed;
    the models loaded), raising ``ModelRequired``, ``ConfigError``/``UserInputError`` and
    ``ChatbotUnreachable`` before any work.
    """

    async def run_job(
        self,
        job: Job[S, R],
        settings: S | Mapping[str, Any],
        out: Path | None = None,
        *,
        on_event: OnEvent | None = None,
        stop: StopSignal | None = None,
        report: bool = True,
    ) -> JobRun[R]: ...

    async def resume_job(
        self,
        run_dir: Path,
        job: Job[Any, R],
        *,
        on_event: OnEvent | None = None,
        stop: StopSignal | None = None,
        report: bool = True,
    ) -> JobRun[R]: ...

    async def prepare(
        self, job: Job[Any, Any], settings: JobSettings, *, probe: bool = True
    ) -> Prepared: ...


class JobContext(JobRunner, Protocol):
    """What the runner gives a running job (``sparring.runner`` builds it).

    ``emit(event)`` reports progress (``planned``, ``item_done`` and ``stage`` are
    shorthands); ``stop`` is read between items; ``resuming`` is true when the runner
    reopened an interrupted run (``store`` is then that run). A job that creates a run calls
    ``open_run`` once, after everything is loaded and checked and before its first item:
    the runner builds the manifest (status ``running``) and creates the run directory; on
    resume it returns the reopened run. ``out`` is where the run is (or will be) written;
    ``None`` for a job that writes into an existing run.

    What the job declared it needs (``Job.needs``) the runner provided before ``execute``:
    ``chatbot`` (the loaded chatbot.yaml, already probed; ``RuntimeError`` for a job that
    declared none), ``model`` and ``models`` (by setting name; ``None``: offline),
    ``probe`` and ``inputs`` (what the job's ``load_inputs`` returned). A job that writes
    into an existing run names it with ``report_on`` for the report (``judged``: the name
    under which its outcome joins that run's verdict, a check's stored report). ``nested()`` is a
    context for another job run as a stage of this one, writing into this job's run;
    ``run_job``, ``resume_job`` and ``prepare`` (``JobRunner``) run other jobs in runs of
    their own (``prepare`` reports its probe through ``emit``).
    """

    emit: Callable[[JobEvent], None]
    stop: StopSignal
    out: Path | None
    resuming: bool
    prepared: Prepared
    reported: Path | None

    @property
    def chatbot(self) -> ChatbotConfig: ...

    @property
    def model(self) -> Model | None: ...

    @property
    def models(self) -> dict[str, Model | None]: ...

    @property
    def probe(self) -> ProbeResult | None: ...

    @property
    def inputs(self) -> Any: ...

    @property
    def store(self) -> RunStore: ...

    @property
    def has_store(self) -> bool: ...

    def report_on(self, run_dir: Path, judged: str | None = None) -> None: ...

    def open_run(
        self, settings: JobSettings, reuse: Sequence[str] | None = None, **manifest: Any
    ) -> RunStore: ...

    def nested(self) -> JobContext: ...

    def planned(self, total: int) -> None: ...

    def item_done(
        self, item_id: str, ok: bool = True, cost_usd: float = 0.0, error: str | None = None
    ) -> None: ...

    def stage(self, stage: str) -> None: ...


class Job(Protocol[S, R]):
    """A job: its name (as in the manifest), typed settings ``S``, work and outcome of its
    result ``R``.

    A built-in job declares both types by subclassing, so the runner hands its caller the
    result typed (``sparring.runner.start(SimulateJob(), settings).result`` is a
    ``SimulationResult``)::

        class SimulateJob(Job[SimulateSettings, SimulationResult]): ...

    A plug-in may implement the protocol structurally instead. ``JOBS`` holds jobs of
    every type (``Job[Any, Any]``): a job looked up by name gives an untyped result.

    ``creates_run`` is true for a job that writes a run directory of its own (simulate,
    explore, metamorphic…: it calls ``ctx.open_run``), false for one that writes into an
    existing run's slots (check, evaluate). ``execute`` does the work, emitting progress
    through ``ctx`` and checking ``ctx.stop`` between items, and returns the result;
    ``outcome`` decides the verdict of a result (``sparring.jobs.outcome``). A job may
    declare ``needs`` (``sparring.jobs.Needs``: the chatbot reachable, a model, the
    report): the runner provides them before ``execute`` (``ctx.chatbot``, ``ctx.model``)
    and writes the run's HTML report once the job ended (finished or stopped) and its
    outcome is stored (``JobRun.report``). A job may carry a model built in code under a
    model setting's name (``model``), used instead of loading that setting, and an
    ``on_probe`` callback that sees the probe's result.

    A job that reads files of its own (profiles, seeds, suites, weaknesses, rules) reads
    and checks them in ``load_inputs(settings) -> inputs`` (optional; its result is
    ``ctx.inputs``): the runner calls it before the chatbot is loaded or probed and before
    anything is written, so bad input is a located error (exit 2) even when the chatbot
    cannot be reached.
    """

    @property
    def name(self) -> str: ...

    @property
    def settings_type(self) -> type[S]: ...

    @property
    def creates_run(self) -> bool: ...

    async def execute(self, settings: S, ctx: JobContext) -> R: ...

    def outcome(self, result: R) -> Outcome: ...


def _adopt_job(name: str, loaded: Any) -> Job[Any, Any] | None:
    if isinstance(loaded, type):
        loaded = loaded()
    if not all(hasattr(loaded, a) for a in ("name", "settings_type", "execute", "outcome")):
        raise TypeError(f"{name!r} is not a job (needs name, settings_type, execute, outcome)")
    return loaded  # type: ignore[no-any-return]


JOBS: Registry[Job[Any, Any]] = Registry("job", group="sparring.jobs", adopt=_adopt_job)
"""Every job by its manifest name (``simulate``, ``check``, …): each job's package
registers it when imported (``sparring.runner`` imports the built-in ones); plug-ins through
the entry-point group ``sparring.jobs``."""
