"""``sparring mutate``: inject faults into a chatbot project and score the rules by the
mutants they kill (see ``sparring.mutation``, docs/mutate.md)."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from sparring._terminal import escape
from sparring.cli._app import CacheOption, ModelBaseUrlOption, ModelOption, app, console
from sparring.cli._jobs import print_outcome
from sparring.cli._progress import CountingProgress, percent
from sparring.cli._report import print_report_path
from sparring.cli._worker import BrokerOption, remote_mutants
from sparring.jobs import check_output_paths
from sparring.jobs import outcome as outcomes
from sparring.mutation import (
    MUTATION_FILE,
    MutantResult,
    MutateSettings,
    MutationResult,
    OriginalFailed,
    ProjectKind,
    mutate_job,
    mutation_outcome,
    resume_mutate_job,
)

EXIT_ORIGINAL_FAILED = outcomes.error().exit_code
"""The original bot cannot be built or reached: nothing could be tested (1)."""
LIVE_DIFFS_SHOWN = 10


@app.command("mutate")
def mutate_command(
    project: Annotated[
        Path | None, typer.Option("--project", "-p", help="The chatbot project folder to mutate.")
    ] = None,
    kind: Annotated[
        str | None, typer.Option("--kind", "-k", help="rasa, taskyto, aiml or prompt.")
    ] = None,
    profiles: Annotated[
        list[Path] | None, typer.Option("--profiles", help="Profile files or folders (repeat).")
    ] = None,
    rules: Annotated[
        list[Path] | None, typer.Option("--rules", "-r", help="Rule files or folders (repeat).")
    ] = None,
    sample: Annotated[
        int | None, typer.Option(min=1, help="Mutants to draw (default: every one).")
    ] = None,
    workers: Annotated[
        int | None, typer.Option(min=1, help="Mutants at once (default: half the cores for Rasa).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the sample and of every simulation.")] = 0,
    exercised_only: Annotated[
        bool,
        typer.Option(
            "--exercised-only",
            help="Draw mutants only where the original's conversations reach (aiml).",
        ),
    ] = False,
    original_runs: Annotated[
        int,
        typer.Option(
            min=1,
            help="Run the original this many times; what fails on any run kills nothing "
            "(bots that answer at random).",
        ),
    ] = 1,
    serve_command: Annotated[
        str | None,
        typer.Option(
            help="Serve each build with this command ({project}, {port}); taskyto: "
            "`taskyto-serve --chatbot {project}`."
        ),
    ] = None,
    chatbot: Annotated[
        Path | None,
        typer.Option(help="chatbot.yaml (rasa: <project>/../chatbot.yaml; else in the project)."),
    ] = None,
    rasa_helper: Annotated[
        Path | None, typer.Option(help="The Rasa project's helper (<project>/../rasa_bot.py).")
    ] = None,
    model: ModelOption = None,
    model_base_url: ModelBaseUrlOption = None,
    cache: CacheOption = False,
    concurrency: Annotated[int, typer.Option(min=1, help="Conversations at once per bot.")] = 4,
    max_turns: Annotated[int, typer.Option(min=1, help="Most user turns per conversation.")] = 40,
    min_score: Annotated[
        float | None,
        typer.Option(min=0, max=1, help="Exit 1 when the mutation score is below this (0-1)."),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Job folder (default runs/<time>).")
    ] = None,
    resume: Annotated[
        Path | None, typer.Option(help="Finish an interrupted job in this folder.")
    ] = None,
    broker: BrokerOption = None,
) -> None:
    """Mutation testing: build and serve each mutant of the project, run the same profiles
    (same seed) and rules as on the original, and count the mutants the rules kill.

    The original runs first: what fails on it is excluded ("failing on the original") and
    kills nothing: a real defect of the bot or a rule that does not fit it, not a mutant's.
    Mutants that cannot be built are stillborn and not scored. Writes OUT/mutation.json
    and the report (OUT is the original's run; mutants are in OUT/mutants/).

    Exit 0 when the job finished (1 if --min-score is not reached, 3 when no mutant
    counted: all stillborn), 1 when the original bot cannot be built or reached, 2 on bad
    input, 130 when interrupted (resume it with --resume OUT). With --broker, each mutant
    is a task for the `sparring worker`s.
    """
    check_output_paths(folders={"--out": out})
    view = CountingProgress("mutants", "killed")

    def killed(result: MutantResult) -> None:
        view.advance(result.status == "killed")

    try:
        with view:
            if resume is not None:
                result = resume_mutate_job(
                    resume,
                    workers=workers,
                    on_sample=view.start,
                    on_mutant=killed,
                    run_one=remote_mutants(broker, resume) if broker else None,
                )
                folder = resume
            else:
                settings = _settings(
                    project, kind, profiles, rules, sample=sample, workers=workers, seed=seed,
                    chatbot=chatbot, rasa_helper=rasa_helper, model=model,
                    model_base_url=model_base_url, cache=cache, concurrency=concurrency,
                    max_turns=max_turns, exercised_only=exercised_only,
                    serve_command=shlex.split(serve_command) if serve_command else None,
                    original_runs=original_runs,
                )  # fmt: skip
                folder = out or _default_out()
                result = mutate_job(
                    settings,
                    folder,
                    on_sample=view.start,
                    on_mutant=killed,
                    run_one=remote_mutants(broker, folder) if broker else None,
                )
    except OriginalFailed as exc:
        console.print(f"[bold red]error[/]: {escape(str(exc))}", highlight=False)
        raise typer.Exit(EXIT_ORIGINAL_FAILED) from None
    except KeyboardInterrupt:
        console.print("[yellow]interrupted[/]: every server was stopped; finish with --resume")
        raise typer.Exit(outcomes.EXIT_INTERRUPTED) from None
    print_result(result, folder)
    print_report_path(folder)
    decided = mutation_outcome(result, min_score)
    print_outcome(decided)
    if decided.exit_code:
        raise typer.Exit(decided.exit_code)


def _default_out() -> Path:
    from sparring.jobs import new_run_dir

    return new_run_dir()


def _settings(
    project: Path | None,
    kind: str | None,
    profiles: list[Path] | None,
    rules: list[Path] | None,
    **options: object,
) -> MutateSettings:
    missing = [
        name
        for name, value in (("--project", project), ("--kind", kind), ("--profiles", profiles))
        if not value
    ] + ([] if rules else ["--rules"])
    if missing:
        raise typer.BadParameter(f"give {', '.join(missing)} (or --resume OUT)")
    if kind not in ("rasa", "taskyto", "aiml", "prompt"):
        raise typer.BadParameter(f"--kind must be rasa, taskyto, aiml or prompt, not {kind!r}")
    chosen: ProjectKind = kind  # type: ignore[assignment]
    return MutateSettings.model_validate(
        {"project": project, "kind": chosen, "profiles": profiles, "rules": rules, **options}
    )


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
