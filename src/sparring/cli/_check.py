"""``sparring check RULES… --run RUN_DIR|CONVERSATIONS_DIR``: check conversations against
rules (SENSEI-check compatible) and report; exit codes in ``check._outcome`` (0 pass, 1
fail, 2 bad rules, 3 no verdict)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sparring.check import CheckJob, CheckSettings, print_report
from sparring.cli._app import app, console
from sparring.cli._failures import check_failures, print_first_failures
from sparring.cli._jobs import exit_with, print_outcome, print_written_report, run_job
from sparring.cli._options import (
    MODEL_ENVVARS,
    MODEL_FLAGS,
    OPTIONS,
    SettingsValues,
    settings_options,
)
from sparring.errors import ConfigError, Problem
from sparring.validation import file_kind, validate_file


@app.command("check")
@settings_options(
    CheckSettings,
    arguments=("rules",),
    flags={
        **MODEL_FLAGS,
        "csv": ("--csv",),
        "json_file": ("--json",),
        "count_generic": ("--generic/--no-generic",),
        "junit_per_conversation": ("--junit-per-conversation",),
        "trust_functions": ("--trust-functions",),
    },
    envvars=MODEL_ENVVARS,
    required=("run",),
)
def check_command(
    values: SettingsValues,
    show_all: Annotated[
        bool, typer.Option("--all", help="List every failure, not the first few per rule.")
    ] = False,
) -> None:
    """Check conversations against rules.

    Exit 0 when every active rule passed where it applied; 1 when a rule failed or raised,
    or a conversation carries a generic failure (unless --no-generic); 3 when every verdict
    is not applicable or unscored (no verdict, never a pass); 2 for bad input.
    """
    settings = CheckSettings.from_values(values, OPTIONS)
    try:
        run = run_job(CheckJob(), settings, None, items="rules")
    except ConfigError as exc:
        raise _misplaced(exc) from exc
    result = run.result
    records = {record.id: record for record in result.records}
    print_report(console, result.report, records, show_all=show_all)
    if result.stored is not None:
        console.print(f"Verdicts stored in {result.stored}", highlight=False)
    print_written_report(run)
    if run.outcome.verdict == "fail":
        print_first_failures(check_failures(result.report))
    print_outcome(run.outcome)
    exit_with(run)


_NOT_RULES = {
    "profile": "a profile, not a rule file: profiles go to `sparring simulate`",
    "persona": "a persona, not a rule file: personas go to `sparring simulate --persona`",
    "chatbot": "a chatbot.yaml, not a rule file: it goes to `--chatbot`",
    "probes": "a probe suite, not a rule file: it goes to `sparring adversarial probe --suite`",
}


def _misplaced(exc: ConfigError) -> ConfigError:
    """``exc`` with the files given as rules that are another kind of file (a valid
    profile, a persona, a chatbot.yaml, a probe suite) said once each, in place of the
    screenful of "unknown key" problems the rule loader found in them."""
    kinds: dict[str, str] = {}
    for name in dict.fromkeys(problem.file for problem in exc.problems if problem.file):
        path = Path(name)
        kind = file_kind(path) if path.is_file() else "unknown"
        if kind in _NOT_RULES and (kind != "profile" or validate_file(path, "profile").ok):
            kinds[name] = kind
    if not kinds:
        return exc
    said = [Problem(name, None, "", _NOT_RULES[kind]) for name, kind in kinds.items()]
    return ConfigError(said + [p for p in exc.problems if p.file not in kinds])
