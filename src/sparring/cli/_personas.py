"""``sparring personas generate``: write persona files for a chatbot (docs/personas.md)."""

from __future__ import annotations

import typer

from sparring._terminal import escape
from sparring.cli._app import app, console
from sparring.cli._options import (
    MODEL_ENVVARS,
    MODEL_FLAGS,
    OPTIONS,
    SettingsValues,
    settings_options,
)
from sparring.jobs import check_output_paths, run_blocking
from sparring.llm import load_model
from sparring.personas import PersonaSettings, generate_persona_files

personas_app = typer.Typer(
    name="personas", help="Persona files: simulated users with a personality and a task."
)
app.add_typer(personas_app)


@personas_app.command("generate")
@settings_options(
    PersonaSettings,
    flags={
        **MODEL_FLAGS,
        "chatbot": ("--chatbot", "-c"),
        "kind": ("--type", "-t"),
        "n": ("-n",),
        "out": ("--out", "-o"),
    },
    envvars=MODEL_ENVVARS,
    required=("chatbot",),
)
def generate(values: SettingsValues) -> None:
    """Generate persona files for the chatbot --chatbot describes; write them to --out.

    standard, challenging and adversarial personas need --model; tester personas (one per
    breakdown type in --breakdowns) are written offline from the types' descriptions
    without one. Existing files are never overwritten.
    """
    settings = PersonaSettings.from_values(values, OPTIONS)
    check_output_paths(folders={"--out": settings.out})
    llm = load_model(settings.model, settings.model_base_url, settings.cache)
    written = run_blocking(
        generate_persona_files(
            settings.chatbot,
            settings.kind,
            settings.out,
            llm,
            n=settings.n,
            breakdowns=settings.breakdowns,
            seed=settings.seed,
        )
    )
    for path in written.paths:
        console.print(f"wrote {escape(str(path))}", highlight=False)
    if written.short:
        console.print(
            f"[yellow]warning[/]: asked for {settings.n} personas, "
            f"the model wrote {len(written.paths)}"
        )
