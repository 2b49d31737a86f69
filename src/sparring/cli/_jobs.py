"""How every command runs a job: the runner (``sparring.runner.start``/``resume``) with the
progress bar fed by the event stream, and the exit code taken from the job's outcome
(``sparring.jobs.outcome``). What the runner did before the work is said here once for
every job: the chatbot answered the probe, or cannot be reached (exit 1), or a model is
needed (exit 2). Ctrl-C interrupts at once (a frozen chatbot must not hold the terminal);
the runner records the run as ``stopped``, and ``--resume`` finishes it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar, overload

import typer

from sparring._terminal import escape
from sparring.cli._app import (
    EXIT_USER_ERROR,
    console,
    err_console,
    interrupted_exit_code,
    rerun_command,
)
from sparring.cli._health import report_probe, unreachable
from sparring.cli._options import OPTIONS
from sparring.cli._progress import CountingProgress
from sparring.connectors import ChatbotUnreachable
from sparring.conversations import RunStore, is_run_directory
from sparring.errors import ModelRequired, UserInputError
from sparring.jobs import Job, JobEvent, JobSettings, JobStatus, Outcome
from sparring.jobs.events import ItemDone, Planned, Probed, StageChanged
from sparring.runner import JobRun, find_job
from sparring.runner import resume as resume_run
from sparring.runner import start as start_run

S = TypeVar("S", bound=JobSettings)
R = TypeVar("R")


@overload
def run_job(
    job: Job[S, R],
    settings: S | Mapping[str, Any] | None,
    out: Path | None,
    *,
    resume: Path | None = None,
    changes: Mapping[str, Any] | None = None,
    items: str = "items",
    counted: str = "failed",
    resume_hint: str | None = None,
) -> JobRun[R]: ...
@overload
def run_job(
    job: str,
    settings: JobSettings | Mapping[str, Any] | None,
    out: Path | None,
    *,
    resume: Path | None = None,
    changes: Mapping[str, Any] | None = None,
    items: str = "items",
    counted: str = "failed",
    resume_hint: str | None = None,
) -> JobRun[Any]: ...
def run_job(
    job: str | Job[Any, Any],
    settings: JobSettings | Mapping[str, Any] | None,
    out: Path | None,
    *,
    resume: Path | None = None,
    changes: Mapping[str, Any] | None = None,
    items: str = "items",
    counted: str = "failed",
    resume_hint: str | None = None,
) -> JobRun[Any]:
    """Start ``job`` with ``settings`` (typed, or the command's values — ``None`` for an
    option not given; their errors are located as options, exit 2) into ``out``, or resume
    the run ``resume``, showing a progress bar of ``items`` (with a count of those
    ``counted``; ``items="{stage}"``: one bar per stage, named after it); a job passed
    as an instance (``Job[S, R]``) gives its result typed
    (``JobRun[R]``), as ``sparring.runner.start`` does.
    A chatbot that cannot be reached exits 1, a model needed and not given exits 2.
    Ctrl-C or SIGTERM during the job (the runner records the run ``stopped``) prints how
    to resume it (``resume_hint``, ``{run}`` standing for the run's folder) and exits 130
    or 143."""
    try:
        with CountingProgress(items, counted) as bar:

            def on_event(event: JobEvent) -> None:
                if isinstance(event, Planned):
                    bar.start(event.total)
                elif isinstance(event, ItemDone):
                    bar.advance(not event.ok)
                elif isinstance(event, Probed):
                    report_probe(event.checked)
                elif isinstance(event, StageChanged):
                    bar.stage(event.stage)

            if resume is not None:
                _same_job(job, resume)
                own = None if isinstance(job, str) else job  # e.g. simulate with a broker
                return resume_run(resume, on_event=on_event, changes=changes, job=own)
            assert settings is not None
            if not isinstance(settings, JobSettings):  # an option not given is the default
                given = {key: value for key, value in settings.items() if value is not None}
                settings = find_job(job).settings_type.from_values(given, OPTIONS)
            return start_run(job, settings, out, on_event=on_event)
    except KeyboardInterrupt as exc:
        where = resume if resume is not None else out
        if where is not None and is_run_directory(where):
            how = _how_to_resume(resume_hint, where)
            err_console.print(f"[yellow]stopped[/]: {escape(how)} to finish it", highlight=False,
                              soft_wrap=True)  # fmt: skip
        raise typer.Exit(interrupted_exit_code(exc)) from None
    except ChatbotUnreachable as exc:
        unreachable(exc.cause, getattr(settings, "chatbot", None))
    except ModelRequired as exc:
        err_console.print(f"[bold red]error[/]: {escape(str(exc))}", highlight=False)
        raise typer.Exit(EXIT_USER_ERROR) from exc


def _same_job(job: str | Job[Any, Any], run_dir: Path) -> None:
    """Refuse to resume ``run_dir`` with another job's command."""
    name = find_job(job).name
    made_by = RunStore.open(run_dir, clean=False).manifest.job
    if made_by != name:
        raise UserInputError(
            f"{run_dir} was made by the {made_by!r} job; only {name} runs resume here"
        )


def print_written_report(run: JobRun[Any]) -> None:
    """Print the path of the HTML report the runner wrote after the job
    (``JobRun.report``); nothing when there is none (the runner logged why)."""
    if run.report is not None:
        console.print(f"[bold]report[/]: {run.report}", highlight=False)


def print_outcome(outcome: Outcome) -> None:
    """The verdict and its reasons on one line (``PASS: 12 checks passed``)."""
    style = {"PASS": "bold green", "FAIL": "bold red", "ERROR": "bold red"}
    colour = style.get(outcome.status, "bold yellow")
    console.print(f"[{colour}]{outcome.status}[/]: {escape(outcome.summary)}", highlight=False)


def _how_to_resume(hint: str | None, run_dir: Path | None) -> str:
    """``hint`` with ``{run}`` filled; without one, the very command that was run (its
    ``--out`` set to the run: ``rerun_command``), else "run the same command again"."""
    if hint:
        return hint.format(run=run_dir)
    return rerun_command(run_dir) or "run the same command again"


def exit_with(run: JobRun[Any], resume: str | None = None) -> None:
    """Say how to resume a stopped run (``resume``: the command, ``{run}`` standing for
    its directory; ``None``: the command that was run, ``_how_to_resume``); exit with the
    outcome's code (0 returns)."""
    if run.status is JobStatus.STOPPED:
        how = _how_to_resume(resume, run.run_dir)
        err_console.print(f"[yellow]stopped[/]: {escape(how)} to finish it", highlight=False,
                          soft_wrap=True)  # fmt: skip
    if run.outcome.exit_code:
        raise typer.Exit(run.outcome.exit_code)
