"""Rich tables for a run summary on the console."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from sparring._terminal import escape
from sparring.conversations._summary import RunSummary


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f} s"


def render_summary(summary: RunSummary, console: Console) -> None:
    """Print ``summary`` on ``console``: an overview table, then failures (by name and by
    profile), conversations per profile and model usage where there are any."""
    console.print(_overview(summary))
    if summary.failures.by_code:
        console.print(_failures(summary))
    if summary.profiles:
        console.print(_profiles(summary))
    if summary.usage:
        console.print(_usage(summary))


def _overview(summary: RunSummary) -> Table:
    table = Table(title="Run summary", show_header=False, title_justify="left")
    table.add_column("what", style="bold")
    table.add_column("value", justify="right")
    rt = summary.response_time
    rows = [
        ("conversations", str(summary.conversations)),
        ("conversations with failures", str(summary.failures.conversations)),
        ("chatbot turns", str(summary.turns)),
        ("user turns", str(summary.user_turns)),
        ("response time mean", _seconds(rt.mean)),
        ("response time p95", _seconds(rt.p95)),
        ("response time min / max", f"{_seconds(rt.min)} / {_seconds(rt.max)}"),
        ("conversation time total", _seconds(summary.duration.total)),
        ("conversation time mean", _seconds(summary.duration.mean)),
        ("model tokens", str(summary.tokens)),
        ("model cost", f"${summary.cost:.4f}"),
    ]
    for name, value in rows:
        table.add_row(name, value)
    return table


def _failures(summary: RunSummary) -> Table:
    names = list(summary.failures.by_code)
    table = Table(title="Failures (conversations)", title_justify="left")
    table.add_column("profile")
    for name in names:
        table.add_column(escape(name), justify="right")
    for profile, counts in summary.failures.by_profile.items():
        table.add_row(escape(profile), *(str(counts.get(name, 0)) for name in names))
    table.add_row("all", *(str(summary.failures.by_code[name]) for name in names), style="bold")
    return table


def _profiles(summary: RunSummary) -> Table:
    table = Table(title="Conversations per profile", title_justify="left")
    table.add_column("profile")
    table.add_column("conversations", justify="right")
    for profile, count in summary.profiles.items():
        table.add_row(escape(profile), str(count))
    return table


def _usage(summary: RunSummary) -> Table:
    table = Table(title="Model usage", title_justify="left")
    for name in ("module", "calls", "prompt tokens", "completion tokens", "cost (USD)"):
        table.add_column(name, justify="left" if name == "module" else "right")
    for module, usage in summary.usage.items():
        table.add_row(
            escape(module),
            str(usage.calls),
            str(usage.prompt_tokens),
            str(usage.completion_tokens),
            f"{usage.cost:.4f}",
        )
    return table
