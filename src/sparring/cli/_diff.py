"""``sparring diff BASELINE_RUN NEW_RUN [--junit F]``: compare two checked runs; exit 1 on
a regression (see ``sparring.diff``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sparring.cli._app import app, console
from sparring.diff import diff_runs, render_diff, write_diff_junit
from sparring.jobs import check_output_paths


@app.command("diff")
def diff_command(
    baseline: Annotated[Path, typer.Argument(help="The baseline run directory (checked).")],
    new: Annotated[Path, typer.Argument(help="The new run directory (checked).")],
    junit: Annotated[
        Path | None, typer.Option("--junit", help="Write JUnit XML (one case per rule).")
    ] = None,
    show_all: Annotated[
        bool, typer.Option("--all", help="List every changed conversation.")
    ] = False,
) -> None:
    """Compare NEW with BASELINE: rules newly failing, fixed or flaky, conversations whose
    verdicts changed (with the turns that differ), response time p50/p95 and cost.

    Both runs need verdicts stored by `sparring check RULES --run RUN`. Exit 1 on a
    regression; 3 (NO VERDICT) when nothing regressed but a run is incomplete.
    """
    check_output_paths(files={"--junit": junit})
    result = diff_runs(baseline, new)
    console.print(render_diff(result, show_all))
    if junit is not None:
        write_diff_junit(result, junit)
    raise typer.Exit(result.outcome.exit_code)
