"""``sparring evaluate RUN``: breakdown detection, dialogue ratings and ChatChecker's
statistics over a run; ``sparring evaluate breakdowns RUN`` and ``sparring evaluate ratings
RUN`` run one part."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import typer
from rich.table import Table
from typer.core import TyperGroup

from sparring._terminal import escape
from sparring.cli._app import app, console
from sparring.cli._jobs import exit_with, print_outcome, print_written_report, run_job
from sparring.cli._options import MODEL_ENVVARS, MODEL_FLAGS, SettingsValues, settings_options
from sparring.evaluate import EvaluateJob, EvaluateResult, EvaluateSettings, table_rows


class _RunOrCommand(TyperGroup):
    """``evaluate RUN …`` without a sub-command runs everything (the hidden ``all``)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if args and args != ["--help"] and not any(a in self.commands for a in args):
            args = ["all", *args]
        return super().parse_args(ctx, args)


evaluate_app = typer.Typer(
    name="evaluate",
    cls=_RunOrCommand,
    no_args_is_help=True,
    help="Evaluate a run: breakdowns (per chatbot turn), ratings (per conversation), "
    "statistics. `sparring evaluate RUN [--model M]` runs all that the settings allow.",
)
app.add_typer(evaluate_app)

F = TypeVar("F", bound=Callable[..., Any])


def _options(*fields: str) -> Callable[[F], F]:
    """The options of ``EvaluateSettings`` named (model ones included), declared there."""
    return settings_options(
        EvaluateSettings,
        fields=("model", "model_base_url", "cache", *fields),
        flags={**MODEL_FLAGS, "detectors": ("--detector",)},
        envvars=MODEL_ENVVARS,
        arguments=("run",),
    )


def quality_lines(result: EvaluateResult) -> list[str]:
    """One line per detector: its strategy, what it labelled and ranked, and its measured
    quality (or that it was not measured)."""
    lines = []
    for name, evaluation in result.breakdowns.items():
        turns = [t for c in evaluation.conversations for t in c.turns]
        labelled = sum(t.breakdown is not None for t in turns)
        ranked = sum(t.breakdown is None and t.score is not None for t in turns)
        strategy = evaluation.quality.strategy if evaluation.quality else None
        head = f"breakdowns by {name}" + (f" ({strategy} strategy)" if strategy else "")
        counts = f"{labelled} turns labelled" + (f", {ranked} ranked, unscored" if ranked else "")
        claim = evaluation.quality.summary if evaluation.quality else "quality not measured"
        lines.append(f"{head}: {counts}. {claim}")
    return lines


def _run(values: SettingsValues, **fixed: Any) -> None:
    settings = {**values, **fixed}
    run = run_job(EvaluateJob(), settings, None, items="conversations")
    result = run.result
    table = Table("statistic", "value", title=f"Evaluation of {result.run}")
    for label, value in table_rows(result.statistics.run):
        table.add_row(escape(label), escape(value))
    console.print(table)
    for line in quality_lines(result):
        console.print(line, highlight=False)
    console.print(f"{result.judged} conversations judged now", highlight=False)
    for path in result.stored:
        console.print(f"stored: {path}", highlight=False)
    print_written_report(run)
    print_outcome(run.outcome)
    exit_with(run)


@evaluate_app.command("all", hidden=True)
@_options("detectors", "ratings", "taxonomy", "dimensions", "concurrency")
def evaluate_all(values: SettingsValues) -> None:
    """Run everything the settings allow: breakdowns (offline without a model), ratings
    (with a model), statistics."""
    _run(values)


@evaluate_app.command("breakdowns")
@_options("detectors", "taxonomy", "concurrency")
def evaluate_breakdowns(values: SettingsValues) -> None:
    """Judge every chatbot turn: breakdown or not, score, error types, reasoning."""
    _run(values, ratings=False)


@evaluate_app.command("ratings")
@_options("dimensions", "concurrency")
def evaluate_ratings(values: SettingsValues) -> None:
    """Rate every conversation 1–5 on ChatChecker's dimensions (needs --model)."""
    _run(values, detectors=[], ratings=True)
