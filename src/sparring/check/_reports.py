"""Writing a ``CheckReport``: SENSEI-check's CSV, JUnit XML and JSON for CI, and the copy
stored in a run directory (``RUN_DIR/verdicts/<name>.json``) for reports and the dashboard."""

from __future__ import annotations

import csv
import io
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

from sparring.check._verdicts import SENSEI_COLUMNS, CheckReport, RuleResult
from sparring.conversations import RunStore, Slot, atomic_write
from sparring.results import Verdict


def csv_text(report: CheckReport) -> str:
    """SENSEI-check's results table (``rule,checks,pass,fail,not_applicable,fail_rate``)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(SENSEI_COLUMNS), lineterminator="\n")
    writer.writeheader()
    writer.writerows(report.sensei_rows())
    return buffer.getvalue()


def write_csv(report: CheckReport, path: str | Path) -> None:
    """Write the results table to ``path``."""
    atomic_write(Path(path), csv_text(report))


def write_json(report: CheckReport, path: str | Path) -> None:
    """Write the whole report (every verdict, with evidence) as JSON."""
    atomic_write(Path(path), report.model_dump_json(indent=2, by_alias=True))


def _details(verdict: Verdict) -> str:
    lines = [f"conversations: {', '.join(verdict.conversations)}"]
    if verdict.message:
        lines.append(f"message: {verdict.message}")
    if verdict.reason:
        lines.append(f"reason: {verdict.reason}")
    lines.extend(f"{e.function} ({e.strategy}): {e.reason}" for e in verdict.evidence if e.reason)
    if verdict.turns:
        lines.append(f"turns: {', '.join(map(str, verdict.turns))}")
    return "\n".join(lines)


def _case(
    suite: ET.Element, result: RuleResult, name: str, verdicts: list[Verdict], passes: int = 0
) -> str:
    """Add one test case; return its status (``pass``, ``fail``, ``error``, ``skipped``).
    ``passes`` counts passing tuples not given as verdicts."""
    case = ET.SubElement(suite, "testcase", classname=result.rule, name=name, time="0")
    failing = [v for v in verdicts if v.status == "fail"]
    errors = [v for v in verdicts if v.status == "error"]
    if failing:
        text = "\n\n".join(_details(v) for v in failing)
        first = failing[0]
        element = ET.SubElement(
            case, "failure", message=first.message or first.reason or "fail", type="fail"
        )
        element.text = text
        return "fail"
    if errors:
        element = ET.SubElement(case, "error", message=errors[0].reason or "error", type="error")
        element.text = "\n\n".join(_details(v) for v in errors)
        return "error"
    if not passes and not any(v.status == "pass" for v in verdicts):
        reasons = {v.reason for v in verdicts if v.reason} or {"not applicable"}
        ET.SubElement(case, "skipped", message="; ".join(sorted(reasons))[:500])
        return "skipped"
    return "pass"


def _rule_case(suite: ET.Element, result: RuleResult) -> str:
    """One test case for the whole rule: failing (or in error) with every failing
    conversation listed, skipped when no check applied, else passing."""
    case = ET.SubElement(suite, "testcase", classname="sparring.check", name=result.rule,
                         time=f"{result.duration:.3f}")  # fmt: skip
    failing = [v for v in result.verdicts if v.status == "fail"]
    errors = [v for v in result.verdicts if v.status == "error"]
    counts = result.counts
    summary = (
        f"{counts.fail} failed, {counts.error} errors, {counts.passed} passed of {counts.total}"
    )
    if failing or errors:
        kind = "failure" if failing else "error"
        element = ET.SubElement(case, kind, message=summary, type="fail" if failing else "error")
        element.text = "\n\n".join(_details(v) for v in [*failing, *errors])
        return "fail" if failing else "error"
    if not counts.passed:
        ET.SubElement(case, "skipped", message=f"no check applied ({counts.not_applicable} n/a, "
                                              f"{counts.unscored} unscored)")  # fmt: skip
        return "skipped"
    return "pass"


def _suite(root: ET.Element, result: RuleResult, conversations: list[str]) -> None:
    suite = ET.SubElement(root, "testsuite", name=result.rule, time=f"{result.duration:.3f}")
    if result.file:
        suite.set("file", result.file)
    tally: dict[str, int] = defaultdict(int)
    if result.kind == "global":
        tally[_case(suite, result, "all conversations", result.verdicts)] += 1
    else:
        by_first: dict[str, list[Verdict]] = defaultdict(list)
        for verdict in result.verdicts:
            by_first[verdict.conversations[0]].append(verdict)
        passes: dict[str, int] = defaultdict(int)
        for ids in result.passed:
            passes[ids[0]] += 1
        for conversation in conversations:
            found = by_first.get(conversation, [])
            tally[_case(suite, result, conversation, found, passes[conversation])] += 1
    suite.set("tests", str(sum(tally.values())))
    suite.set("failures", str(tally["fail"]))
    suite.set("errors", str(tally["error"]))
    suite.set("skipped", str(tally["skipped"]))


def junit_xml(report: CheckReport, per_conversation: bool = False) -> str:
    """JUnit XML. By default one suite ``rules`` with a test case per rule (and per
    generic failure code) whose failure message lists the failing conversations. With
    ``per_conversation``, a suite per rule and a test case per rule × conversation (for a
    metamorphic rule, the tuples starting with that conversation; for a global rule, one
    case)."""
    root = ET.Element("testsuites", name="sparring check")
    if per_conversation:
        for result in [*report.results, *report.generic]:
            _suite(root, result, report.conversations)
    else:
        suite = ET.SubElement(root, "testsuite", name="rules", time=f"{report.duration:.3f}")
        tally: dict[str, int] = defaultdict(int)
        for result in [*report.results, *report.generic]:
            tally[_rule_case(suite, result)] += 1
        suite.set("tests", str(sum(tally.values())))
        for key, name in (("failures", "fail"), ("errors", "error"), ("skipped", "skipped")):
            suite.set(key, str(tally[name]))
    for key in ("tests", "failures", "errors", "skipped"):
        root.set(key, str(sum(int(s.get(key, "0")) for s in root)))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def write_junit(report: CheckReport, path: str | Path, per_conversation: bool = False) -> None:
    """Write the JUnit XML report to ``path`` (see ``junit_xml``)."""
    atomic_write(Path(path), junit_xml(report, per_conversation))


def store_verdicts(report: CheckReport, run_dir: str | Path, name: str | None = None) -> Path:
    """Store the report in a run directory's ``verdicts`` slot as ``<name>.json`` and return
    the path. ``name`` defaults to ``rules-<rule-set digest>``. Raises ``UserInputError``
    when ``run_dir`` is not a run, ``OSError`` when the folder cannot be written."""
    store = RunStore.open(run_dir, clean=False)
    return store.write_result(Slot.VERDICTS, name or f"rules-{report.ruleset}", report)
