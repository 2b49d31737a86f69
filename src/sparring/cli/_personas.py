"""``sparring personas generate``: write persona files for a chatbot (docs/personas.md)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from sparring._terminal import escape
from sparring.cli._app import CacheOption, ModelBaseUrlOption, ModelOption, app, console
from sparring.jobs import check_output_paths, run_blocking
from sparring.llm import load_model
from sparring.personas import generate_persona_files

personas_app = typer.Typer(
    name="personas", help="Persona files: simulated users with a personality and a task."
)
app.add_typer(personas_app)


class Kind(StrEnum):
    standard = "standard"
    challenging = "challenging"
    adversarial = "adversarial"
    tester = "tester"


@personas_app.command("generate")
def generate(
    chatbot: Annotated[
        Path, typer.Option("--chatbot", "-c", help="chatbot.yaml (its info describes the bot).")
    ],
    kind: Annotated[Kind, typer.Option("--type", "-t", help="Kind of persona.")] = Kind.standard,
    n: Annotated[int, typer.Option("-n", min=1, help="How many personas (not for tester).")] = 3,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder to write them to.")] = Path(
        "personas"
    ),
    breakdowns: Annotated[
        Path | None,
        typer.Option(help="tester: YAML of breakdown types (name: description), one tester each."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed for the variety asked of the model.")] = 0,
    model: ModelOption = None,
    model_base_url: ModelBaseUrlOption = None,
    cache: CacheOption = False,
) -> None:
    """Generate persona files for the chatbot --chatbot describes; write them to --out.

    standard, challenging and adversarial personas need --model; tester personas (one per
    breakdown type in --breakdowns) are written offline from the types' descriptions
    without one. Existing files are never overwritten.
    """
    check_output_paths(folders={"--out": out})
    llm = load_model(model, model_base_url, cache)
    written = run_blocking(
        generate_persona_files(chatbot, kind.value, out, llm, n=n, breakdowns=breakdowns, seed=seed)
    )
    for path in written.paths:
        console.print(f"wrote {escape(str(path))}", highlight=False)
    if written.short:
        console.print(
            f"[yellow]warning[/]: asked for {n} personas, the model wrote {len(written.paths)}"
        )
