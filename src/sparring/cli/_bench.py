"""``sparring bench dbdc PATH [--detector NAME]… [--json F]``: score breakdown detectors on
DBDC-format dialogues, or on a run's imported annotations, with DBDC's metrics (see
``sparring.evaluate.dbdc_metrics``)."""

from __future__ import annotations

import json
from collections.abc import Callable

import typer
from rich.table import Table

from sparring.cli._app import app, console
from sparring.cli._options import (
    MODEL_ENVVARS,
    MODEL_FLAGS,
    OPTIONS,
    SettingsValues,
    settings_options,
)
from sparring.conversations import atomic_write
from sparring.evaluate import BenchSettings, DbdcMetrics, bench_dbdc
from sparring.jobs import check_output_paths, run_blocking
from sparring.llm import load_model

bench_app = typer.Typer(name="bench", help="Benchmark sparring's judges on public data sets.")
app.add_typer(bench_app)

ROWS: tuple[tuple[str, Callable[[DbdcMetrics], float]], ...] = (
    ("accuracy (T+X)", lambda m: m.tx.accuracy),
    ("precision (T+X)", lambda m: m.tx.precision),
    ("recall (T+X)", lambda m: m.tx.recall),
    ("F1 (T+X)", lambda m: m.tx.f1),
    ("accuracy (X)", lambda m: m.x.accuracy),
    ("precision (X)", lambda m: m.x.precision),
    ("recall (X)", lambda m: m.x.recall),
    ("F1 (X)", lambda m: m.x.f1),
    ("JSD (O,T,X)", lambda m: m.jsd),
    ("JSD (O,T+X)", lambda m: m.jsd_o_tx),
    ("JSD (O+T,X)", lambda m: m.jsd_ot_x),
    ("MSE (O,T,X)", lambda m: m.mse),
    ("MSE (O,T+X)", lambda m: m.mse_o_tx),
    ("MSE (O+T,X)", lambda m: m.mse_ot_x),
    ("F1 per dialogue", lambda m: m.dialogue_f1),
    ("accuracy per dialogue", lambda m: m.dialogue_accuracy),
)


def metrics_table(results: list[DbdcMetrics], title: str) -> Table:
    """The figures of each detector, one column each ("-" for a detector that labelled no
    turn: a detector that only ranks has its AUC alone)."""
    table = Table("figure", *(r.detector for r in results), title=title)
    for label, value in ROWS:
        table.add_row(label, *(f"{value(r):.3f}" if r.turns else "-" for r in results))
    table.add_row(
        "AUC of the score (T+X)", *("-" if r.auc is None else f"{r.auc:.3f}" for r in results)
    )
    for label, count in (
        ("turns", "turns"),
        ("unscored turns", "unscored"),
        ("ranked turns", "ranked"),
    ):
        table.add_row(label, *(str(getattr(r, count)) for r in results))
    return table


@bench_app.command("dbdc")
@settings_options(
    BenchSettings,
    arguments=("path",),
    flags={**MODEL_FLAGS, "detectors": ("--detector", "-d"), "json_file": ("--json",)},
    envvars=MODEL_ENVVARS,
)
def dbdc_command(values: SettingsValues) -> None:
    """Score breakdown detectors on DBDC dialogues: accuracy, precision, recall and F1 of
    breakdowns (T+X and X), JS divergence and MSE of the O/T/X distributions, and the
    per-dialogue averages ChatChecker reports. `always` is the majority baseline. A run
    directory is scored against its imported annotations (ChatChecker's: a model's silver
    labels, breakdown = X, none = O), or with --labels against a team's own (the
    dashboard's annotations export: a chatbot turn marked wrong = X, correct = O)."""
    settings = BenchSettings.from_values(values, OPTIONS)
    check_output_paths(files={"--json": settings.json_file})
    text_model = load_model(settings.model, settings.model_base_url, settings.cache)
    path = settings.path
    bench = run_blocking(bench_dbdc(path, settings.detectors, text_model, labels=settings.labels))
    title = f"{bench.title}: {path} ({bench.dialogues} dialogues)"
    console.print(metrics_table(bench.results, title))
    if settings.json_file is not None:
        payload = [r.model_dump(mode="json") for r in bench.results]
        atomic_write(settings.json_file, json.dumps(payload, indent=2) + "\n", durable=False)
