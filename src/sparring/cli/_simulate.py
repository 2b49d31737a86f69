"""``sparring simulate``: run user profiles against a chatbot, write a run directory."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sparring.cli._app import CacheOption, ModelBaseUrlOption, ModelOption, app, console
from sparring.cli._health import warn_about_notes
from sparring.cli._jobs import exit_with, print_outcome, print_written_report, run_job
from sparring.cli._worker import BrokerOption, remote_simulate
from sparring.conversations import render_summary
from sparring.errors import UserInputError
from sparring.jobs import check_output_paths
from sparring.simulate import (
    DEFAULT_MAX_CHATBOT_FAILURE_SHARE,
    SimulateJob,
    SimulateSettings,
    SimulationResult,
    SimulatorKind,
)


@app.command("simulate")
def simulate_command(
    profiles: Annotated[
        list[Path] | None, typer.Argument(help="Profile files or folders (SENSEI format).")
    ] = None,
    chatbot: Annotated[
        Path | None, typer.Option("--chatbot", "-c", help="chatbot.yaml of the chatbot under test.")
    ] = None,
    persona: Annotated[
        list[Path] | None,
        typer.Option(
            "--persona",
            help="Persona file or folder (repeatable): plays every profile's conversations, "
            "or one conversation of its own when no profile is given.",
        ),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Run directory (default runs/<time>).")
    ] = None,
    model: ModelOption = None,
    model_base_url: ModelBaseUrlOption = None,
    simulator: Annotated[
        SimulatorKind | None,
        typer.Option(help="llm or agenda (default: llm with a model, else agenda)."),
    ] = None,
    concurrency: Annotated[int, typer.Option(min=1, help="Conversations at once.")] = 4,
    seed: Annotated[int, typer.Option(help="Seed for variable picks and the simulators.")] = 0,
    resume: Annotated[
        Path | None, typer.Option(help="Finish an interrupted run directory.")
    ] = None,
    cache: CacheOption = False,
    max_turns: Annotated[int, typer.Option(min=1, help="Hard cap on user turns (code 1000).")] = 40,
    repeat_limit: Annotated[
        int, typer.Option(min=0, help="Same reply N times in a row ends it (code 1002; 0 = off).")
    ] = 3,
    max_failure_share: Annotated[
        float,
        typer.Option(
            min=0.0,
            max=1.0,
            help="Exit 1 when more than this share of conversations "
            "got no answer from the chatbot (500/504).",
        ),
    ] = DEFAULT_MAX_CHATBOT_FAILURE_SHARE,
    repeat: Annotated[
        int,
        typer.Option(min=1, help="Run each planned conversation K times (same plan and seed)."),
    ] = 1,
    probe: Annotated[
        bool, typer.Option("--probe/--no-probe", help="Check the chatbot answers before starting.")
    ] = True,
    template_check: Annotated[
        bool,
        typer.Option(
            "--template-check/--no-template-check",
            help="Record replies showing an unfilled slot ('Thanks None!'; code 1004).",
        ),
    ] = True,
    broker: BrokerOption = None,
) -> None:
    """Simulate users from PROFILES (and/or --persona files) against the chatbot under test.

    Conversations are written to the run directory as each one ends; with --resume an
    interrupted run is finished, with its own settings, without redoing finished
    conversations. Exits 1 when the chatbot cannot be reached, when every conversation
    failed, or when more than --max-failure-share of them got no answer. With --broker
    the conversations run on `sparring worker`s; exits 3 when some have no record.
    """
    check_output_paths(folders={"--out": out})
    settings = None
    if resume is None:
        if not profiles and not persona:
            raise UserInputError(
                "give at least one profile file or folder, or --persona FILE (or --resume RUN_DIR)"
            )
        if chatbot is None:
            raise UserInputError("give the chatbot under test with --chatbot chatbot.yaml")
        settings = SimulateSettings(
            profiles=profiles or [],
            personas=persona or [],
            chatbot=chatbot,
            simulator=simulator,
            model=model,
            model_base_url=model_base_url,
            cache=cache,
            concurrency=concurrency,
            seed=seed,
            max_turns=max_turns,
            repeat_limit=repeat_limit,
            repeat=repeat,
            probe=probe,
            max_failure_share=max_failure_share,
            template_check=template_check,
        )
    run = run_job(
        SimulateJob(remote=remote_simulate(broker) if broker else None),
        settings,
        out,
        resume=resume,
        changes={"concurrency": concurrency} if resume is not None else None,
        items="conversations",
    )
    result: SimulationResult = run.result
    _print(result)
    print_written_report(run)
    warn_about_notes(result.store.iter_records())
    if not run.outcome.passed:
        print_outcome(run.outcome)
    exit_with(run, "sparring simulate --resume {run}")


def _print(result: SimulationResult) -> None:
    render_summary(result.summary, console)
    console.print(f"[bold]run[/]: {result.store.path}")
    console.print(f"[bold]summary[/]: {result.store.path / 'summary.json'}")
