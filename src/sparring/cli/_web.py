"""``sparring web``: the dashboard (from a clone: ``pip install ".[web]"``).

Django is imported only inside these commands, never when ``sparring.cli`` is imported.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from sparring.cli._app import app, console
from sparring.errors import UserInputError

web_app = typer.Typer(
    name="web",
    help="The dashboard: projects, runs from the browser, live progress, tokens, keys.",
    invoke_without_command=True,
)
app.add_typer(web_app)

_MISSING = 'the dashboard needs the web extra: pip install ".[web]" (in a clone of sparring)'


def _require_extra() -> None:
    try:
        import django  # noqa: F401
        import waitress  # noqa: F401
    except ImportError:
        raise UserInputError(_MISSING) from None


@web_app.callback()
def web_command(
    context: typer.Context,
    host: Annotated[
        str,
        typer.Option(help="Address to serve on; anything but loopback needs production settings."),
    ] = "127.0.0.1",
    port: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=65535,
            help="Port to serve on (default: 8000, or the next free port when it is taken).",
        ),
    ] = None,
    no_browser: Annotated[
        bool, typer.Option("--no-browser", help="Do not open a browser.")
    ] = False,
) -> None:
    """Serve the dashboard on HOST:PORT with its in-process worker (zero set-up on
    loopback: SQLite in the user data folder, the first owner and a one-time sign-in link).

    Exit 2 when the host is not loopback and production settings are missing
    (docs/web.md)."""
    if context.invoked_subcommand is not None:
        return
    _require_extra()
    from sparring.web import check_host

    check_host(host)
    # a lean server process: Django and the runner, not every command's imports
    argv = [sys.executable, "-m", "sparring.web", "--host", host]
    argv += ["--port", str(port)] if port is not None else []
    os.execv(sys.executable, [*argv, *(["--no-browser"] if no_browser else [])])


@web_app.command("check")
def check_command(
    deploy: Annotated[
        bool, typer.Option("--deploy", help="Run Django's deployment checks (required).")
    ] = False,
) -> None:
    """Check the production settings with Django's deployment checks. Exit 2 on a problem."""
    if not deploy:
        raise UserInputError("only `sparring web check --deploy` is offered")
    _require_extra()
    from sparring.web import check_deploy

    check_deploy()
    console.print("[bold]deployment checks passed[/]")


@web_app.command("rotate-keys")
def rotate_keys_command() -> None:
    """Re-encrypt every stored secret with the newest Fernet key (docs/web.md)."""
    _require_extra()
    from sparring.web import rotate_keys

    count = rotate_keys()
    console.print(f"re-encrypted {count} secret(s) with the newest key")


@web_app.command("import")
def import_command(
    runs: Annotated[list[Path], typer.Argument(help="Run directories made by the CLI.")],
    project: Annotated[int, typer.Option("--project", help="The project's id.")],
) -> None:
    """Index run directories made by the CLI in a project (they stay where they are)."""
    _require_extra()
    from sparring.web import import_runs

    import_runs(runs, project)
