"""``sparring check RULES… --run RUN_DIR|CONVERSATIONS_DIR``: check conversations against
rules (SENSEI-check compatible) and report; exit codes in ``check._outcome`` (0 pass, 1
fail, 2 bad rules, 3 no verdict)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from sparring.check import (
    Limits,
    check,
    load_rules,
    store_verdicts,
    write_csv,
    write_json,
    write_junit,
)
from sparring.check._console import print_report
from sparring.check._outcome import outcome
from sparring.check._rules import rules_schema
from sparring.cli._app import (
    CacheOption,
    ModelBaseUrlOption,
    ModelOption,
    app,
    console,
    load_model,
)
from sparring.cli._profiles import register_schema
from sparring.conversations import load_conversations
from sparring.errors import UserInputError

logger = logging.getLogger(__name__)
register_schema("rules", rules_schema)


@app.command("check")
def check_command(
    rules: Annotated[
        list[Path], typer.Argument(help="Rule files, or folders searched for *.yaml/*.yml.")
    ],
    run: Annotated[
        Path,
        typer.Option(
            "--run", help="A run directory, or a folder of conversations (native or SENSEI)."
        ),
    ],
    csv_path: Annotated[
        Path | None, typer.Option("--csv", help="Write SENSEI-check's results table (CSV).")
    ] = None,
    junit: Annotated[Path | None, typer.Option("--junit", help="Write JUnit XML.")] = None,
    json_path: Annotated[
        Path | None, typer.Option("--json", help="Write every verdict as JSON.")
    ] = None,
    model: ModelOption = None,
    model_base_url: ModelBaseUrlOption = None,
    cache: CacheOption = False,
    timeout: Annotated[
        float, typer.Option("--timeout", min=0.01, help="Seconds allowed per expression.")
    ] = 2.0,
    store: Annotated[
        bool, typer.Option("--store/--no-store", help="Keep the verdicts in a native run.")
    ] = True,
    generic: Annotated[
        bool,
        typer.Option(
            "--generic/--no-generic",
            help="Count generic failures (no response, timeout, loop, goals not completed) "
            "in the exit code.",
        ),
    ] = True,
    junit_per_conversation: Annotated[
        bool,
        typer.Option(
            "--junit-per-conversation", help="JUnit: a test case per rule × conversation."
        ),
    ] = False,
    show_all: Annotated[
        bool, typer.Option("--all", help="List every failure, not the first few per rule.")
    ] = False,
) -> None:
    """Check conversations against rules.

    Exit 0 when every active rule passed where it applied; 1 when a rule failed or raised,
    or a conversation carries a generic failure (unless --no-generic); 3 when every verdict
    is not applicable or unscored (no verdict, never a pass); 2 for bad input.
    """
    rule_set = load_rules(rules)
    records = list(load_conversations(run))
    if not records:
        raise UserInputError(f"no conversations found in {run}")
    report = check(
        rule_set,
        records,
        model=load_model(model, model_base_url, cache),
        model_name=model,
        limits=Limits(timeout=timeout),
        source=str(run),
        defined=_run_profile_names(run),
    )
    print_report(console, report, {record.id: record for record in records}, show_all=show_all)
    for path, write in ((csv_path, write_csv), (json_path, write_json)):
        if path is not None:
            write(report, path)
    if junit is not None:
        write_junit(report, junit, junit_per_conversation)
    if store and (run / "manifest.json").is_file():
        try:
            stored = store_verdicts(report, run)
            console.print(f"Verdicts stored in {stored}", highlight=False)
        except OSError as exc:
            logger.warning("could not store the verdicts in %s: %s", run, exc)
    decision = outcome(report, count_generic=generic)
    style = {"PASS": "bold green", "FAIL": "bold red"}.get(decision.status, "bold yellow")
    console.print(f"[{style}]{decision.status}[/]: {escape(decision.summary)}", highlight=False)
    if decision.code:
        raise typer.Exit(decision.code)


def _run_profile_names(run: Path) -> frozenset[str] | None:
    """The names the profiles of a native run define (``None`` when ``run`` is not a run
    or one of its profiles can no longer be read: then nothing is known beyond the
    conversations)."""
    from sparring.check._names import profile_names
    from sparring.conversations import RunStore
    from sparring.profiles import load_profile

    if not (run / "manifest.json").is_file():
        return None
    try:
        paths = RunStore.open(run, clean=False).manifest.profiles
        return profile_names(load_profile(path) for path in paths) if paths else None
    except (UserInputError, OSError):
        logger.info(
            "the run's profiles cannot be read: variables are checked against its conversations"
        )
        return None
