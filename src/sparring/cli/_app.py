"""The Typer application, global options and error handling shared by every command."""

from __future__ import annotations

import logging
import os
import sys
from typing import Annotated

import typer
from rich.console import Console
from rich.logging import RichHandler

from sparring import __version__
from sparring._terminal import escape
from sparring.errors import ModelRequired, UserInputError

app = typer.Typer(
    name="sparring",
    help="Test conversational agents end to end: connect, simulate users, check conversations.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)
CI_WIDTH = 200
"""Columns used when output is not a terminal (CI logs): wide enough that lines and
tables do not wrap; ``COLUMNS`` overrides it."""


def _console(stderr: bool = False) -> Console:
    """A console that wraps nothing when its stream is not a terminal (CI logs)."""
    stream = sys.stderr if stderr else sys.stdout
    if stream.isatty() or os.environ.get("COLUMNS"):
        return Console(stderr=stderr)
    return Console(stderr=stderr, width=CI_WIDTH, soft_wrap=True)


console = _console()
err_console = _console(stderr=True)

EXIT_USER_ERROR = 2
_QUIET_LOGGERS = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "httpx", "httpcore", "aiohttp")


def _version(value: bool) -> None:
    if value:
        console.print(f"sparring {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    verbose: Annotated[
        int, typer.Option("-v", "--verbose", count=True, help="-v info, -vv debug logging.")
    ] = 0,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show version.")
    ] = False,
) -> None:
    """sparring: end-to-end, black-box testing of conversational agents."""
    level = logging.WARNING if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG
    logging.basicConfig(
        level=level,
        format="%(message)s",
        handlers=[RichHandler(console=err_console, show_path=verbose > 1)],
        force=True,
    )
    # Third-party request logs can carry headers and API keys: never above warnings.
    for name in _QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)


ModelOption = Annotated[
    str | None,
    typer.Option(
        "--model",
        "-m",
        envvar="SPARRING_MODEL",
        help="Model (LiteLLM name, openai/NAME with --model-base-url, scripted:FILE, "
        "llamacpp/PATH). None: offline strategies.",
    ),
]
ModelBaseUrlOption = Annotated[
    str | None,
    typer.Option(
        "--model-base-url",
        envvar="SPARRING_MODEL_BASE_URL",
        help="Base URL of an OpenAI-compatible server (vLLM, llama.cpp, Ollama /v1).",
    ),
]
CacheOption = Annotated[
    bool, typer.Option("--cache", help="Cache model replies on disk ($SPARRING_CACHE).")
]
TrustFunctionsOption = Annotated[
    bool,
    typer.Option(
        "--trust-functions",
        help="Let rule files' `functions:` import their Python files (they run unsandboxed).",
    ),
]


def report_user_error(exc: UserInputError) -> None:
    """Print every located problem of a user error on stderr."""
    for problem in exc.problems:
        err_console.print(
            f"[bold red]error[/]: {escape(str(problem))}", highlight=False, soft_wrap=True
        )


def main() -> None:
    """Console entry point: runs the app and maps user errors, and a step that needs a
    model run without one, to exit code 2."""
    try:
        app()
    except UserInputError as exc:
        report_user_error(exc)
        sys.exit(EXIT_USER_ERROR)
    except ModelRequired as exc:
        err_console.print(f"[bold red]error[/]: {escape(str(exc))}", highlight=False)
        sys.exit(EXIT_USER_ERROR)
