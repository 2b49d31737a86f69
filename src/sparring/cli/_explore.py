"""``sparring explore``: map an unknown chatbot into a functionality model, its workflow
graph and generated profiles (see ``sparring.explore``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sparring._terminal import escape
from sparring.cli._app import app, console
from sparring.cli._jobs import exit_with, print_outcome, print_written_report, run_job
from sparring.cli._options import MODEL_ENVVARS, MODEL_FLAGS, SettingsValues, settings_options
from sparring.explore import ExplorationResult, ExploreJob, ExploreSettings
from sparring.jobs import check_output_paths

RESUME = "sparring explore --resume {run}"
"""How a stopped run of this command is finished (``{run}``: its folder)."""


@app.command("explore")
@settings_options(
    ExploreSettings,
    flags={**MODEL_FLAGS, "chatbot": ("--chatbot", "-c"), "graph_formats": ("--graph-format",)},
    envvars=MODEL_ENVVARS,
)
def explore_command(
    values: SettingsValues,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Run directory (default runs/<time>).")
    ] = None,
    resume: Annotated[
        Path | None, typer.Option(help="Finish a stopped or interrupted explore run.")
    ] = None,
) -> None:
    """Explore the chatbot: probe its languages and fallback, talk to it (offline: follow
    every button and announced option; with --model: TRACER's exploration sessions), and
    write explore/model.json, the workflow graph, the exploration conversations and
    explore/profiles/*.yaml into the run directory. With --resume, a stopped run's
    sessions are played again from their records and the exploration goes on. Exit 1 when
    the chatbot cannot be reached, or failed in most exploration conversations (what was
    learnt is kept), 3 when stopped."""
    check_output_paths(folders={"--out": out})
    run = run_job(ExploreJob(), values, out, resume=resume, items="sessions", resume_hint=RESUME)
    result = run.result
    print_exploration(result)
    print_written_report(run)
    print_outcome(run.outcome)
    exit_with(run, RESUME)


def print_exploration(result: ExplorationResult) -> None:
    """The model's summary, the files written and the problems met."""
    model = result.model
    state = "" if model.complete else " [yellow](partial)[/]"
    console.print(
        f"[bold]{len(model.functionalities)} functionalities[/]{state} "
        f"({model.strategy.value}, {model.bot_type}; {model.sessions} sessions, "
        f"{model.turns} user turns); languages: {', '.join(model.languages) or '?'}; "
        f"fallback: {model.fallback!r}"
    )
    for node in model.functionalities:
        parameters = ", ".join(
            p.name + (f" [{'/'.join(p.options[:5])}]" if p.options else "") for p in node.parameters
        )
        after = f" (after {', '.join(node.parents)})" if node.parents else ""
        line = f"  • {node.name}{after}" + (f": {parameters}" if parameters else "")
        console.print(escape(line))
    for note in model.notes:
        console.print(f"[yellow]note[/]: {note}")
    for problem in result.problems:
        console.print(f"[yellow]warning[/]: {problem}")
    console.print(f"[bold]run[/]: {result.store.path}")
    console.print(f"[bold]model[/]: {result.store.explore_model_path}")
    for path in result.files:
        console.print(f"[bold]wrote[/]: {path}")
