"""The Typer application, global options and error handling shared by every command."""

from __future__ import annotations

import io
import logging
import os
import shlex
import signal
import sys
from pathlib import Path
from typing import Annotated, NoReturn, TextIO, cast

import typer
from rich.console import Console
from rich.file_proxy import FileProxy
from rich.logging import RichHandler

from sparring import __version__
from sparring._redact import redact_text
from sparring._terminal import escape
from sparring.cli._lazy import LazyGroup
from sparring.errors import ModelRequired, UserInputError
from sparring.outcome import (
    EXIT_BAD_INPUT,
    EXIT_INTERNAL_ERROR,
    EXIT_INTERRUPTED,
    Outcome,
)

app = typer.Typer(
    cls=LazyGroup,
    name="sparring",
    help="Test conversational agents end to end: connect, simulate users, check conversations.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)
CI_WIDTH = 200
"""Columns used when output is not a terminal (CI logs): wide enough that lines and
tables do not wrap; ``COLUMNS`` overrides it."""


class _Redacted(io.TextIOBase):
    """``sys.stdout`` or ``sys.stderr`` as they are when written to (tests swap them),
    with every write passed through the one redaction pass (``sparring._redact``).

    While a Rich progress bar runs in a terminal, ``sys.stdout`` is Rich's ``FileProxy``,
    which writes to the console that writes here: the stream is then the file the proxy
    stands for, or every write (and the bar's first refresh) would loop forever."""

    def __init__(self, stderr: bool) -> None:
        self._stderr = stderr

    @property
    def stream(self) -> TextIO:
        stream = sys.stderr if self._stderr else sys.stdout
        while isinstance(stream, FileProxy):
            stream = stream.rich_proxied_file
        return stream

    def write(self, text: str) -> int:
        self.stream.write(redact_text(text))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.stream, "encoding", None) or "utf-8"


def _console(stderr: bool = False) -> Console:
    """A console that redacts secrets and wraps nothing when its stream is not a terminal
    (CI logs)."""
    stream = sys.stderr if stderr else sys.stdout
    file = cast(TextIO, _Redacted(stderr))
    if stream.isatty() or os.environ.get("COLUMNS"):
        return Console(file=file, stderr=stderr)
    return Console(file=file, stderr=stderr, width=CI_WIDTH, soft_wrap=True)


console = _console()
err_console = _console(stderr=True)

EXIT_USER_ERROR = EXIT_BAD_INPUT
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
    handler = RichHandler(console=err_console, show_path=verbose > 1)
    handler.addFilter(_redact_record)
    logging.basicConfig(level=level, format="%(message)s", handlers=[handler], force=True)
    # Third-party request logs can carry headers and API keys: never above warnings.
    for name in _QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)


def _redact_record(record: logging.LogRecord) -> bool:
    """Log messages pass through the one redaction pass before they are formatted."""
    record.msg, record.args = redact_text(record.getMessage()), None
    return True


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


def exit_on_outcome(outcome: Outcome) -> NoReturn:
    """Print a failed, unjudged or errored ``outcome``'s reasons on stderr and exit with
    its code (decided by ``sparring.jobs.outcome``)."""
    if outcome.verdict != "pass":
        err_console.print(
            f"[bold red]{outcome.status}[/]: {escape(outcome.summary)}",
            highlight=False,
            soft_wrap=True,
        )
    raise typer.Exit(outcome.exit_code)


_SIGNALLED: list[int] = []
"""The terminating signal received (SIGTERM, SIGHUP), if any: it decides the exit code."""


def _terminate(signum: int, frame: object) -> None:
    """SIGTERM and SIGHUP stop a job as Ctrl-C does (``KeyboardInterrupt``): the runner
    records the run as ``stopped`` and the command prints how to resume it."""
    _SIGNALLED.append(signum)
    raise KeyboardInterrupt(signal.Signals(signum).name)


def interrupted_exit_code(interrupt: BaseException | None = None) -> int:
    """143 after SIGTERM (129 after SIGHUP), else 130 (Ctrl-C). ``interrupt``: the
    ``KeyboardInterrupt`` raised, whose argument names the signal when a handler raised it
    (``sparring.mutation``'s too)."""
    named = str(interrupt) if interrupt is not None else ""
    if named in ("SIGTERM", "SIGHUP"):
        return 128 + int(signal.Signals[named])
    return 128 + _SIGNALLED[0] if _SIGNALLED else EXIT_INTERRUPTED


_ARGUMENTS: list[str] = []
"""The command line's arguments after ``sparring`` (set by ``main``): how to run the same
command again."""


def rerun_command(run_dir: Path | None = None) -> str | None:
    """The command that was run, as a shell line (``sparring check -r rules runs/x``),
    with ``--out``/``-o`` set to ``run_dir`` when given so that it resumes that run; ``None``
    when the command line is unknown (the app invoked in process, e.g. by tests)."""
    if not _ARGUMENTS:
        return None
    arguments = list(_ARGUMENTS)
    if run_dir is not None:
        for index, argument in enumerate(arguments):
            if argument in ("--out", "-o") and index + 1 < len(arguments):
                del arguments[index : index + 2]
                break
            if argument.startswith("--out="):
                del arguments[index]
                break
        arguments += ["--out", str(run_dir)]
    return shlex.join(["sparring", *arguments])


def main() -> None:
    """Console entry point: runs the app and maps user errors, and a step that needs a
    model run without one, to exit code 2; Ctrl-C to 130 and SIGTERM to 143 without a
    traceback; an unexpected exception (a bug in sparring) to 70, never 1 (a FAIL)."""
    _ARGUMENTS[:] = sys.argv[1:]
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _terminate)
    try:
        app()
    except UserInputError as exc:
        report_user_error(exc)
        sys.exit(EXIT_USER_ERROR)
    except ModelRequired as exc:
        err_console.print(f"[bold red]error[/]: {escape(str(exc))}", highlight=False)
        sys.exit(EXIT_USER_ERROR)
    except KeyboardInterrupt:
        _quiet_exit()
        sys.exit(interrupted_exit_code())
    except SystemExit as exc:
        if exc.code == EXIT_INTERRUPTED:  # typer's Ctrl-C; the signal may be SIGTERM
            _quiet_exit()
            sys.exit(interrupted_exit_code())
        raise
    except Exception as exc:
        logging.getLogger(__name__).debug("internal error", exc_info=True)
        err_console.print(
            f"[bold red]internal error[/] (a bug in sparring, not a verdict on the chatbot): "
            f"{type(exc).__name__}: {escape(str(exc))}; -vv shows where",
            highlight=False,
            soft_wrap=True,
        )
        sys.exit(EXIT_INTERNAL_ERROR)


def _quiet_exit() -> None:
    """No "Task exception was never retrieved" dumps from tasks an interrupt left."""
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
