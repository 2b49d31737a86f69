"""``sparring check RULES… --run RUN_DIR|CONVERSATIONS_DIR``: check conversations against
rules (SENSEI-check compatible) and report; exit 1 when a rule fails, 2 for bad rules."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sparring.check import CheckSettings, check_job, print_report
from sparring.cli._app import CacheOption, ModelBaseUrlOption, ModelOption, app, console


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
) -> None:
    """Check conversations against rules; exit 1 when an active rule fails or raises."""
    settings = CheckSettings(
        rules=rules,
        run=run,
        model=model,
        model_base_url=model_base_url,
        cache=cache,
        timeout=timeout,
        store=store,
        csv=csv_path,
        junit=junit,
        json_file=json_path,
    )
    result = check_job(settings)
    print_report(console, result.report, {record.id: record for record in result.records})
    if result.stored is not None:
        console.print(f"Verdicts stored in {result.stored}", highlight=False)
    if result.report.failed:
        raise typer.Exit(1)
