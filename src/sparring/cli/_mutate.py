"""``sparring mutate``: inject faults into a chatbot project and score the rules by the
mutants they kill (see ``sparring.mutation``, docs/mutate.md). The job runs on the runner
(``MutateJob``); its options are ``MutateSettings``' fields."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from sparring._terminal import escape
from sparring.cli._app import app, console, interrupted_exit_code
from sparring.cli._jobs import exit_with, print_outcome, print_written_report, run_job
from sparring.cli._options import MODEL_ENVVARS, MODEL_FLAGS, SettingsValues, settings_options
from sparring.cli._progress import percent
from sparring.cli._worker import BrokerOption, InProcessOption, remote_mutants
from sparring.jobs import check_output_paths, new_run_dir
from sparring.jobs import outcome as outcomes
from sparring.mutation import (
    MUTATION_FILE,
    MutateJob,
    MutateSettings,
    MutationResult,
    OriginalFailed,
    adopt_old_run,
    terminating_signals,
)

LIVE_DIFFS_SHOWN = 10
CHANGED_ON_RESUME = ("workers", "min_score")
"""Settings a resume may change: how the run goes and how it is judged, not what it holds."""

RESUME = "sparring mutate --resume {run}"


@app.command("mutate")
@settings_options(
    MutateSettings,
    fields=[name for name in MutateSettings.model_fields if name != "serve_command"],
    flags={
        **MODEL_FLAGS,
        "project": ("--project", "-p"),
        "kind": ("--kind", "-k"),
        "rules": ("--rules", "-r"),
    },
    envvars=MODEL_ENVVARS,
)
def mutate_command(
    values: SettingsValues,
    serve_command: Annotated[
        str | None,
        typer.Option(
            help="Serve each build with this command ({project}, {port}); taskyto: "
            "`taskyto-serve --chatbot {project}`."
        ),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Run directory (default runs/<time>).")
    ] = None,
    resume: Annotated[
        Path | None, typer.Option(help="Finish a stopped or interrupted mutate run.")
    ] = None,
    broker: BrokerOption = None,
    in_process: InProcessOption = False,
) -> None:
    """Mutation testing: build and serve each mutant of the project, run the same profiles
    (same seed) and rules as on the original, and count the mutants the rules kill.

    The original runs first: what fails on it is excluded ("failing on the original") and
    kills nothing: a real defect of the bot or a rule that does not fit it, not a mutant's.
    Mutants that cannot be built are stillborn and not scored. Writes OUT/results/
    mutation.json and the report (OUT is the original's run; mutants are in OUT/mutants/).

    Exit 0 when the job finished (1 if --min-score is not reached, 3 when no mutant
    counted: all stillborn), 1 when the original bot cannot be built or reached, 2 on bad
    input, 3 when stopped and 130 when interrupted (finish it with --resume OUT). With
    --broker, each mutant is a task for the `sparring worker`s.
    """
    check_output_paths(folders={"--out": out})
    settings = None
    if resume is not None and (restart := adopt_old_run(resume)) is not None:
        settings, out, resume = restart, resume, None  # an old run whose original never ran
    elif resume is None:
        given = {**values, "serve_command": serve_command} if serve_command else values
        settings = MutateSettings.from_values(given, "options")
    folder = resume or out or new_run_dir()
    job = MutateJob(run_one=remote_mutants(broker, folder) if broker and not in_process else None)
    changes = {k: values[k] for k in CHANGED_ON_RESUME if k in values} if resume else None
    try:
        with terminating_signals():
            run = run_job(job, settings, folder, resume=resume, changes=changes,
                          items="mutants", counted="not built or run",
                          resume_hint=RESUME)  # fmt: skip
    except OriginalFailed as exc:
        console.print(f"[bold red]error[/]: {escape(str(exc))}", highlight=False)
        raise typer.Exit(outcomes.error().exit_code) from None
    except KeyboardInterrupt as exc:  # after the runner (stopping the servers)
        how = RESUME.format(run=folder)
        console.print(f"[yellow]interrupted[/]: every server was stopped; finish with {how}")
        raise typer.Exit(interrupted_exit_code(exc)) from None
    print_result(run.result, run.run_dir or folder)
    print_written_report(run)
    print_outcome(run.outcome)
    exit_with(run, RESUME)


def print_result(result: MutationResult, folder: Path) -> None:
    """The score, the per-operator table, the killed-by table and the live mutants' diffs."""
    original = result.original
    if original is not None and original.false_positives:
        names = ", ".join(original.false_positives)
        console.print(f"[yellow]failing on the original (excluded)[/]: {escape(names)}")
        if original.flaky:
            flaky = ", ".join(original.flaky)
            console.print(
                f"  of which flaky (failed on some of its {original.runs} runs): {escape(flaky)}"
            )
    table = Table(title="mutants per operator")
    for column in ("operator", "mutants", "killed", "live", "stillborn", "error", "score"):
        table.add_column(column)
    for row in result.operators:
        cells = (row.total, row.killed, row.live, row.stillborn, row.error)
        table.add_row(escape(row.operator), *map(str, cells), percent(row.score))
    console.print(table)
    killers = Table(title="killed by")
    killers.add_column("rule or failure")
    killers.add_column("mutants killed")
    for name, ids in result.killed_by_table().items():
        killers.add_row(escape(name), escape("\n".join(ids)))
    if result.killed_by_table():
        console.print(killers)
    live = [m for m in result.mutants if m.status == "live"]
    for mutant in live[:LIVE_DIFFS_SHOWN]:
        console.print(f"[bold]live[/]: {escape(mutant.id)} — {escape(mutant.description)}")
        console.print(escape(mutant.diff.rstrip()) or "(no diff)", highlight=False)
    if len(live) > LIVE_DIFFS_SHOWN:
        console.print(f"… {len(live) - LIVE_DIFFS_SHOWN} more live mutants in {MUTATION_FILE}")
    stillborn = result.count("stillborn")
    console.print(
        f"[bold]mutation score[/]: {percent(result.score)} ({result.count('killed')} killed, "
        f"{len(live)} live, {stillborn} stillborn, {result.count('error')} errors)"
    )
    console.print(f"[bold]results[/]: {folder / MUTATION_FILE}", highlight=False)
