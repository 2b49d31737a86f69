"""The conversations section: an index (paginated, filterable) and a page per
conversation (turns with role, text, buttons and latency; failure codes and messages; rule
verdicts; outputs; variables), rendered on demand in the browser.

Every conversation goes into the page once, as JSON in a ``<script
type="application/json">`` block (``<``, ``>`` and ``&`` written as ``\\u003c``… so no
text can close the block); a small inline script (``templates/conversations.js``) shows
the index 50 rows at a time and a conversation's page at ``#conv=<id>``. It builds every
element with ``textContent``, never ``innerHTML``, so chatbot text is never markup. A
2,000-conversation run opens in well under a second.
"""

from __future__ import annotations

import json
from typing import Any

from markupsafe import Markup

from sparring.conversations import ConversationRecord, Slot
from sparring.evaluate import ConversationBreakdowns
from sparring.report._breakdowns import stored_breakdowns
from sparring.report._section import (
    ReportSection,
    SectionHtml,
    asset,
    render_template,
    report_section,
)
from sparring.report._view import RunView
from sparring.results import Verdict

PAGE_SIZE = 50
"""Rows of the conversation index per page."""


def _value(value: Any) -> Any:
    """A JSON-ready value (dates and other objects as their text)."""
    return json.loads(json.dumps(value, default=str))


def _verdict(verdict: Verdict) -> list[Any]:
    text = verdict.message or verdict.reason or ""
    return [verdict.rule, verdict.status, text, str(verdict.strategy), verdict.turns]


def conversation_data(
    record: ConversationRecord,
    verdicts: list[Verdict],
    breakdowns: ConversationBreakdowns | None = None,
) -> dict[str, Any]:
    """What the browser needs to show ``record`` (its index row and its page); the
    verdicts that judged it (not applicable ones left out) and the turns a breakdown
    detector judged a breakdown. Times are seconds, cost US$."""
    shown = [v for v in verdicts if v.status != "not_applicable"]
    broken = breakdowns.breakdowns if breakdowns is not None else []
    return {
        "id": record.id,
        "profile": record.profile,
        "simulator": record.simulator,
        "language": record.language,
        "duration": record.duration,
        "cost": record.cost,
        "plan": record.plan,
        "repeat": record.repeat,
        "source": record.source,
        "goals": record.goals,
        "styles": _value(record.interaction_styles),
        "notes": record.notes,
        "errors": [
            [int(e.code), e.name, e.message, e.cause and str(e.cause), e.turn]
            for e in record.errors
        ],
        "failed": sorted({v.rule for v in shown if v.status in ("fail", "error")}),
        "verdicts": [_verdict(v) for v in shown],
        "turns": [
            [
                t.role,
                t.text_without_buttons if t.buttons else t.text,
                t.latency,
                [[b.text, b.link] for b in t.buttons],
            ]
            for t in record.turns
        ],
        "outputs": [
            [name, _value(o.value), o.type, str(o.strategy), o.evidence, o.confidence]
            for name, o in record.outputs.items()
        ],
        "variables": _value(record.variables),
        "breakdowns": [[b.turn, b.score, b.error_types, b.reasoning, b.detector] for b in broken],
    }


def script_json(data: Any) -> Markup:
    """``data`` as JSON safe inside a ``<script>`` element: ``<``, ``>`` and ``&`` are
    escaped as ``\\u003c``, ``\\u003e``, ``\\u0026`` (``JSON.parse`` reads them back)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text)


@report_section
class Conversations(ReportSection):
    """The index of conversations and a page for each one."""

    name = "conversations"
    title = "Conversations"
    order = 90
    reads = frozenset({Slot.CONVERSATIONS, Slot.VERDICTS, Slot.EVALUATIONS})

    def render(self, run: RunView) -> SectionHtml:
        verdicts = run.verdicts_by_conversation
        stored = stored_breakdowns(run.path)
        judged = {c.conversation: c for c in stored[0].conversations} if stored else {}
        data = [conversation_data(r, verdicts.get(r.id, []), judged.get(r.id)) for r in run.records]
        failing = sum(1 for item in data if item["errors"] or item["failed"])
        html = render_template(
            "conversations.html.j2",
            data=script_json(data),
            script=asset("conversations.js"),
            page_size=PAGE_SIZE,
        )
        return SectionHtml(html, summary=f"{len(data)} conversations, {failing} failing")
