"""``sparring report RUN [--open] [--out FILE]``: write the run's HTML report again (see
``sparring.report``; after a job the runner writes it, and the command prints
``JobRun.report``: ``cli._jobs.print_written_report``)."""

from __future__ import annotations

import webbrowser
from pathlib import Path
from typing import Annotated

import typer

from sparring.cli._app import app, console
from sparring.jobs import check_output_paths
from sparring.report import write_report


@app.command("report")
def report_command(
    run: Annotated[Path, typer.Argument(help="The run directory (simulated or imported).")],
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Write here (default RUN/report/index.html).")
    ] = None,
    open_browser: Annotated[
        bool, typer.Option("--open", help="Open the report in the web browser.")
    ] = False,
) -> None:
    """Write RUN's report: one self-contained HTML file (verdict, failures with excerpts,
    rule results, response-time and cost plots, a page per conversation). Exit 2 when RUN
    is not a run directory or a record cannot be read."""
    check_output_paths(files={"--out": out})
    path = write_report(run, out)
    console.print(f"[bold]report[/]: {path}", highlight=False)
    if open_browser:
        webbrowser.open(path.resolve().as_uri())
