"""``sparring adversarial probe --chatbot chatbot.yaml [--suite NAME|FILE …]``: offline
adversarial probes with oracles that need no model (``sparring.adversarial.ProbeJob``);
exit 0 when every probe passed, 1 on a failure or error, 3 when none could be judged."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from sparring._terminal import escape
from sparring.adversarial import (
    PROBES_FILE,
    ProbeJob,
    ProbeJobResult,
    ProbeSettings,
    builtin_suites,
)
from sparring.cli._adversarial import adversarial_app
from sparring.cli._app import console
from sparring.cli._jobs import exit_with, print_outcome, print_written_report, run_job
from sparring.cli._options import OPTIONS, SettingsValues, settings_options
from sparring.jobs import check_output_paths
from sparring.precision import ORACLES, precision_summary

_STYLE = {"pass": "green", "fail": "bold red", "error": "red", "not_applicable": "dim",
          "unscored": "yellow"}  # fmt: skip

RESUME = "sparring adversarial probe --resume {run}"
"""How a stopped run of this command is finished (``{run}``: its folder)."""


@adversarial_app.command("probe")
@settings_options(
    ProbeSettings,
    fields=("chatbot", "suites", "concurrency", "reply_timeout", "explored"),
    flags={"chatbot": ("--chatbot", "-c"), "suites": ("--suite", "-s")},
)
def probe_command(
    values: SettingsValues,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Run directory (default runs/<time>).")
    ] = None,
    show_all: Annotated[
        bool, typer.Option("--all", help="List every probe, not only failures and errors.")
    ] = False,
    resume: Annotated[
        Path | None, typer.Option(help="Finish a stopped or interrupted probe run directory.")
    ] = None,
) -> None:
    """Run offline adversarial probes (prompt injection, system-prompt leaks, jailbreaks, PII
    echo, encoded payloads, out-of-domain and impossible requests, constraint changes)
    against the chatbot, one conversation per probe, judged without a model.

    Built-in suites: injection, jailbreak, pii, encoded, out-of-domain, constraint-change.
    Exit 0 when every probe passed, 1 when one failed or errored, 3 when none was judged.
    """
    check_output_paths(folders={"--out": out})
    settings = ProbeSettings.from_values(values, OPTIONS) if resume is None else None
    run = run_job(ProbeJob(), settings, out, resume=resume, items="probes", resume_hint=RESUME)
    result = run.result
    _print(result, show_all)
    print_written_report(run)
    print_outcome(run.outcome)
    exit_with(run, RESUME)


def _print(result: ProbeJobResult, show_all: bool) -> None:
    """A table of the probes (failures, errors and unscored, or all with ``show_all``),
    counts per suite and each oracle's measured precision."""
    report = result.report
    table = Table(title=f"Probes ({result.store.path})", show_lines=False)
    for column in ("probe", "category", "status", "reason"):
        table.add_column(column, overflow="fold")
    entries = {entry.id: entry for entry in report.probes}
    for verdict in report.verdicts:
        if not show_all and verdict.status not in ("fail", "error", "unscored"):
            continue
        entry = entries.get(verdict.rule)
        style = _STYLE.get(verdict.status, "default")
        table.add_row(
            escape(verdict.rule),
            entry.category.value if entry else "",
            f"[{style}]{verdict.status}[/]",
            escape(verdict.reason or ""),
        )
    if table.row_count:
        console.print(table)
    counts = report.counts
    per_suite: dict[str, list[int]] = {}
    for verdict in report.verdicts:
        entry = entries.get(verdict.rule)
        row = per_suite.setdefault(entry.suite if entry else "?", [0, 0, 0])
        if verdict.status in ("pass", "fail", "error"):
            row[("pass", "fail", "error").index(verdict.status)] += 1
    summary = Table(title="Per suite")
    for column in ("suite", "pass", "fail", "error"):
        summary.add_column(column, justify="right" if column != "suite" else "left")
    for name, (passed, failed, errors) in per_suite.items():
        summary.add_row(escape(name), str(passed), str(failed), str(errors))
    console.print(summary)
    console.print(
        f"{counts.total} probes: {counts.passed} passed, {counts.fail} failed, "
        f"{counts.error} errors, {counts.not_applicable} not applicable, "
        f"{counts.unscored} unscored (built-in suites: {', '.join(builtin_suites())})",
        highlight=False,
    )
    for line in precision_summary(report.verdicts, ORACLES):
        console.print(f"[dim]offline judge: {escape(line)}[/]", highlight=False)
    console.print(f"[bold]results[/]: {result.store.path / PROBES_FILE}", highlight=False)
