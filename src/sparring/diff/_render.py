"""A ``RunDiff`` on the terminal and as JUnit XML (one test case per rule)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from sparring._terminal import strip_control
from sparring.conversations import atomic_write
from sparring.diff._compare import RunDiff, Timing

_SHOWN = 10
_TEXT = 120


def _short(text: str | None) -> str:
    if text is None:
        return "(no turn)"
    flat = " ".join(strip_control(text).split())
    return flat if len(flat) <= _TEXT else flat[: _TEXT - 1] + "…"


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f} s"


def _change(before: float | None, after: float | None) -> str:
    if before is None or after is None or before == 0:
        return ""
    return f"{100 * (after - before) / before:+.0f}%"


def timing_table(baseline: Timing, new: Timing) -> Table:
    """p50/p95 response time and cost in both runs, with the relative change."""
    table = Table(title="Response time and cost", title_justify="left")
    for column in ("", "baseline", "new", "change"):
        table.add_column(column, justify="left" if not column else "right")
    for name in ("p50", "p95"):
        old, now = getattr(baseline, name), getattr(new, name)
        table.add_row(f"response time {name}", _seconds(old), _seconds(now), _change(old, now))
    table.add_row("model cost", f"${baseline.cost:.4f}", f"${new.cost:.4f}",
                  _change(baseline.cost, new.cost))  # fmt: skip
    return table


def render_diff(diff: RunDiff, show_all: bool = False) -> Group:
    """The diff as a Rich renderable; ``show_all`` lists every changed conversation."""
    blocks: list[RenderableType] = []
    for title, rules, style in (
        ("Newly failing rules", diff.newly_failing, "bold red"),
        ("Newly flaky rules", diff.newly_flaky, "yellow"),
        ("Fixed rules", diff.fixed, "green"),
    ):
        if rules:
            blocks.append(Text(f"{title}: ", style=style).append(", ".join(rules), style="bold"))
    limit = len(diff.changed) if show_all else _SHOWN
    if diff.changed:
        blocks.append(Text(f"Conversations whose verdict changed ({len(diff.changed)}):"))
    for change in diff.changed[:limit]:
        style = "red" if change.regression else "green" if change.new == "pass" else "dim"
        blocks.append(Text.assemble(
            ("  ", ""), (change.rule, "bold"), " on ", (change.conversation, "cyan"),
            (f": {change.baseline} → {change.new}", style),
        ))  # fmt: skip
        for turn in change.turns:
            blocks.append(Text(f"      turn {turn.index} {turn.role}: ", style="dim"))
            blocks.append(Text(f"        - {_short(turn.baseline)}", style="red"))
            blocks.append(Text(f"        + {_short(turn.new)}", style="green"))
    if len(diff.changed) > limit:
        blocks.append(Text(f"  … and {len(diff.changed) - limit} more (--all)", style="dim"))
    for label, ids in (("only in the baseline", diff.only_baseline), ("only new", diff.only_new)):
        if ids:
            blocks.append(Text(f"{len(ids)} conversations {label}: {', '.join(ids[:5])}",
                               style="dim"))  # fmt: skip
    blocks += [timing_table(diff.baseline_timing, diff.new_timing)]
    blocks += [Text(reason, style="yellow") for reason in diff.incomplete]
    verdict = (
        Text("REGRESSION", style="bold red")
        if diff.regression
        else Text("NO VERDICT", style="bold yellow")
        if diff.no_verdict
        else Text("NO REGRESSION", style="bold green")
    )
    blocks.append(verdict.append(f" ({len(diff.rules)} rules compared)", style="dim"))
    return Group(*blocks)


def diff_junit(diff: RunDiff) -> str:
    """JUnit XML: one test case per compared rule, failing when it regressed (newly
    failing, newly flaky, or a conversation went from pass to fail), listing why."""
    root = ET.Element("testsuites", name="sparring diff")
    suite = ET.SubElement(root, "testsuite", name="regressions")
    failures = 0
    for rule in diff.rules:
        case = ET.SubElement(suite, "testcase", classname="sparring.diff", name=rule, time="0")
        reasons = []
        if rule in diff.newly_failing:
            reasons.append("newly failing")
        if rule in diff.newly_flaky:
            reasons.append("newly flaky")
        worse = [c for c in diff.changed if c.rule == rule and c.regression]
        if worse:
            reasons.append(f"{len(worse)} conversations went from pass to fail")
        if reasons:
            failures += 1
            element = ET.SubElement(case, "failure", message="; ".join(reasons), type="regression")
            element.text = "\n".join(f"{c.conversation}: {c.baseline} -> {c.new}" for c in worse)
    for element in (root, suite):
        element.set("tests", str(len(diff.rules)))
        element.set("failures", str(failures))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def write_diff_junit(diff: RunDiff, path: Path) -> None:
    """Write ``diff_junit`` to ``path`` atomically."""
    atomic_write(path, diff_junit(diff))
