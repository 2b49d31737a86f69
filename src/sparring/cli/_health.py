"""Console side of run health: the reachability probe the runner sends before any job's
work (``Probed`` event, ``ChatbotUnreachable``; ``cli._jobs.run_job`` reads both) and
``chat``'s (the exit decision after the last conversation is the job's outcome)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NoReturn

import typer

from sparring._terminal import escape
from sparring.cli._app import console, err_console
from sparring.conversations import ConversationRecord
from sparring.jobs import outcome

EXIT_UNHEALTHY = outcome.error().exit_code
"""A chatbot that cannot be reached, or an unhealthy run: the job could not test (1)."""


def report_probe(checked: bool) -> None:
    """Say on the console that the chatbot answered the probe (``checked`` false: its
    connector has no probe, nothing to say)."""
    if checked:
        console.print("The chatbot is reachable.", highlight=False)


def unreachable(cause: str | None) -> NoReturn:
    """Print why the chatbot cannot be reached and exit 1 (``typer.Exit``)."""
    err_console.print(
        f"[bold red]the chatbot cannot be reached[/]: {escape(cause or '')}",
        highlight=False,
        soft_wrap=True,
    )
    raise typer.Exit(EXIT_UNHEALTHY)


def warn_about_notes(records: Iterable[ConversationRecord]) -> None:
    """Say on the console what the simulator could not honour (e.g. an interaction style
    such as ``change language`` that needs a model), once per note with its count."""
    counts: dict[str, int] = {}
    for record in records:
        for note in dict.fromkeys(record.notes):
            if "not applied" in note:
                counts[note] = counts.get(note, 0) + 1
    for note, count in counts.items():
        err_console.print(
            f"[yellow]warning[/]: {escape(note)} ({count} conversations)",
            highlight=False,
            soft_wrap=True,
        )
