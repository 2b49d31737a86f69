"""``sparring run``: explore a chatbot, generate its profiles, simulate and check them, and
write the report, from one command (see ``sparring.pipeline``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sparring._terminal import escape
from sparring.check import print_report
from sparring.cli._app import app, console
from sparring.cli._failures import check_failures, print_first_failures
from sparring.cli._jobs import exit_with, print_outcome, print_written_report, run_job
from sparring.cli._options import MODEL_ENVVARS, MODEL_FLAGS, SettingsValues, settings_options
from sparring.cli._progress import percent
from sparring.jobs import check_output_paths
from sparring.pipeline import PipelineResult, RunJob, RunSettings

RESUME = "sparring run --resume {run}"
"""How a stopped run of this command is finished (``{run}``: its folder)."""


@app.command("run")
@settings_options(
    RunSettings,
    flags={**MODEL_FLAGS, "chatbot": ("--chatbot", "-c")},
    envvars=MODEL_ENVVARS,
)
def run_command(
    values: SettingsValues,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Run directory (default runs/<time>).")
    ] = None,
    resume: Annotated[
        Path | None, typer.Option(help="Finish a stopped or interrupted run directory.")
    ] = None,
) -> None:
    """Test a chatbot end to end: explore it, generate profiles from what was found,
    simulate them, check the conversations with the default rule set (and --rules),
    measure coverage of the explored functionalities, and write the report. With
    --resume, a stopped run goes on from what it kept.

    Exit 0 when every check passed, 1 on a failure, 2 on bad input, 3 when nothing
    concluded (as `sparring check`), nothing was tested beyond the greeting, or the run
    was stopped.
    """
    check_output_paths(folders={"--out": out})
    run = run_job(RunJob(), values, out, resume=resume, resume_hint=RESUME, items="{stage}")
    _print(run.result)
    print_written_report(run)
    if run.outcome.verdict == "fail" and run.result.check is not None:
        print_first_failures(check_failures(run.result.check.report))
    print_outcome(run.outcome)
    exit_with(run, RESUME)


def _print(result: PipelineResult) -> None:
    if result.exploration is not None:  # None: stopped before the exploration began
        model = result.exploration.model
        console.print(
            f"[bold]explored[/]: {len(model.functionalities)} functionalities "
            f"({model.strategy.value}), {len(result.exploration.profiles)} profiles"
        )
        for note in model.notes:
            console.print(f"[yellow]note[/]: {escape(note)}", highlight=False)
    if result.check is not None:
        records = {record.id: record for record in result.check.records}
        print_report(console, result.check.report, records)
    if result.coverage is not None:
        c = result.coverage
        console.print(
            f"[bold]coverage[/]: functionalities {percent(c.functionality_share)}, "
            f"parameters {percent(c.parameter_share)}, option values {percent(c.option_share)}"
        )
    if result.definition is not None:
        d = result.definition
        parts = [
            f"{label} {len(r.reached)}/{len(r.names)}"
            for label, r in (
                ("intents", d.intents),
                ("form slots", d.slots),
                ("responses", d.responses),
                ("flows", d.flows),
            )
        ]
        if d.unreachable:
            why = "; ".join(f"{name}: {reason}" for name, reason in d.unreachable.items())
            parts.append(f"unreachable intents {len(d.unreachable)} ({why})")
        console.print(f"[bold]definition coverage[/]: {escape(', '.join(parts))}")
    console.print(f"[bold]run[/]: {result.path}")
