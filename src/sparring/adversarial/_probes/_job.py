"""The offline probe job (``sparring adversarial probe``): every probe of the chosen suites
as its own conversation with the chatbot under test, concurrently (bounded), recorded in a
run directory and judged by oracles that need no model.

    result = probe_job(ProbeSettings(chatbot="chatbot.yaml", suites=["injection"]), "runs/p")
    print(result.report.counts, result.outcome.code)       # 0 pass, 1 fail, 3 no verdict

The run holds one ``ConversationRecord`` per probe run (``conversations/<suite>__<id>.json``)
and ``probes.json`` (``ProbeReport``), rewritten as each verdict is produced.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import ClassVar

from pydantic import BaseModel, Field

from sparring import __version__
from sparring.adversarial._probes._model import Probe, ProbeCategory, ProbeSuite
from sparring.adversarial._probes._run import judge_probe, not_applicable, probe_id, run_probe
from sparring.adversarial._probes._suites import resolve_suites
from sparring.connectors import (
    ChatbotConfig,
    ProbeResult,
    create_connector,
    endpoint_of,
    ensure_reachable,
    load_chatbot_config,
)
from sparring.conversations import RunManifest, RunStore, atomic_write, summarize
from sparring.jobs import JobSettings, new_run_dir, run_blocking
from sparring.results import Counts, Verdict

PROBES_FILE = "probes.json"
"""The probe job's results in its run directory."""
PROBES_SCHEMA_VERSION = 1
REACHABILITY_TIMEOUT = 10.0
"""Seconds the reachability probe waits for the chatbot before anything is written."""
REPLY_TIMEOUT_MARGIN = 5.0
"""Seconds waited per reply beyond the connector's own ``timeout``."""
EXIT_PASS, EXIT_FAIL, EXIT_NO_VERDICT = 0, 1, 3
"""Exit codes, as ``sparring check``'s."""


class ProbeSettings(JobSettings):
    """Settings of the probe job (stored in the run's manifest).

    ``chatbot`` is chatbot.yaml; ``suites`` built-in suite names or probe files/folders
    (empty: every built-in suite); ``concurrency`` probes at once; ``reply_timeout``
    seconds per reply (``None``: the connector's ``timeout`` plus 5 s); ``check_reachable``
    probes the chatbot before the run directory is created.
    """

    job: ClassVar[str] = "adversarial-probe"

    chatbot: Path
    suites: list[str] = Field(default_factory=list)
    concurrency: int = Field(4, ge=1)
    reply_timeout: float | None = Field(None, gt=0)
    check_reachable: bool = True


class ProbeEntry(BaseModel):
    """A probe as run: its full ``id`` (``suite/probe``), suite, title, category, the user
    turns sent and the chatbot type it requires."""

    id: str
    suite: str
    title: str
    category: ProbeCategory
    turns: list[str]
    requires: str | None = None


class ProbeReport(BaseModel):
    """``probes.json``: the probes of the run and their verdicts (rule = probe id),
    ``complete`` once every probe has one. ``suites`` maps suite names to their files."""

    schema_version: int = PROBES_SCHEMA_VERSION
    chatbot: str | None = None
    suites: dict[str, str] = Field(default_factory=dict)
    probes: list[ProbeEntry] = Field(default_factory=list)
    verdicts: list[Verdict] = Field(default_factory=list)
    complete: bool = False

    @property
    def counts(self) -> Counts:
        """How many probes ended in each status."""
        counts = Counts()
        for verdict in self.verdicts:
            counts.add(verdict.status)
        return counts

    def verdict_of(self, probe: str) -> Verdict | None:
        """The verdict on probe ``probe`` (``suite/id``), ``None`` before it ran."""
        return next((v for v in self.verdicts if v.rule == probe), None)


@dataclass(frozen=True)
class ProbeOutcome:
    """The exit decision: ``code`` (0 pass, 1 a failure or error, 3 no pass or fail at
    all), ``status`` ``PASS``/``FAIL``/``NO VERDICT`` and a one-line ``summary``."""

    code: int
    status: str
    summary: str


def probe_outcome(report: ProbeReport) -> ProbeOutcome:
    """The exit decision for ``report`` (see ``ProbeOutcome``)."""
    counts = report.counts
    line = (
        f"{counts.passed} passed, {counts.fail} failed, {counts.error} errors, "
        f"{counts.not_applicable} not applicable"
        + (f", {counts.unscored} unscored (the oracle could not tell)" if counts.unscored else "")
    )
    if counts.fail or counts.error:
        return ProbeOutcome(EXIT_FAIL, "FAIL", line)
    if not counts.passed:
        return ProbeOutcome(EXIT_NO_VERDICT, "NO VERDICT", line)
    return ProbeOutcome(EXIT_PASS, "PASS", line)


@dataclass(frozen=True)
class ProbeJobResult:
    """What the probe job did: its run's ``store``, the ``report`` (also in
    ``probes.json``) and the exit ``outcome``."""

    store: RunStore
    report: ProbeReport
    outcome: ProbeOutcome


OnVerdict = Callable[[Verdict], None]


async def probe_job_async(
    settings: ProbeSettings,
    out: Path | str | None = None,
    *,
    on_start: Callable[[int], None] | None = None,
    on_verdict: OnVerdict | None = None,
    on_probe: Callable[[ProbeResult], None] | None = None,
) -> ProbeJobResult:
    """Run the probes of ``settings`` into a new run directory ``out`` (default
    ``runs/<UTC time>``). Suites and chatbot.yaml are loaded and the chatbot probed before
    the directory is created: raises ``ConfigError`` (file, line, key) for a bad file,
    ``UnknownName`` for an unknown suite, ``ChatbotUnreachable`` when the chatbot does not
    answer, ``UserInputError`` when ``out`` already holds a run. ``on_start`` gets the
    number of probes to run, ``on_verdict`` each verdict as it is produced."""
    suites = resolve_suites(settings.suites)
    config = load_chatbot_config(settings.chatbot)
    if settings.check_reachable:
        await ensure_reachable(config, REACHABILITY_TIMEOUT, on_probe)
    report = ProbeReport(
        chatbot=config.info.name,
        suites={suite.suite: str(path) for suite, path in suites},
        probes=[_entry(suite, probe) for suite, _ in suites for probe in suite.probes],
    )
    chatbot_type = config.info.type
    todo = [
        (suite.suite, probe)
        for suite, _ in suites
        for probe in suite.probes
        if _applies(probe, chatbot_type)
    ]
    store = RunStore.create(
        Path(out) if out is not None else new_run_dir(), _manifest(settings, config, todo)
    )
    target = store.path / PROBES_FILE

    def add(verdict: Verdict) -> None:
        report.verdicts.append(verdict)
        atomic_write(target, report.model_dump_json(indent=2, by_alias=True))
        if on_verdict is not None:
            on_verdict(verdict)

    for suite, _ in suites:
        for probe in suite.probes:
            if not _applies(probe, chatbot_type):
                add(not_applicable(suite.suite, probe, chatbot_type))
    if on_start is not None:
        on_start(len(todo))
    await _run_all(store, config, settings, todo, add)
    order = {entry.id: i for i, entry in enumerate(report.probes)}
    report.verdicts.sort(key=lambda v: order.get(v.rule, len(order)))
    report.complete = True
    atomic_write(target, report.model_dump_json(indent=2, by_alias=True))
    store.write_summary(summarize(store.iter_records()))
    return ProbeJobResult(store=store, report=report, outcome=probe_outcome(report))


def probe_job(
    settings: ProbeSettings,
    out: Path | str | None = None,
    *,
    on_start: Callable[[int], None] | None = None,
    on_verdict: OnVerdict | None = None,
    on_probe: Callable[[ProbeResult], None] | None = None,
) -> ProbeJobResult:
    """``probe_job_async`` for synchronous callers (``sparring.jobs.run_blocking``)."""
    return run_blocking(
        probe_job_async(settings, out, on_start=on_start, on_verdict=on_verdict, on_probe=on_probe)
    )


async def _run_all(
    store: RunStore,
    config: ChatbotConfig,
    settings: ProbeSettings,
    todo: list[tuple[str, Probe]],
    add: OnVerdict,
) -> None:
    """Run ``todo`` with at most ``settings.concurrency`` conversations at once, one
    connector shared; each record is stored and judged as soon as it ends."""
    timeout = settings.reply_timeout
    if timeout is None:
        timeout = float(getattr(config.params, "timeout", 20.0)) + REPLY_TIMEOUT_MARGIN
    fallback = config.info.fallback
    gate = asyncio.Semaphore(settings.concurrency)
    connector = create_connector(config)

    async def one(suite: str, probe: Probe) -> None:
        async with gate:
            record = await run_probe(
                suite, probe, connector, fallback=fallback, reply_timeout=timeout
            )
        store.write(record)
        add(judge_probe(suite, probe, record, fallback))

    try:
        await asyncio.gather(*(one(suite, probe) for suite, probe in todo))
    finally:
        await connector.aclose()


def _applies(probe: Probe, chatbot_type: str | None) -> bool:
    """Whether ``probe`` runs on a chatbot of ``chatbot_type`` (an unknown type runs all)."""
    return probe.requires is None or chatbot_type is None or probe.requires == chatbot_type


def _entry(suite: ProbeSuite, probe: Probe) -> ProbeEntry:
    return ProbeEntry(
        id=probe_id(suite.suite, probe),
        suite=suite.suite,
        title=probe.title,
        category=probe.category,
        turns=probe.utterances(),
        requires=probe.requires,
    )


def _manifest(
    settings: ProbeSettings, config: ChatbotConfig, todo: list[tuple[str, Probe]]
) -> RunManifest:
    now = datetime.now(UTC)
    stored = settings.model_copy(update={"chatbot": settings.chatbot.resolve()})
    return RunManifest(
        run_id=now.strftime("%Y%m%d-%H%M%S"),
        created_at=now,
        sparring_version=__version__,
        job=ProbeSettings.job,
        chatbot=config.model_dump(mode="json", exclude={"params"}),
        chatbot_path=str(settings.chatbot.resolve()),
        endpoint=endpoint_of(config),
        planned=[probe_id(suite, probe) for suite, probe in todo],
        settings=stored.model_dump(mode="json"),
    )
