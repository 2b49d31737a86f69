"""The rule results section: one table per stored rule set (SENSEI-check's columns plus
unscored, errors and the strategies that judged), then the generic failure rows."""

from __future__ import annotations

from dataclasses import dataclass

from sparring.check import CheckReport, RuleResult
from sparring.conversations import Slot
from sparring.precision import precision_summary
from sparring.report._excerpt import anchor
from sparring.report._section import ReportSection, SectionHtml, render_template, report_section
from sparring.report._view import RunView


@dataclass(frozen=True)
class Row:
    """One rule's line: its result, status word, strategies and the failures' anchor."""

    result: RuleResult
    status: str
    strategies: str
    link: str | None


def _status(result: RuleResult) -> str:
    if result.counts.fail:
        return "fail"
    if result.counts.error:
        return "error"
    return "pass" if result.counts.passed else "not_applicable"


def _rows(name: str, results: list[RuleResult], generic: bool) -> list[Row]:
    rows = []
    for result in results:
        strategies = sorted({str(v.strategy) for v in result.verdicts})
        failed = result.counts.fail or result.counts.error
        link = anchor("failure", result.rule) if generic else anchor("rule", name, result.rule)
        rows.append(Row(result, _status(result), ", ".join(strategies) or "offline",
                        link if failed else None))  # fmt: skip
    return rows


@report_section
class Rules(ReportSection):
    """Each stored rule set's results table (shown once the run has been checked)."""

    name = "rules"
    title = "Rule results"
    order = 30
    reads = frozenset({Slot.VERDICTS})

    def applies(self, run: RunView) -> bool:
        return bool(run.check_reports)

    def render(self, run: RunView) -> SectionHtml:
        reports: dict[str, CheckReport] = run.check_reports
        tables = [
            (name, report, _rows(name, report.results, False), _rows(name, report.generic, True))
            for name, report in reports.items()
        ]
        results = [r for report in reports.values() for r in report.results]
        failing = sum(1 for r in results if r.failed)
        summary = (
            f"{len(results)} rules: {len(results) - failing} without failures, {failing} failing"
        )
        judges = {
            name: precision_summary(v for r in report.results for v in r.verdicts)
            for name, report in reports.items()
        }
        html = render_template("rules.html.j2", tables=tables, judges=judges)
        return SectionHtml(html, summary=summary)
