"""A ``CheckReport`` on the terminal (Rich): per rule its counts, for each failure the
conversation, the ``yields`` message, the reasons and the turns involved; then SENSEI's
results table."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from sparring._terminal import escape, strip_control
from sparring.check._verdicts import SENSEI_COLUMNS, CheckReport, RuleResult
from sparring.conversations import ConversationRecord
from sparring.precision import precision_summary
from sparring.results import Verdict

_STYLES = {
    "pass": "green",
    "fail": "bold red",
    "error": "magenta",
    "unscored": "yellow",
    "not_applicable": "dim",
}
_SHOWN_FAILURES = 5
_TEXT_WIDTH = 160


def _headline(result: RuleResult) -> Text:
    counts = result.counts
    status = (
        "FAIL" if counts.fail else "ERROR" if counts.error else "PASS" if counts.passed else "N/A"
    )
    style = {"FAIL": "bold red", "ERROR": "magenta", "PASS": "green", "N/A": "dim"}[status]
    line = Text.assemble((f"{status:<5} ", style), (result.rule, "bold"))
    parts = [f"{counts.passed} passed", f"{counts.fail} failed", f"{counts.not_applicable} n/a"]
    parts += [f"{counts.error} errors"] if counts.error else []
    parts += [f"{counts.unscored} unscored"] if counts.unscored else []
    kind = {"tuple": f" [{result.arity} conversations]", "global": " [all conversations]"}
    line.append(f"{kind.get(result.kind, '')}  {', '.join(parts)}", style="dim")
    return line


def _shorten(text: str) -> str:
    flat = " ".join(strip_control(text).split())
    return flat if len(flat) <= _TEXT_WIDTH else flat[: _TEXT_WIDTH - 1] + "…"


def _verdict_lines(verdict: Verdict, records: Mapping[str, ConversationRecord]) -> list[Text]:
    style = _STYLES[verdict.status]
    lines = [
        Text.assemble(
            ("  ✗ " if verdict.status == "fail" else "  ! ", style),
            (strip_control(" × ".join(verdict.conversations))[:_TEXT_WIDTH], "cyan"),
        )
    ]
    if verdict.message:
        lines.append(Text(f"      message: {_shorten(verdict.message)}"))
    if verdict.reason:
        lines.append(Text(f"      reason:  {_shorten(verdict.reason)}", style="dim"))
    for evidence in verdict.evidence:
        if evidence.reason:
            strategy = f" [{evidence.strategy}]" if evidence.strategy != "offline" else ""
            text = f"      {evidence.function}{strategy}: {_shorten(evidence.reason)}"
            lines.append(Text(text, style="dim"))
    record = records.get(verdict.conversations[0]) if len(verdict.conversations) == 1 else None
    for index in verdict.turns[:6] if record is not None else []:
        if 0 <= index < len(record.turns):  # type: ignore[union-attr]
            turn = record.turns[index]  # type: ignore[union-attr]
            lines.append(Text(f"      turn {index} {turn.role}: {_shorten(turn.sensei_text)}"))
    return lines


def _rule_block(
    result: RuleResult, records: Mapping[str, ConversationRecord], show_all: bool = False
) -> list[RenderableType]:
    rows: list[RenderableType] = [_headline(result)]
    shown = [v for v in result.verdicts if v.status in ("fail", "error")]
    limit = len(shown) if show_all else _SHOWN_FAILURES
    for verdict in shown[:limit]:
        rows.extend(_verdict_lines(verdict, records))
    if len(shown) > limit:
        more = f"  … and {len(shown) - limit} more (--all shows them; --json keeps every one)"
        rows.append(Text(more, style="dim"))
    rows.extend(_error_lines(result))
    rows.extend(_unscored_lines(result))
    return rows


def _error_lines(result: RuleResult) -> list[RenderableType]:
    """One line for a rule's errors: how many checks raised and the most common reason."""
    errors = Counter(v.reason or "" for v in result.verdicts if v.status == "error")
    if not errors:
        return []
    reason, _ = errors.most_common(1)[0]
    style = _STYLES["error"]
    total = result.counts.total
    return [
        Text.assemble(
            ("  ! ", style),
            (f"{result.counts.error} of {total} checks raised an error: ", style),
            (_shorten(reason), "dim"),
        )
    ]


def _unscored_lines(result: RuleResult) -> list[RenderableType]:
    """Unscored verdicts grouped by reason: usually one cause (e.g. no model) for all."""
    reasons = Counter(v.reason or "" for v in result.verdicts if v.status == "unscored")
    style = _STYLES["unscored"]
    return [
        Text.assemble(("  ! ", style), (f"{n} unscored: ", style), (_shorten(reason), "dim"))
        for reason, n in reasons.most_common()
    ]


def results_table(report: CheckReport) -> Table:
    """SENSEI-check's results table."""
    table = Table(title="Results (SENSEI-check columns)", title_justify="left")
    for column in SENSEI_COLUMNS:
        table.add_column(column, justify="left" if column == "rule" else "right")
    for row in report.sensei_rows():
        style = "red" if int(row["fail"]) or int(row["errors"]) else None
        table.add_row(*(escape(str(row[c])) for c in row), style=style)
    return table


def render_report(
    report: CheckReport,
    records: Mapping[str, ConversationRecord] | None = None,
    *,
    show_all: bool = False,
) -> Group:
    """The report as a Rich renderable; ``records`` (by id) lets failures show their turns;
    ``show_all`` lists every failure instead of the first few per rule."""
    found = records or {}
    blocks: list[RenderableType] = [
        Text.assemble(("warning", "yellow"), f": {warning}") for warning in report.warnings
    ]
    for result in report.results:
        blocks.extend(_rule_block(result, found, show_all))
    generic = [r for r in report.generic if r.counts.fail]
    if generic:
        blocks.append(Text("Generic failures:", style="bold"))
        blocks.extend(_headline(r) for r in generic)
    blocks += [Text(""), results_table(report)]
    blocks += repeats_blocks(report, show_all)
    verdicts = [verdict for result in report.results for verdict in result.verdicts]
    blocks += [Text(f"offline judge: {line}", style="dim") for line in precision_summary(verdicts)]
    return Group(*blocks)


def repeats_blocks(report: CheckReport, show_all: bool = False) -> list[RenderableType]:
    """pass^k per rule and the flaky conversations, when the run has repeats."""
    shown = [r for r in report.repeats if r.plans or r.flaky]
    if not shown:
        return []
    k = max(r.k for r in shown)
    table = Table(title=f"Repeats: pass^k over up to {k} repeats per plan", title_justify="left")
    for column in ("rule", "plans", "pass^1", "pass^k", "flaky plans"):
        table.add_column(column, justify="left" if column == "rule" else "right")
    for r in shown:
        cells = [f"{v:.2f}" if v is not None else "-" for v in (r.pass_1, r.pass_k)]
        style = "yellow" if r.flaky else None
        table.add_row(escape(r.rule), str(r.plans), *cells, str(len(r.flaky)), style=style)
    lines: list[RenderableType] = [Text(""), table]
    flaky = [(r.rule, plan, statuses) for r in shown for plan, statuses in r.flaky.items()]
    limit = len(flaky) if show_all else _SHOWN_FAILURES
    for rule, plan, statuses in flaky[:limit]:
        line = Text.assemble(("  ~ flaky ", "yellow"), (rule, "bold"), " on ", (plan, "cyan"))
        lines.append(line.append(f": {' '.join(statuses)}", style="dim"))
    if len(flaky) > limit:
        lines.append(Text(f"  … and {len(flaky) - limit} more (--all shows them)", style="dim"))
    return lines


def print_report(
    console: Console,
    report: CheckReport,
    records: Mapping[str, ConversationRecord] | None = None,
    *,
    show_all: bool = False,
) -> None:
    """Print ``render_report`` on ``console``."""
    console.print(render_report(report, records, show_all=show_all))
