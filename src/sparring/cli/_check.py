"""``sparring check RULES… --run RUN_DIR|CONVERSATIONS_DIR``: check conversations against
rules (SENSEI-check compatible) and report; exit codes in ``check._outcome`` (0 pass, 1
fail, 2 bad rules, 3 no verdict)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sparring.check import CheckJob, CheckResult, CheckSettings, print_report
from sparring.cli._app import (
    CacheOption,
    ModelBaseUrlOption,
    ModelOption,
    TrustFunctionsOption,
    app,
    console,
)
from sparring.cli._jobs import exit_with, print_outcome, print_written_report, run_job


@app.command("check")
def check_command(
    rules: Annotated[
        list[Path], typer.Argument(help="Rule files, or folders searched for *.yaml/*.yml.")
    ],
    run_dir: Annotated[
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
    trust_functions: TrustFunctionsOption = False,
) -> None:
    """Check conversations against rules.

    Exit 0 when every active rule passed where it applied; 1 when a rule failed or raised,
    or a conversation carries a generic failure (unless --no-generic); 3 when every verdict
    is not applicable or unscored (no verdict, never a pass); 2 for bad input.
    """
    settings = CheckSettings(
        rules=rules,
        run=run_dir,
        model=model,
        model_base_url=model_base_url,
        cache=cache,
        timeout=timeout,
        store=store,
        csv=csv_path,
        junit=junit,
        junit_per_conversation=junit_per_conversation,
        json_file=json_path,
        count_generic=generic,
        trust_functions=trust_functions,
    )
    run = run_job(CheckJob(), settings, None, items="rules")
    result: CheckResult = run.result
    records = {record.id: record for record in result.records}
    print_report(console, result.report, records, show_all=show_all)
    if result.stored is not None:
        console.print(f"Verdicts stored in {result.stored}", highlight=False)
    print_written_report(run)
    print_outcome(run.outcome)
    exit_with(run)
