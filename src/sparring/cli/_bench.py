"""``sparring bench dbdc PATH [--detector NAME]… [--json F]``: score breakdown detectors on
DBDC-format dialogues, or on a run's imported annotations, with DBDC's metrics (see
``sparring.evaluate._dbdc_metrics``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from sparring.cli._app import CacheOption, ModelBaseUrlOption, ModelOption, app, console
from sparring.conversations import atomic_write
from sparring.evaluate import DEFAULT_BENCH_DETECTORS, DbdcMetrics, bench_dbdc
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
def dbdc_command(
    path: Annotated[
        Path,
        typer.Argument(
            help="A DBDC folder (searched for *.log.json), one file, or a run directory "
            "whose imported breakdown annotations (import-chatchecker) are the labels."
        ),
    ],
    detectors: Annotated[
        list[str] | None,
        typer.Option(
            "--detector", "-d", help="Detector name (repeatable; default: offline and always)."
        ),
    ] = None,
    json_path: Annotated[
        Path | None, typer.Option("--json", help="Write every figure as JSON.")
    ] = None,
    labels: Annotated[
        Path | None,
        typer.Option(
            "--labels",
            help="With a run directory: a team's own labels, the dashboard's annotations "
            "export (.json or .csv; a chatbot turn marked wrong = breakdown).",
        ),
    ] = None,
    model: ModelOption = None,
    model_base_url: ModelBaseUrlOption = None,
    cache: CacheOption = False,
) -> None:
    """Score breakdown detectors on DBDC dialogues: accuracy, precision, recall and F1 of
    breakdowns (T+X and X), JS divergence and MSE of the O/T/X distributions, and the
    per-dialogue averages ChatChecker reports. `always` is the majority baseline. A run
    directory is scored against its imported annotations (ChatChecker's: a model's silver
    labels, breakdown = X, none = O), or with --labels against a team's own (the
    dashboard's annotations export: a chatbot turn marked wrong = X, correct = O)."""
    check_output_paths(files={"--json": json_path})
    text_model = load_model(model, model_base_url, cache)
    bench = run_blocking(
        bench_dbdc(path, detectors or DEFAULT_BENCH_DETECTORS, text_model, labels=labels)
    )
    title = f"{bench.title}: {path} ({bench.dialogues} dialogues)"
    console.print(metrics_table(bench.results, title))
    if json_path is not None:
        payload = [r.model_dump(mode="json") for r in bench.results]
        atomic_write(json_path, json.dumps(payload, indent=2) + "\n", durable=False)
