"""``sparring metamorphic``: multi-turn metamorphic testing of a chatbot (see
``sparring.metamorphic``, docs/metamorphic.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from sparring._terminal import escape
from sparring.cli._app import app, console
from sparring.cli._jobs import exit_with, print_outcome, print_written_report, run_job
from sparring.cli._options import (
    MODEL_ENVVARS,
    MODEL_FLAGS,
    OPTIONS,
    SettingsValues,
    settings_options,
)
from sparring.jobs import check_output_paths
from sparring.metamorphic import (
    METAMORPHIC_FILE,
    MetamorphicJob,
    MetamorphicResult,
    MetamorphicSettings,
)
from sparring.precision import precision_note

BUGS_SHOWN = 10


@app.command("metamorphic")
@settings_options(
    MetamorphicSettings,
    arguments=("seeds",),
    flags={
        **MODEL_FLAGS,
        "chatbot": ("--chatbot", "-c"),
        "perturbations": ("--perturbations", "-p"),
        "rules": ("--rules", "-r"),
    },
    envvars=MODEL_ENVVARS,
    required=("chatbot",),
)
def metamorphic_command(
    values: SettingsValues,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", "-o", help="Run directory (default runs/<time>; resumed if it exists)."
        ),
    ] = None,
) -> None:
    """Perturb the SEEDS' dialogues (MORTAR's round shuffle, reduction, duplication and
    their mixes; METAL's single-turn noise), replay the follow-ups against the chatbot,
    and check the metamorphic relations MR1-MR4 and the exact values.

    Writes the follow-ups as run records, OUT/metamorphic.json and the report. Exit 0
    when no relation was violated, 1 when some was (or the chatbot cannot be reached),
    2 on bad input, 3 when no follow-up could be judged. Run it again with the same
    --out to resume.
    """
    check_output_paths(folders={"--out": out})
    settings = MetamorphicSettings.from_values(values, OPTIONS)
    run = run_job(MetamorphicJob(), settings, out, items="follow-ups", counted="with bugs")
    result = run.result
    _print(result, run.run_dir or Path())
    print_written_report(run)
    print_outcome(run.outcome)
    exit_with(run)  # the same command with --out set to the run resumes it


def _print(result: MetamorphicResult, folder: Path) -> None:
    metrics = result.metrics
    for note in result.notes:
        console.print(f"[yellow]note[/]: {escape(note)}", highlight=False)
    if result.skipped:
        console.print(f"{len(result.skipped)} seeds skipped (reasons in {METAMORPHIC_FILE})")
    table = Table(title="Metamorphic testing", show_header=False)
    rows = [
        ("test cases (follow-ups)", metrics.test_cases),
        ("effective test cases", metrics.effective_test_cases),
        ("relation checks", metrics.checks),
        ("bugs (violations)", metrics.bugs),
        ("unique bugs", metrics.unique_bugs),
        ("bugs per effective test case", _ratio(metrics.bugs_per_test_case)),
        ("by relation", _counts(metrics.by_relation)),
        ("by perturbation", _counts(metrics.by_perturbation)),
        ("by severity", _counts(metrics.by_severity)),
    ]
    if metrics.by_level:
        rows.append(("by level (gold answers)", _counts(metrics.by_level)))
    rows.append(("similarity", f"{result.similarity} (threshold {result.threshold})"))
    rows.append(("answerability", str(result.answerability or "—")))
    rows.append(("precision of a bug report", precision_note("metamorphic", "bug")))
    for name, value in rows:
        table.add_row(name, str(value))
    console.print(table)
    for bug in result.bugs[:BUGS_SHOWN]:
        console.print(
            f"[red]{escape(bug.relation)}[/] {escape(bug.follow_up)} round {bug.position} "
            f"(source round {bug.source_round}, {escape(bug.severity)}): "
            f"{escape(repr(bug.follow_up_question))}"
            f"\n  source:    {escape(repr(bug.reference[:160]))}\n  follow-up: "
            f"{escape(repr(bug.reply[:160]))}"
            + (f"\n  severity {escape(bug.severity_reason)}" if bug.severity_reason else ""),
            highlight=False,
            soft_wrap=True,
        )
    if len(result.bugs) > BUGS_SHOWN:
        console.print(f"… {len(result.bugs) - BUGS_SHOWN} more in {folder / METAMORPHIC_FILE}")
    console.print(f"[bold]run[/]: {folder}")


def _ratio(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "—"
