"""``sparring adversarial test``: judge-steered adversarial threads against the chatbot
(one per weakness), and ``sparring adversarial ask RUN "question"``: a question answered
from a run's stored results. Thin: options → ``AdversarialTestSettings`` → the job."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from sparring._terminal import escape
from sparring.adversarial import (
    AdversarialResult,
    AdversarialTestJob,
    AdversarialTestSettings,
    ask_async,
)
from sparring.cli._adversarial import adversarial_app
from sparring.cli._app import (
    EXIT_USER_ERROR,
    CacheOption,
    ModelBaseUrlOption,
    ModelOption,
    console,
    err_console,
    exit_on_outcome,
)
from sparring.cli._jobs import exit_with, print_written_report, run_job
from sparring.cli._options import (
    MODEL_ENVVARS,
    MODEL_FLAGS,
    OPTIONS,
    SettingsValues,
    settings_options,
)
from sparring.errors import ModelError, ModelRequired
from sparring.jobs import check_output_paths, run_blocking
from sparring.jobs import outcome as outcomes
from sparring.llm import load_model

RESUME = "sparring adversarial test --resume {run}"


def _model_required(exc: ModelRequired) -> typer.Exit:
    err_console.print(f"[bold red]error[/]: {escape(str(exc))}", highlight=False)
    return typer.Exit(EXIT_USER_ERROR)


@adversarial_app.command("test")
@settings_options(AdversarialTestSettings, flags=MODEL_FLAGS, envvars=MODEL_ENVVARS)
def adversarial_test_command(
    values: SettingsValues,
    out: Annotated[Path | None, typer.Option("--out", help="Run directory (new).")] = None,
    resume: Annotated[
        Path | None, typer.Option("--resume", help="Finish an interrupted adversarial run.")
    ] = None,
) -> None:
    """Test each weakness in its own thread: an attacker model writes a persona, goal and
    criteria, a simulated user talks to the bot, a judge scores it, and the difficulty
    adapts (Agent-Testing Agent). Needs --model."""
    check_output_paths(folders={"--out": out})
    settings = AdversarialTestSettings.from_values(values, OPTIONS) if resume is None else None
    job = run_job(AdversarialTestJob(), settings, out, resume=resume, items="tests",
                  counted="chatbot failures", resume_hint=RESUME)  # fmt: skip
    run = job.result
    _print(run.result)
    console.print(f"[bold]run[/]: {run.store.path}", highlight=False)
    console.print(f"[bold]results[/]: {run.results_path}", highlight=False)
    print_written_report(job)
    exit_with(job, RESUME)


def _print(result: AdversarialResult) -> None:
    table = Table(
        "weakness", "tests", "mean score", "difficulty", "calls", "tokens", "cost (US$)",
        title="Adversarial threads",
    )  # fmt: skip
    for weakness in result.weaknesses:
        tests = result.tests_of(weakness.id)
        mean = result.mean_score(weakness.id)
        usage = result.usage_of(weakness.id)
        failures = sum(t.status == "chatbot_failure" for t in tests)
        label = f"{len(tests)}" + (f" ({failures} chatbot failure)" if failures else "")
        table.add_row(
            escape(weakness.id),
            label,
            "unscored" if mean is None else f"{mean:.2f}",
            " → ".join(f"{d:.2f}" for d in result.trajectory(weakness.id)),
            str(usage.calls),
            str(usage.prompt_tokens + usage.completion_tokens),
            f"{usage.cost:.4f}",
        )
    console.print(table)
    if result.analysis is not None:
        console.print(f"[bold]summary[/]: {escape(result.analysis.executive_summary)}")
    elif result.analysis_error:
        err_console.print(f"[yellow]warning[/]: {escape(result.analysis_error)}")


@adversarial_app.command("ask")
def adversarial_ask_command(
    run: Annotated[Path, typer.Argument(help="An adversarial test run directory.")],
    question: Annotated[str, typer.Argument(help="The question, in quotes.")],
    model: ModelOption = None,
    model_base_url: ModelBaseUrlOption = None,
    cache: CacheOption = False,
) -> None:
    """Answer a question about a run from its stored results (needs --model)."""
    try:
        loaded = load_model(model, model_base_url, cache)
        answer = run_blocking(ask_async(run, question, loaded))
    except ModelRequired as exc:
        raise _model_required(exc) from exc
    except ModelError as exc:
        exit_on_outcome(outcomes.error(f"the model failed: {exc}"))
    console.print(escape(answer), highlight=False)
