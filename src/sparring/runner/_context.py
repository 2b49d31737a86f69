"""The runner's ``JobContext``: what a running job is given (events, the stop signal, the
run it opens, what it declared it needs)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from sparring.connectors import ChatbotConfig, ProbeResult, endpoint_of
from sparring.conversations import RunStore, is_run_directory
from sparring.jobs import (
    Job,
    JobRunner,
    JobSettings,
    Prepared,
    StopSignal,
)
from sparring.jobs.events import ItemDone, JobEvent, Planned, StageChanged
from sparring.llm import Model
from sparring.runner._prepare import prepare


class RunContext:
    """What the runner gives a running job (the runner's ``sparring.jobs.JobContext``).

    ``emit(event)`` reports progress (``planned``, ``item_done`` and ``stage`` are
    shorthands); ``stop`` is read between items; ``resuming`` is true when the runner
    reopened an interrupted run (``store`` is then that run). A job that creates a run calls
    ``open_run`` once, after everything is loaded and checked and before its first item:
    the runner builds the manifest (``RunManifest.for_job``, status ``running``) and creates
    the run directory; on resume it returns the reopened run. ``out`` is where the run is
    (or will be) written; ``None`` for a job that writes into an existing run.

    What the job declared it needs (``Job.needs``) the runner provided before ``execute``:
    ``chatbot`` (the loaded chatbot.yaml, already probed), ``model`` and ``models`` (by
    setting name; ``None``: offline), ``probe`` (the probe's result) and ``inputs`` (what
    the job's ``load_inputs`` returned). A job that writes
    into an existing run names it with ``report_on`` for the report. ``run_job``,
    ``resume_job`` and ``prepare`` are ``runner``'s (``sparring.jobs.JobRunner``: the
    runner's ``RUNNER``), ``prepare`` reporting its probe through ``emit``.
    """

    def __init__(
        self,
        *,
        runner: JobRunner,
        emit: Callable[[JobEvent], None],
        stop: StopSignal,
        out: Path | None,
        resuming: bool = False,
        store: RunStore | None = None,
        open_run: Callable[..., RunStore] | None = None,
        prepared: Prepared | None = None,
    ) -> None:
        self.runner = runner
        self.run_job = runner.run_job
        self.resume_job = runner.resume_job
        self.emit = emit
        self.stop = stop
        self.out = out
        self.resuming = resuming
        self._store = store
        self._open_run = open_run
        self.prepared = prepared or Prepared()
        self.reported: Path | None = None
        self.judged: str | None = None

    @property
    def chatbot(self) -> ChatbotConfig:
        """The chatbot under test (``needs.chatbot``). Raises ``RuntimeError`` for a job
        that declared no chatbot."""
        if self.prepared.chatbot is None:
            raise RuntimeError("the job declared no chatbot: set needs = Needs(chatbot=True)")
        return self.prepared.chatbot

    @property
    def model(self) -> Model | None:
        """The model of the settings' ``model`` (``None``: offline strategies)."""
        return self.models.get("model")

    @property
    def models(self) -> dict[str, Model | None]:
        """Every model the job declared (``needs.models``), by setting name."""
        return self.prepared.models

    @property
    def probe(self) -> ProbeResult | None:
        """The reachability probe's result (``None``: not probed)."""
        return self.prepared.probe

    @property
    def inputs(self) -> Any:
        """What the job's ``load_inputs(settings)`` returned (``None``: it has none)."""
        return self.prepared.inputs

    def report_on(self, run_dir: Path, judged: str | None = None) -> None:
        """Have the runner write ``run_dir``'s report after the job (``needs.report``; a
        job that writes into an existing run, like ``check``, names that run); with
        ``judged`` (the name of what the job stored, a check's report) the runner also
        stores the job's outcome in that run's verdict (``RunManifest.judged_by``)."""
        self.reported = run_dir
        self.judged = judged

    @property
    def store(self) -> RunStore:
        """The run's store. Raises ``RuntimeError`` before ``open_run`` (new runs)."""
        if self._store is None:
            raise RuntimeError("the run is not open yet: call ctx.open_run(...) first")
        return self._store

    @property
    def has_store(self) -> bool:
        return self._store is not None

    def open_run(
        self, settings: JobSettings, reuse: Sequence[str] | None = None, **manifest: Any
    ) -> RunStore:
        """Create the run directory with a manifest holding ``settings`` (as stored: paths
        resolved), the chatbot the runner loaded (``chatbot``, ``chatbot_path``,
        ``endpoint``: never its params) and the ``RunManifest`` fields in ``manifest``
        (``profiles``, ``planned``…); on resume, the reopened run.

        With ``reuse`` (setting names that may differ, e.g. ``("concurrency",)``), an
        ``out`` that holds a run of this job with the same settings otherwise is reopened
        and finished (``ctx.resuming`` becomes true), the way ``metamorphic`` resumes.
        Raises ``UserInputError`` when ``out`` already holds a run it cannot reuse."""
        if self._store is None:
            if self._open_run is None:
                raise RuntimeError("this job writes into an existing run; it opens none")
            existed = self.out is not None and is_run_directory(self.out)
            self._store = self._open_run(settings, reuse, **manifest)
            self.resuming = self.resuming or (reuse is not None and existed)
        return self._store

    def nested(self) -> RunContext:
        """A context for another job run as a stage of this one, writing into this job's
        run (``sparring run``'s simulate and check stages): same events and stop signal;
        its ``open_run`` adds the manifest fields it names (``profiles``, ``planned``…) to
        this run's manifest and returns this run's store — the job and its settings stay
        this job's, the chatbot the stage was given (``prepared``: ``mutate``'s original,
        built per run) too. It is ``resuming`` once this run has planned items (a resumed
        run: stored items are skipped). Raises ``RuntimeError`` before ``open_run``."""
        store = self.store

        def adopt(
            settings: JobSettings, reuse: Sequence[str] | None = None, **fields: Any
        ) -> RunStore:
            update = {**chatbot_fields(stage.prepared.chatbot, settings), **fields}
            store.manifest = store.manifest.model_copy(update=update)
            store.save_manifest()
            return store

        resuming = bool(store.manifest.planned)
        stage = RunContext(
            runner=self.runner,
            emit=self.emit,
            stop=self.stop,
            out=store.path,
            resuming=resuming,
            store=store if resuming else None,
            open_run=adopt,
            prepared=replace(self.prepared, inputs=None),  # the stage reads its own files
        )
        return stage

    async def prepare(
        self, job: Job[Any, Any], settings: JobSettings, *, probe: bool = True
    ) -> Prepared:
        """What ``job`` needs for ``settings`` (``sparring.runner.prepare``), its probe
        reported through this context's ``emit``."""
        return await prepare(job, settings, self.emit, probe=probe)

    def planned(self, total: int) -> None:
        self.emit(Planned(total=total))

    def item_done(
        self, item_id: str, ok: bool = True, cost_usd: float = 0.0, error: str | None = None
    ) -> None:
        self.emit(ItemDone(item_id=item_id, ok=ok, cost_usd=cost_usd, error=error))

    def stage(self, stage: str) -> None:
        self.emit(StageChanged(stage=stage))


def chatbot_fields(config: ChatbotConfig | None, settings: JobSettings) -> dict[str, Any]:
    """What a new run's manifest says of the chatbot the runner loaded for the job: its
    chatbot.yaml without the connector's params (never secrets), the file's path and the
    endpoint without credentials or query; nothing for a job that needs no chatbot."""
    if config is None:
        return {}
    path = getattr(settings, "chatbot", None)
    return {
        "chatbot": config.model_dump(mode="json", exclude={"params"}),
        "chatbot_path": str(Path(path).resolve()) if path is not None else None,
        "endpoint": endpoint_of(config),
    }
