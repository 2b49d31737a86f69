"""The ``check`` job: rules × a run (or a folder of conversations) → a stored report."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from pydantic import Field

from sparring.check._names import profile_names
from sparring.check._namespace import run_chatbot_info
from sparring.check._outcome import Outcome, outcome
from sparring.check._reports import store_verdicts, write_csv, write_json, write_junit
from sparring.check._rules import RuleSet, load_rules
from sparring.check._run import check_async
from sparring.check._safety import Limits
from sparring.check._verdicts import CheckReport, RuleResult
from sparring.conversations import (
    ConversationRecord,
    RunStore,
    incomplete_run,
    is_run_directory,
    load_conversations,
)
from sparring.errors import ConfigError, Problem, UserInputError
from sparring.jobs import (
    JOBS,
    Job,
    JobContext,
    JobSettings,
    ModelNeed,
    Needs,
    check_output_paths,
    job_inputs,
)
from sparring.llm import CACHE_HELP, MODEL_BASE_URL_HELP, MODEL_HELP
from sparring.profiles import load_profile

logger = logging.getLogger(__name__)


class CheckSettings(JobSettings):
    """Settings of the ``check`` job.

    ``rules`` are rule files or folders; ``run`` a run directory or a folder of
    conversations (native or SENSEI); ``model`` serves model-backed functions (``None``:
    offline strategies, else unscored); ``timeout`` is seconds of sandbox work per
    expression; ``store`` keeps the report in a run's ``verdicts/`` slot; ``csv``,
    ``junit`` and ``json_file`` are report files to write; ``trust_functions`` lets the
    rule files' ``functions:`` import their Python files (refused otherwise).
    """

    job: ClassVar[str] = "check"

    rules: list[Path] = Field(
        min_length=1, description="Rule files, or folders searched for *.yaml/*.yml."
    )
    run: Path = Field(
        description="A run directory, or a folder of conversations (native or SENSEI)."
    )
    model: str | None = Field(None, description=MODEL_HELP)
    model_base_url: str | None = Field(None, description=MODEL_BASE_URL_HELP)
    cache: bool = Field(False, description=CACHE_HELP)
    timeout: float = Field(2.0, gt=0, description="Seconds allowed per expression.")
    store: bool = Field(True, description="Keep the verdicts in a native run.")
    csv: Path | None = Field(None, description="Write SENSEI-check's results table (CSV).")
    junit: Path | None = Field(None, description="Write JUnit XML.")
    junit_per_conversation: bool = Field(
        False, description="JUnit: a test case per rule × conversation."
    )
    json_file: Path | None = Field(None, description="Write every verdict as JSON.")
    count_generic: bool = Field(
        True,
        description="Count generic failures (no response, timeout, loop, goals not completed) "
        "in the exit code.",
    )
    trust_functions: bool = Field(
        False,
        description="Let rule files' `functions:` import their Python files (they run "
        "unsandboxed).",
    )


@dataclass(frozen=True)
class CheckResult:
    """The report, the conversations it checked, where it was stored (``None``: not a
    run directory, ``--no-store``, or the run could not be written), and the outcome a CI
    gate reads (status, summary, exit code)."""

    report: CheckReport
    records: list[ConversationRecord]
    stored: Path | None
    outcome: Outcome


class CheckJob(Job[CheckSettings, CheckResult]):
    """The ``check`` job on the runner: one item per active rule; a stop request checks
    no further rule (the outcome is then incomplete, or the failure already found). It
    writes into the checked run's ``verdicts/`` slot and creates no run of its own; a
    stopped check is resumed by starting it again (rules are checked from the start:
    the verdicts of a rule set are one report). ``run_written`` is set by a job that
    checks the run it is writing (``sparring run``): the run's status (still running)
    is then not read, only whether it holds every planned conversation."""

    name: ClassVar[str] = CheckSettings.job
    settings_type: ClassVar[type[CheckSettings]] = CheckSettings
    creates_run: ClassVar[bool] = False
    needs: ClassVar[Needs] = Needs(model=ModelNeed.OPTIONAL, report=True)

    def __init__(
        self, progress: Callable[[RuleResult], None] | None = None, *, run_written: bool = False
    ) -> None:
        self.progress = progress
        self.run_written = run_written

    def load_inputs(self, settings: CheckSettings) -> tuple[RuleSet, list[ConversationRecord]]:
        """Check the report paths, load the rules and the run's conversations; the runner
        calls it before loading the model. Raises ``ConfigError`` (file, line, key) for bad
        rules, a rule reading a variable no conversation defines, or conversation files
        that do not read (all of a folder's, before anything is checked),
        ``UserInputError`` when ``settings.run`` holds no conversations."""
        check_output_paths(
            files={"--csv": settings.csv, "--junit": settings.junit, "--json": settings.json_file}
        )
        rule_set = load_rules(settings.rules, trust_functions=settings.trust_functions)
        problems: list[Problem] = []
        records = list(load_conversations(settings.run, problems=problems))
        if problems:
            raise ConfigError(problems)
        if not records:
            raise UserInputError(f"no conversations found in {settings.run}")
        return rule_set, records

    async def execute(self, settings: CheckSettings, ctx: JobContext) -> CheckResult:
        """Check, write the asked-for reports, store the verdicts in the run, whose HTML
        report the runner then writes (the runner loaded the rules, the conversations and
        the model)."""
        rule_set, records = job_inputs(ctx, self.load_inputs, settings)
        model = ctx.model
        ctx.stage("rules")
        ctx.planned(len(rule_set.active))

        def done(result: RuleResult) -> None:
            failed = result.counts.fail or result.counts.error
            ctx.item_done(result.rule, not failed)
            if self.progress is not None:
                self.progress(result)

        report = await check_async(
            rule_set,
            records,
            model=model,
            limits=Limits(timeout=settings.timeout),
            source=str(settings.run),
            progress=done,
            chatbot=run_chatbot_info(settings.run),
            defined=_run_profile_names(settings.run),
            stop=ctx.stop,
        )
        decided = outcome(
            report,
            count_generic=settings.count_generic,
            incomplete=incomplete_run(settings.run, status=not self.run_written),
        )
        report = report.model_copy(update={"outcome": decided})  # stored with the verdicts
        for path, write in ((settings.csv, write_csv), (settings.json_file, write_json)):
            if path is not None:
                write(report, path)
        if settings.junit is not None:
            write_junit(report, settings.junit, settings.junit_per_conversation)
        # A stopped check stores nothing: a partial report would read as the rule set's.
        stored = None if ctx.stop.requested else _store(settings, report)
        if stored is not None:  # its outcome joins the run's verdict, unless the run's
            # own job is checking what it writes (``sparring run``: its outcome holds it)
            ctx.report_on(settings.run, judged=None if self.run_written else stored.stem)
        return CheckResult(report=report, records=records, stored=stored, outcome=decided)

    def outcome(self, result: CheckResult) -> Outcome:
        return result.outcome


JOBS.register(CheckJob.name, CheckJob())


def _store(settings: CheckSettings, report: CheckReport) -> Path | None:
    if not settings.store or not is_run_directory(settings.run):
        return None
    try:
        return store_verdicts(report, settings.run)
    except OSError as exc:
        logger.warning("could not store the verdicts in %s: %s", settings.run, exc)
        return None


def _run_profile_names(run: Path) -> frozenset[str] | None:
    """The names the profiles of a native run define (``None`` when ``run`` is not a run
    or one of its profiles can no longer be read: then nothing is known beyond the
    conversations)."""
    if not is_run_directory(run):
        return None
    try:
        paths = RunStore.open(run, clean=False).manifest.profiles
        return profile_names(load_profile(path) for path in paths) if paths else None
    except (UserInputError, OSError):
        logger.info(
            "the run's profiles cannot be read: variables are checked against its conversations"
        )
        return None
