"""Console side of run health for ``simulate`` and ``chat``: the reachability probe before
the first conversation and the exit decision after the last (``simulate._health``)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

import typer
from rich.markup import escape

from sparring.cli._app import console, err_console
from sparring.connectors import ChatbotConfig, create_connector, probe
from sparring.conversations import ConversationRecord
from sparring.simulate._health import assess_run

EXIT_UNHEALTHY = 1


async def _probe(config: ChatbotConfig, timeout: float) -> tuple[bool, str | None, bool]:
    connector = create_connector(config)
    try:
        result = await probe(connector, timeout)
    finally:
        await connector.aclose()
    return result.reachable, result.cause, result.checked


def require_reachable(config: ChatbotConfig, timeout: float = 10.0) -> None:
    """Probe the chatbot of ``config``; say so on the console, and exit 1 with the cause
    when it cannot be reached (``typer.Exit``)."""
    reachable, cause, checked = asyncio.run(_probe(config, timeout))
    if not reachable:
        err_console.print(
            f"[bold red]the chatbot cannot be reached[/]: {escape(cause or '')}",
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(EXIT_UNHEALTHY)
    if checked:
        console.print("The chatbot is reachable.", highlight=False)


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


def exit_if_unhealthy(records: Iterable[ConversationRecord], max_share: float) -> None:
    """Exit 1 (``typer.Exit``) with the cause on the console when the run is unhealthy
    (every conversation failed, or more than ``max_share`` got no answer)."""
    health = assess_run(records, max_share)
    if health.healthy:
        return
    err_console.print(f"[bold red]run failed[/]: {escape(health.problem or '')}", highlight=False,
                      soft_wrap=True)  # fmt: skip
    if health.cause:
        err_console.print(f"cause: {escape(health.cause)}", highlight=False, soft_wrap=True)
    raise typer.Exit(EXIT_UNHEALTHY)
