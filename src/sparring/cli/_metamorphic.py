"""``sparring metamorphic``: multi-turn metamorphic testing of a chatbot (see
``sparring.metamorphic``, docs/metamorphic.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from sparring._terminal import escape
from sparring.cli._app import ModelBaseUrlOption, ModelOption, app, console
from sparring.cli._health import unreachable
from sparring.cli._jobs import exit_with, print_outcome, run_job
from sparring.cli._report import print_report_path
from sparring.connectors import ChatbotUnreachable
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
def metamorphic_command(
    seeds: Annotated[
        Path, typer.Argument(help="A run directory, conversations folder or CoQA JSON file.")
    ],
    chatbot: Annotated[
        Path, typer.Option("--chatbot", "-c", help="chatbot.yaml of the chatbot under test.")
    ],
    perturbations: Annotated[
        list[str] | None,
        typer.Option(
            "--perturbations",
            "-p",
            help="drs, drr, drd, dsr, dsd, typos, leetspeak, random-words, char-noise or all "
            "(repeat or comma-separate; default the five dialogue-level ones).",
        ),
    ] = None,
    rules: Annotated[
        list[Path] | None,
        typer.Option(
            "--rules", "-r", help="Rule files whose `transformation` rules get follow-ups."
        ),
    ] = None,
    model: ModelOption = None,
    model_base_url: ModelBaseUrlOption = None,
    similarity: Annotated[
        str | None,
        typer.Option(help="embeddings or tf-idf (default: embeddings when installed)."),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", "-o", help="Run directory (default runs/<time>; resumed if it exists)."
        ),
    ] = None,
    concurrency: Annotated[int, typer.Option(min=1, help="Follow-ups replayed at once.")] = 4,
    seed: Annotated[int, typer.Option(help="Seed of every perturbation.")] = 0,
    source_replays: Annotated[
        int,
        typer.Option(
            min=1,
            help="Replays of each unperturbed seed; rounds whose replies vary between them "
            "are not checked (nondeterministic bots).",
        ),
    ] = 2,
    context_probe: Annotated[
        bool,
        typer.Option(
            "--context-probe/--no-context-probe",
            help="Also ask each source round alone; rounds whose reply then changes depend "
            "on their context (a task bot's state) and keep MR1/MR3 only where it is unchanged.",
        ),
    ] = True,
    probe: Annotated[
        bool, typer.Option("--probe/--no-probe", help="Check the chatbot answers before starting.")
    ] = True,
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
    names = [n for item in perturbations or [] for n in item.split(",") if n.strip()]
    settings = MetamorphicSettings(
        seeds=seeds,
        chatbot=chatbot,
        rules=rules or [],
        model=model,
        model_base_url=model_base_url,
        similarity=similarity,
        concurrency=concurrency,
        seed=seed,
        source_replays=source_replays,
        context_probe=context_probe,
        probe=probe,
        **({"perturbations": names} if names else {}),
    )
    try:
        run = run_job(MetamorphicJob(), settings, out, items="follow-ups", counted="with bugs")
    except ChatbotUnreachable as exc:
        unreachable(exc.cause)
    result: MetamorphicResult = run.result
    _print(result, run.run_dir or Path())
    print_outcome(run.outcome)
    exit_with(run, "rerun with the same --out {run}")


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
    print_report_path(folder)


def _ratio(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "—"
