"""``sparring adversarial plan``: weakness planning — the static scan, the developer
interview, documents, and the weaknesses file (docs/adversarial-plan.md)."""

from __future__ import annotations

import sys

from rich.table import Table

from sparring._terminal import escape
from sparring.adversarial import PlanJob, PlanResult, PlanSettings, TerminalInterviewer
from sparring.cli._adversarial import adversarial_app
from sparring.cli._app import console, exit_on_outcome
from sparring.cli._options import (
    MODEL_ENVVARS,
    MODEL_FLAGS,
    OPTIONS,
    SettingsValues,
    settings_options,
)
from sparring.errors import ModelError
from sparring.jobs import check_output_paths
from sparring.jobs import outcome as outcomes
from sparring.runner import start

_STYLE = {"high": "bold red", "medium": "yellow", "low": "dim"}


@adversarial_app.command("plan")
@settings_options(
    PlanSettings,
    flags={
        **MODEL_FLAGS,
        "chatbot": ("--chatbot", "-c"),
        "out": ("--out", "-o"),
        "max_questions": ("--questions",),
    },
    envvars=MODEL_ENVVARS,
    required=("chatbot",),
)
def plan(values: SettingsValues) -> None:
    """Plan where the chatbot is likely to fail and write the weaknesses to --out.

    Offline (no --model) the static scan of --source runs and each finding becomes a
    weakness whose source is the static scan. With --model, the model also interviews the
    developer (from --answers, else in the terminal), reads --docs, and proposes
    weaknesses with easy/medium/hard example tests. Check and edit the file before
    `sparring adversarial test`.
    """
    settings = PlanSettings.from_values(values, OPTIONS)
    out = settings.out
    check_output_paths(files={"--out": out})
    interactive = settings.answers is None and settings.model is not None and sys.stdin.isatty()
    try:
        result = start(
            PlanJob(interviewer=TerminalInterviewer() if interactive else None), settings
        ).result
    except ModelError as exc:
        record = out.with_name(f"{out.stem}.plan.json")
        exit_on_outcome(
            outcomes.error(f"the model failed: {exc}", f"what was done so far is kept in {record}")
        )
    _print(result)


def _print(result: PlanResult) -> None:
    record = result.record
    if result.scan is not None:
        scan = result.scan
        console.print(
            f"static scan ({scan.scanner}) of {escape(scan.source)}: {scan.files} files, "
            f"{scan.graph.number_of_nodes()} states, {scan.graph.number_of_edges()} "
            f"transitions, {len(scan.findings)} findings",
            highlight=False,
        )
        if scan.findings:
            table = Table("severity", "kind", "where", "subject")
            for f in scan.findings:
                style = _STYLE[f.severity]
                table.add_row(f"[{style}]{f.severity}[/]", f.kind.value, f.located(), f.subject)
            console.print(table)
    if record.interview.turns or record.interview.stopped != "skipped":
        console.print(
            f"interview: {len(record.interview.turns)} questions ({record.interview.stopped})"
        )
    if record.lessons:
        console.print(f"lessons: {len(record.lessons)}")
    usage = record.usage
    if usage.calls:
        console.print(
            f"model {escape(record.model or '')}: {usage.calls} calls, "
            f"{usage.prompt_tokens + usage.completion_tokens} tokens, ${usage.cost:.4f}",
            highlight=False,
        )
    if result.path is None or result.weaknesses is None:
        console.print("[yellow]no weakness found[/]: nothing written; pass --model for more")
        return
    console.print(
        f"wrote {len(result.weaknesses.weaknesses)} weaknesses ({record.strategy.value}) to "
        f"{escape(str(result.path))} (check and edit it before `sparring adversarial test`); "
        f"record: {escape(str(result.record_path))}",
        highlight=False,
    )
