"""The failures section: every failing (or raising) rule verdict and every generic
failure on a conversation, each with an excerpt of the turns that show it and a link to
the conversation's page. Bounded for big runs: ``MAX_EXCERPTS`` excerpts per rule or
code, then up to ``MAX_LISTED`` links."""

from __future__ import annotations

from dataclasses import dataclass, field

from markupsafe import Markup

from sparring.check import RuleResult, Verdict
from sparring.conversations import ConversationRecord, ErrorCode, Slot
from sparring.report._excerpt import anchor, conversation_href, excerpt_html
from sparring.report._section import ReportSection, SectionHtml, render_template, report_section
from sparring.report._view import GenericFailure, RunView, involved_turns

MAX_EXCERPTS = 5
"""Failures shown with an excerpt per rule or failure code."""
MAX_LISTED = 200
"""Further failures listed as links per rule or failure code."""
MAX_LINKS = 5
"""Conversations linked from one verdict (a global rule's population is counted)."""


@dataclass
class Item:
    """One failure: links to its conversations, status, what went wrong, an excerpt."""

    links: list[tuple[str, str]]
    status: str
    lines: list[str]
    excerpts: list[tuple[str, Markup]] = field(default_factory=list)
    """An excerpt per conversation the failure involves, with the conversation's id."""
    more: int = 0


@dataclass
class Group:
    """The failures of one rule (or generic failure code)."""

    anchor: str
    title: str
    detail: str
    items: list[Item] = field(default_factory=list)
    rest: list[Item] = field(default_factory=list)
    omitted: int = 0


def _verdict_item(run: RunView, verdict: Verdict, kind: str, with_excerpt: bool) -> Item:
    involved = involved_turns(verdict, kind)
    ids = list(involved) or verdict.conversations
    lines = [text for text in (verdict.message, verdict.reason) if text]
    lines += [f"{e.function} ({e.strategy}): {e.reason}" for e in verdict.evidence if e.reason]
    excerpts = []
    for record_id in list(involved)[:MAX_LINKS] if with_excerpt else []:
        record = run.records_by_id.get(record_id)
        if record is not None:
            excerpts.append((record_id, excerpt_html(record, involved[record_id])))
    return Item(
        links=[(i, conversation_href(i)) for i in ids[:MAX_LINKS]],
        status=verdict.status,
        lines=lines or ["(no reason given)"],
        excerpts=excerpts,
        more=max(0, len(ids) - MAX_LINKS),
    )


def _rule_group(run: RunView, report: str, result: RuleResult) -> Group:
    bad = [v for v in result.verdicts if v.status in ("fail", "error")]
    strategies = sorted({str(v.strategy) for v in result.verdicts}) or ["offline"]
    counts = result.counts
    detail = (
        f"{counts.fail} failed, {counts.error} errors of {counts.total} checks · {result.kind} "
        f"rule · strategy {', '.join(strategies)} · rule set {report}"
    )
    group = Group(anchor("rule", report, result.rule), result.rule, detail)
    for n, verdict in enumerate(bad[: MAX_EXCERPTS + MAX_LISTED]):
        target = group.items if n < MAX_EXCERPTS else group.rest
        target.append(_verdict_item(run, verdict, result.kind, n < MAX_EXCERPTS))
    group.omitted = max(0, len(bad) - MAX_EXCERPTS - MAX_LISTED)
    return group


def _generic_group(name: str, failures: list[GenericFailure]) -> Group:
    code = failures[0].error.code
    group = Group(anchor("failure", name), f"{int(code)} {name}", f"{len(failures)} conversations")
    for n, failure in enumerate(failures[: MAX_EXCERPTS + MAX_LISTED]):
        record, error = failure.record, failure.error
        cause = f" ({error.cause})" if error.cause else ""
        turn = f" at turn {error.turn}" if error.turn is not None else ""
        lines = [f"{error.message}{cause}{turn} · user simulator {record.simulator}"]
        if code == ErrorCode.GOAL_NOT_COMPLETED:
            lines.append(_goals_left(record))
        excerpt = excerpt_html(record, [error.turn] if error.turn is not None else [])
        item = Item(
            links=[(record.id, conversation_href(record.id))],
            status="fail",
            lines=lines,
            excerpts=[(record.id, excerpt)] if n < MAX_EXCERPTS else [],
        )
        (group.items if n < MAX_EXCERPTS else group.rest).append(item)
    group.omitted = max(0, len(failures) - MAX_EXCERPTS - MAX_LISTED)
    return group


def _goals_left(record: ConversationRecord) -> str:
    """What a 1001 failure left undone, as the record says: the outputs with no value and
    the goals the user simulator was given."""
    missing = [name for name, output in record.outputs.items() if output.value is None]
    parts = [f"outputs not obtained: {', '.join(missing)}" if missing else "every output obtained"]
    if record.goals:
        parts.append(f"goals: {'; '.join(record.goals)}")
    return " · ".join(parts)


@report_section
class Failures(ReportSection):
    """Every failing rule verdict and generic failure, with excerpts."""

    name = "failures"
    title = "Failures"
    order = 20
    reads = frozenset({Slot.CONVERSATIONS, Slot.VERDICTS})

    def render(self, run: RunView) -> SectionHtml:
        groups = [
            _rule_group(run, report, result)
            for report, result in run.rule_results()
            if result.counts.fail or result.counts.error
        ]
        groups += [_generic_group(name, items) for name, items in run.generic_failures.items()]
        html = render_template("failures.html.j2", groups=groups)
        failing = len({v.conversations[0] for _, r in run.rule_results() for v in r.verdicts
                       if v.status in ("fail", "error") and v.conversations})  # fmt: skip
        summary = (f"{failing} conversations fail a rule, "
                   f"{run.summary.failures.conversations} carry a generic failure")  # fmt: skip
        return SectionHtml(html, summary=summary)
