"""``sparring simulate``: run user profiles against a chatbot, write a run directory."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sparring.cli._app import app, console
from sparring.cli._failures import print_first_failures, record_failures
from sparring.cli._health import warn_about_notes
from sparring.cli._jobs import exit_with, print_outcome, print_written_report, run_job
from sparring.cli._options import (
    MODEL_ENVVARS,
    MODEL_FLAGS,
    OPTIONS,
    SettingsValues,
    settings_options,
)
from sparring.cli._worker import BrokerOption, InProcessOption, remote_simulate
from sparring.conversations import render_summary
from sparring.jobs import check_output_paths
from sparring.simulate import (
    SimulateJob,
    SimulateSettings,
    SimulationResult,
)

RESUME = "sparring simulate --resume {run}"
"""How a stopped run of this command is finished (``{run}``: its folder)."""


@app.command("simulate")
@settings_options(
    SimulateSettings,
    arguments=("profiles",),
    flags={**MODEL_FLAGS, "chatbot": ("--chatbot", "-c"), "personas": ("--persona",)},
    envvars=MODEL_ENVVARS,
)
def simulate_command(
    values: SettingsValues,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Run directory (default runs/<time>).")
    ] = None,
    resume: Annotated[
        Path | None,
        typer.Option(help="Finish an interrupted run directory (with its own settings)."),
    ] = None,
    broker: BrokerOption = None,
    in_process: InProcessOption = False,
) -> None:
    """Simulate users from PROFILES (and/or --persona files) against the chatbot under test.

    Conversations are written to the run directory as each one ends; with --resume an
    interrupted run is finished, with its own settings, without redoing finished
    conversations. Exits 1 when the chatbot cannot be reached, when every conversation
    failed, or when more than --max-failure-share of them got no answer. With --broker
    the conversations run on `sparring worker`s; exits 3 when some have no record.
    """
    check_output_paths(folders={"--out": out})
    resumed = resume is not None
    settings = None if resumed else SimulateSettings.from_values(values, OPTIONS)
    changes = {k: v for k, v in values.items() if k == "concurrency"} if resumed else None
    run = run_job(
        SimulateJob(remote=remote_simulate(broker) if broker and not in_process else None),
        settings,
        out,
        resume=resume,
        changes=changes,
        items="conversations",
        resume_hint=RESUME,
    )
    result = run.result
    _print(result)
    print_written_report(run)
    warn_about_notes(result.store.iter_records())
    print_first_failures(record_failures(result.store.iter_records()))
    if not run.outcome.passed:
        print_outcome(run.outcome)
    exit_with(run, RESUME)


def _print(result: SimulationResult) -> None:
    render_summary(result.summary, console)
    console.print(f"[bold]run[/]: {result.store.path}")
    console.print(f"[bold]summary[/]: {result.store.path / 'summary.json'}")
