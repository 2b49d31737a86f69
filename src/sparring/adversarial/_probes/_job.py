"""The offline probe job (``sparring adversarial probe``): every probe of the chosen suites
as its own conversation with the chatbot under test, concurrently (bounded), recorded in a
run directory and judged by oracles that need no model.

    run = start("adversarial-probe", ProbeSettings(chatbot="chatbot.yaml"), "runs/p")
    print(run.result.report.counts, run.outcome.exit_code)  # 0 pass, 1 fail, 3 no verdict

The run holds one ``ConversationRecord`` per probe run (``conversations/<suite>__<id>.json``)
and ``probes.json`` (``ProbeReport``), rewritten as each verdict is produced.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from sparring.adversarial._probes._capabilities import Capabilities, read_capabilities
from sparring.adversarial._probes._model import Probe, ProbeCategory, ProbeSuite
from sparring.adversarial._probes._run import judge_probe, not_applicable, probe_id, run_probe
from sparring.adversarial._probes._suites import resolve_suites, suite_path_problems
from sparring.connectors import ChatbotConfig, ProbeResult, create_connector
from sparring.conversations import RunStore, Slot, summarize
from sparring.errors import Problem
from sparring.jobs import (
    JOBS,
    Job,
    JobContext,
    JobSettings,
    Needs,
    Outcome,
    job_inputs,
)
from sparring.jobs import outcome as outcomes
from sparring.outcome import EXIT_FAIL as EXIT_FAIL  # re-exported
from sparring.outcome import EXIT_NO_VERDICT as EXIT_NO_VERDICT
from sparring.outcome import EXIT_PASS as EXIT_PASS
from sparring.results import Counts, Verdict

PROBES = "probes"
"""The probe job's result in its run's ``results`` slot."""
PROBES_FILE = f"results/{PROBES}.json"
"""That file, relative to the run (runs before 0.3: at its root; ``job_result_file``)."""
PROBES_SCHEMA_VERSION = 1


class ProbeSettings(JobSettings):
    """Settings of the probe job (stored in the run's manifest).

    ``chatbot`` is chatbot.yaml; ``suites`` built-in suite names or probe files/folders
    (empty: every built-in suite); ``concurrency`` probes at once; ``reply_timeout``
    seconds per reply (``None``: the connector's ``timeout`` plus 5 s); ``explored`` an
    exploration (run or explore directory, or its ``model.json``) whose functionalities
    say what the bot does, for the probes that presuppose a capability (``_capabilities``;
    without it chatbot.yaml's ``info`` alone says); ``check_reachable`` probes the chatbot
    before the run directory is created.
    """

    job: ClassVar[str] = "adversarial-probe"

    chatbot: Path = Field(description="chatbot.yaml of the chatbot under test.")
    suites: list[str] = Field(
        default_factory=list,
        description="A built-in suite name or a probe file/folder (repeatable; default: every "
        "built-in suite).",
    )
    concurrency: int = Field(4, ge=1, description="Probes at once.")
    reply_timeout: float | None = Field(
        None, gt=0, description="Seconds per reply (default: the connector's + 5)."
    )
    explored: Path | None = Field(
        None,
        description="An exploration (run or explore directory, or model.json): probes that "
        "presuppose a capability run only where it mentions one.",
    )
    check_reachable: bool = True

    def policy_problems(self, source: str = "settings") -> list[Problem]:
        """``JobSettings.policy_problems``, and each suite that is a path (not a built-in
        name) outside the execution policy's roots: ``suites`` is text, not ``Path``."""
        return [*super().policy_problems(source), *suite_path_problems(self.suites, source)]


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


ProbeOutcome = Outcome
"""The probe job's outcome (``sparring.jobs.outcome.Outcome``: ``code``/``exit_code``,
``status``, ``summary``)."""


def probe_outcome(report: ProbeReport) -> Outcome:
    """``fail`` when a probe failed or raised an error; ``no_verdict`` when none passed
    or failed (all not applicable or unscored: never a pass), or when the oracles could
    not tell on more probes than they passed (5 unscored refusals and 1 pass of an exact
    pattern is no PASS: most of what was asked went unjudged); else ``pass``."""
    counts = report.counts
    line = (
        f"{counts.passed} passed, {counts.fail} failed, {counts.error} errors, "
        f"{counts.not_applicable} not applicable"
        + (f", {counts.unscored} unscored (the oracle could not tell)" if counts.unscored else "")
    )
    if counts.fail or counts.error:
        return outcomes.failed(line)
    if not counts.passed:
        return outcomes.no_verdict(line)
    if counts.unscored > counts.passed:
        why = f"the oracles could not tell on {counts.unscored} probes and passed {counts.passed}"
        return outcomes.no_verdict(why, line)
    return outcomes.passed(line)


@dataclass(frozen=True)
class ProbeJobResult:
    """What the probe job did: its run's ``store``, the ``report`` (also in
    ``probes.json``) and the exit ``outcome``."""

    store: RunStore
    report: ProbeReport
    outcome: ProbeOutcome


OnVerdict = Callable[[Verdict], None]


class ProbeJob(Job[ProbeSettings, ProbeJobResult]):
    """The offline probe job on the runner: one item per probe; a stop request starts no
    new probe; ``sparring.runner.resume(run)`` judges the stored probes again (the oracles
    are deterministic) and runs the rest."""

    name: ClassVar[str] = ProbeSettings.job
    settings_type: ClassVar[type[ProbeSettings]] = ProbeSettings
    creates_run: ClassVar[bool] = True
    needs: ClassVar[Needs] = Needs(chatbot=True, probe_setting="check_reachable", report=True)

    def __init__(
        self,
        on_verdict: OnVerdict | None = None,
        on_probe: Callable[[ProbeResult], None] | None = None,
    ) -> None:
        self.on_verdict = on_verdict
        self.on_probe = on_probe

    def load_inputs(self, settings: ProbeSettings) -> list[tuple[ProbeSuite, Path]]:
        """Read and check the probe suites; the runner calls it before the chatbot is
        loaded or probed (``UserInputError``/``ConfigError`` with file, line and key)."""
        return resolve_suites(settings.suites)

    async def execute(self, settings: ProbeSettings, ctx: JobContext) -> ProbeJobResult:
        return await _probes(settings, ctx, self.on_verdict)

    def outcome(self, result: ProbeJobResult) -> Outcome:
        return result.outcome


JOBS.register(ProbeJob.name, ProbeJob())


async def _probes(
    settings: ProbeSettings,
    ctx: JobContext,
    on_verdict: OnVerdict | None,
) -> ProbeJobResult:
    suites = job_inputs(ctx, lambda s: resolve_suites(s.suites), settings)
    config = ctx.chatbot
    report = ProbeReport(
        chatbot=config.info.name,
        suites={suite.suite: str(path) for suite, path in suites},
        probes=[_entry(suite, probe) for suite, _ in suites for probe in suite.probes],
    )
    capabilities = read_capabilities(config.info, settings.explored)
    unfit = {
        probe_id(suite.suite, probe): reason
        for suite, _ in suites
        for probe in suite.probes
        if (reason := _unfit(probe, config.info.type, capabilities)) is not None
    }
    todo = [
        (suite.suite, probe)
        for suite, _ in suites
        for probe in suite.probes
        if probe_id(suite.suite, probe) not in unfit
    ]
    store = ctx.store if ctx.resuming else ctx.open_run(**_manifest(settings, todo))

    def add(verdict: Verdict) -> None:
        report.verdicts.append(verdict)
        store.write_result(Slot.RESULTS, PROBES, report)
        if on_verdict is not None:
            on_verdict(verdict)

    for suite, _ in suites:
        for probe in suite.probes:
            reason = unfit.get(probe_id(suite.suite, probe))
            if reason is not None:
                add(not_applicable(suite.suite, probe, reason))
    finished = store.finished_ids()
    for suite_name, probe in todo:  # stored on an earlier try: judged again, not re-run
        if probe_id(suite_name, probe) in finished:
            record = store.read(probe_id(suite_name, probe))
            add(judge_probe(suite_name, probe, record, config.info.fallback))
    todo = [(s, p) for s, p in todo if probe_id(s, p) not in finished]
    ctx.stage("probes")
    ctx.planned(len(todo))

    def judged(verdict: Verdict) -> None:
        add(verdict)
        ctx.item_done(verdict.rule, ok=verdict.status not in ("fail", "error"))

    await _run_all(store, config, settings, todo, judged, ctx.stop)
    order = {entry.id: i for i, entry in enumerate(report.probes)}
    report.verdicts.sort(key=lambda v: order.get(v.rule, len(order)))
    report.complete = not ctx.stop.requested
    store.write_result(Slot.RESULTS, PROBES, report)
    store.write_summary(summarize(store.iter_records()))
    return ProbeJobResult(store=store, report=report, outcome=probe_outcome(report))


async def _run_all(
    store: RunStore,
    config: ChatbotConfig,
    settings: ProbeSettings,
    todo: list[tuple[str, Probe]],
    add: OnVerdict,
    stop: Callable[[], bool],
) -> None:
    """Run ``todo`` with at most ``settings.concurrency`` conversations at once, one
    connector shared; each record is stored and judged as soon as it ends; once ``stop()``
    is true no new probe starts."""
    timeout = config.reply_timeout(settings.reply_timeout)
    fallback = config.info.fallback
    gate = asyncio.Semaphore(settings.concurrency)
    connector = create_connector(config)

    async def one(suite: str, probe: Probe) -> None:
        async with gate:
            if stop():
                return
            record = await run_probe(
                suite, probe, connector, fallback=fallback, reply_timeout=timeout
            )
        store.write(record)
        add(judge_probe(suite, probe, record, fallback))

    try:
        await asyncio.gather(*(one(suite, probe) for suite, probe in todo))
    finally:
        await connector.aclose()


def _unfit(probe: Probe, chatbot_type: str | None, capabilities: Capabilities) -> str | None:
    """Why ``probe`` does not apply to the chatbot, or ``None``: it requires another
    chatbot type (an unknown type runs all) or presupposes a capability not known."""
    if probe.requires is not None and chatbot_type is not None and probe.requires != chatbot_type:
        return f"for {probe.requires} chatbots; this one is {chatbot_type}"
    return capabilities.fits(probe.presupposes)


def _entry(suite: ProbeSuite, probe: Probe) -> ProbeEntry:
    return ProbeEntry(
        id=probe_id(suite.suite, probe),
        suite=suite.suite,
        title=probe.title,
        category=probe.category,
        turns=probe.utterances(),
        requires=probe.requires,
    )


def _manifest(settings: ProbeSettings, todo: list[tuple[str, Probe]]) -> dict[str, Any]:
    """What the run's manifest holds besides the job and the chatbot (the runner's)."""
    return {
        "settings": settings.model_copy(update={"chatbot": settings.chatbot.resolve()}),
        "planned": [probe_id(suite, probe) for suite, probe in todo],
    }
