"""``sparring explore``: map an unknown chatbot into a functionality model, its workflow
graph and generated profiles (see ``sparring.explore``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sparring._terminal import escape
from sparring.cli._app import CacheOption, ModelBaseUrlOption, ModelOption, app, console
from sparring.cli._jobs import exit_with, print_outcome, print_written_report, run_job
from sparring.explore import (
    DEFAULT_FORMATS,
    ExplorationResult,
    ExploreJob,
)
from sparring.jobs import check_output_paths

ProjectOption = Annotated[
    Path | None,
    typer.Option(help="The bot's definition (Rasa 1.x/3.x, Taskyto, AIML) to seed exploration."),
]
DocsOption = Annotated[
    Path | None, typer.Option(help="FAQ or help pages (txt, md, html) to seed capability probes.")
]


@app.command("explore")
def explore_command(
    chatbot: Annotated[
        Path | None, typer.Option("--chatbot", "-c", help="chatbot.yaml of the chatbot under test.")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Run directory (default runs/<time>).")
    ] = None,
    sessions: Annotated[int, typer.Option(min=1, help="Most exploration conversations.")] = 12,
    turns: Annotated[int, typer.Option(min=1, help="Most user turns per conversation.")] = 12,
    model: ModelOption = None,
    profile_model: Annotated[
        str | None, typer.Option(help="Model that writes the profiles (default: --model).")
    ] = None,
    model_base_url: ModelBaseUrlOption = None,
    cache: CacheOption = False,
    seed: Annotated[int, typer.Option(help="Seed for choices and generated values.")] = 0,
    graph_format: Annotated[
        list[str] | None,
        typer.Option("--graph-format", help="Workflow graph formats: svg, png, pdf (repeat)."),
    ] = None,
    compact: Annotated[bool, typer.Option(help="Graph nodes show names only.")] = False,
    top_down: Annotated[bool, typer.Option(help="Draw the graph top-down.")] = False,
    nested_forward: Annotated[
        bool, typer.Option(help="Chain dependent profile variables with forward().")
    ] = False,
    profiles: Annotated[
        bool, typer.Option("--profiles/--no-profiles", help="Generate test profiles.")
    ] = True,
    project: ProjectOption = None,
    docs: DocsOption = None,
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
    values = {
        "chatbot": chatbot,
        "sessions": sessions,
        "turns": turns,
        "model": model,
        "profile_model": profile_model,
        "model_base_url": model_base_url,
        "cache": cache,
        "seed": seed,
        "graph_formats": graph_format or list(DEFAULT_FORMATS),
        "compact": compact,
        "top_down": top_down,
        "nested_forward": nested_forward,
        "profiles": profiles,
        "project": project,
        "docs": docs,
    }
    run = run_job(ExploreJob(), values, out, resume=resume, items="sessions")
    result: ExplorationResult = run.result
    print_exploration(result)
    print_written_report(run)
    print_outcome(run.outcome)
    exit_with(run, "sparring explore --resume {run}")


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
