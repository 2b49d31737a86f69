"""``sparring validate PATH…`` and ``sparring schema NAME``.

``validate`` checks every file format users write — profiles, rule files, persona files
and ``chatbot.yaml`` — telling them apart by their top-level keys.

``schema`` prints the JSON Schema of a file format users write, looked up in the
library's registry (``sparring.schemas``: the packages register their formats,
third-party packages add theirs through the ``sparring.schemas`` entry-point group).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from sparring._terminal import escape
from sparring.cli._app import TrustFunctionsOption, app, console, err_console
from sparring.outcome import input_exit_code
from sparring.schemas import json_schema

_SHOWN = {"results": "ChatChecker run output", "probes": "probe suite"}


@app.command("validate")
def validate(
    paths: Annotated[
        list[Path],
        typer.Argument(help="Profiles, rule files or chatbot.yaml; folders are searched."),
    ],
    trust_functions: TrustFunctionsOption = False,
    repeat: Annotated[
        int,
        typer.Option(min=1, help="The --repeat a run of these profiles will use (run cap)."),
    ] = 1,
) -> None:
    """Check user files; print every problem (file:line \\[key]) or OK per file.

    Connectors are built (a python module is imported); with profiles given, rule
    variables are checked against the names the profiles define, and their conversations
    together (times --repeat) against the run cap.
    """
    from sparring.validation import validate_files

    checks = validate_files(paths, trust_functions=trust_functions, repeat=repeat)
    for check in checks:
        for warning in check.warnings:
            err_console.print(
                f"[yellow]warning[/]: {escape(str(warning))}", highlight=False, soft_wrap=True
            )
        shown = f"{_SHOWN.get(check.kind, check.kind)} {escape(str(check.path))}"
        if check.kind == "results":
            console.print(f"skipped {shown}", highlight=False)
        elif check.ok:
            console.print(f"OK {shown}", highlight=False, soft_wrap=True)
    errors = [problem for check in checks for problem in check.errors]
    for error in errors:
        err_console.print(
            f"[bold red]error[/]: {escape(str(error))}", highlight=False, soft_wrap=True
        )
    raise typer.Exit(input_exit_code(errors))


@app.command("schema")
def schema(name: Annotated[str, typer.Argument(help="Which file format, e.g. profile.")]) -> None:
    """Print the JSON Schema of a file format (for editors and CI)."""
    typer.echo(json.dumps(json_schema(name), indent=2, ensure_ascii=False))
