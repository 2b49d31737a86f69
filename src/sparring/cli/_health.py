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


def unreachable(cause: str | None, chatbot: object = None, *, chatting: bool = False) -> NoReturn:
    """Print why the chatbot cannot be reached, and what to try, then exit 1
    (``typer.Exit``). ``chatbot``: the chatbot.yaml the command was given, when known
    (said in the message and in the hint); ``chatting``: said by ``sparring chat``, whose
    hint does not send the user to ``sparring chat``."""
    where = f" ({chatbot})" if chatbot else ""
    why = (cause or "no answer").replace(" cannot be reached: ", ": ")
    err_console.print(
        f"[bold red]error[/]: the chatbot{escape(where)} cannot be reached: {escape(why)}",
        highlight=False,
        soft_wrap=True,
    )
    hint = "hint: start the chatbot first, or fix its address" + (
        f" in {chatbot}" if chatbot else ""
    )
    talk = f"sparring chat --chatbot {chatbot}" if chatbot else "sparring chat"
    hint += "." if chatting else f"; `{talk}` talks to it by hand."
    err_console.print(escape(hint), highlight=False, soft_wrap=True)
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
