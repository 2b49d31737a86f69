"""The probes section: the verdicts of ``sparring adversarial probe`` (``probes.json``) —
counts per suite and each oracle's measured precision, then every failing, erroring or
unscored probe with the reason, an excerpt of the
replies that failed and a link to its conversation, and a table of all probes.

A reader of ``probes.json`` through the adversarial package's public API (never running it)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from markupsafe import Markup

from sparring.adversarial import PROBES, PROBES_FILE, ProbeReport
from sparring.conversations import Slot, read_json_model
from sparring.precision import ORACLES, precision_summary
from sparring.report._excerpt import conversation_href, excerpt_html
from sparring.report._section import (
    ROOT,
    ReportSection,
    SectionHtml,
    fragment,
    report_section,
)
from sparring.report._view import RunView
from sparring.results import Verdict

_TEMPLATE = """\
<p>{{ counts.total }} probes: <strong>{{ counts.passed }} passed</strong>,
{{ counts.fail }} failed, {{ counts.error }} errors, {{ counts.not_applicable }} not applicable,
{{ counts.unscored }} unscored
— offline oracles, no model{% if not report.complete %}
<span class="error">(incomplete run)</span>{% endif %}.</p>
{% for line in judges %}<p class="note">offline judge: {{ line }}</p>
{% endfor %}
<table>
<tr><th>suite</th><th class="num">pass</th><th class="num">fail</th><th class="num">error</th>
<th class="num">not applicable</th><th class="num">unscored</th></tr>
{% for name, row in suites.items() %}
<tr><td>{{ name }}</td>
{% for status in statuses %}<td class="num">{{ row[status] }}</td>{% endfor %}</tr>
{% endfor %}
</table>
{% if failed %}
<h3>Failed and unscored probes</h3>
{% for row in failed %}
<div class="failure">
  <span class="status status-{{ row.verdict.status }}">{{ row.verdict.status }}</span>
  <strong>{{ row.verdict.rule }}</strong> ({{ row.category }}) — {{ row.title }}
  {% if row.href %}· <a href="{{ row.href }}">conversation</a>{% endif %}
  <div class="why">{{ row.verdict.reason or "(no reason given)" }}</div>
  {{ row.excerpt or "" }}
</div>
{% endfor %}
{% endif %}
<details><summary>All {{ rows | length }} probes</summary>
<table>
<tr><th>probe</th><th>category</th><th>status</th><th>reason</th></tr>
{% for row in rows %}
<tr><td>{% if row.href %}<a href="{{ row.href }}">{{ row.verdict.rule }}</a>
{% else %}{{ row.verdict.rule }}{% endif %}</td>
<td>{{ row.category }}</td>
<td><span class="status status-{{ row.verdict.status }}">{{ row.verdict.status }}</span></td>
<td>{{ row.verdict.reason or "" }}</td></tr>
{% endfor %}
</table>
</details>
"""
_STATUSES = ("pass", "fail", "error", "not_applicable", "unscored")


@dataclass(frozen=True)
class _Row:
    verdict: Verdict
    category: str
    title: str
    href: str | None
    excerpt: Markup | None


@report_section
class Probes(ReportSection):
    """The offline adversarial probes of a ``probe`` run."""

    name = "probes"
    title = "Adversarial probes"
    order = 25
    reads = frozenset({ROOT, Slot.CONVERSATIONS, Slot.RESULTS})

    def applies(self, run: RunView) -> bool:
        return run.job_result(PROBES) is not None

    def render(self, run: RunView) -> SectionHtml:
        path = run.job_result(PROBES)
        if path is None:
            raise FileNotFoundError(PROBES_FILE)
        report = read_json_model(Path(path), ProbeReport)
        entries = {entry.id: entry for entry in report.probes}
        suites: dict[str, dict[str, int]] = {}
        rows: list[_Row] = []
        for verdict in report.verdicts:
            entry = entries.get(verdict.rule)
            suite = entry.suite if entry else verdict.rule.split("/", 1)[0]
            row = suites.setdefault(suite, dict.fromkeys(_STATUSES, 0))
            if verdict.status in row:
                row[verdict.status] += 1
            record_id = verdict.conversations[0] if verdict.conversations else None
            record = run.records_by_id.get(record_id) if record_id else None
            failed = verdict.status in ("fail", "error", "unscored")
            rows.append(
                _Row(
                    verdict=verdict,
                    category=entry.category.value if entry else "",
                    title=entry.title if entry else verdict.message or "",
                    href=conversation_href(record_id) if record is not None and record_id else None,
                    excerpt=excerpt_html(record, verdict.turns) if record and failed else None,
                )
            )
        counts = report.counts
        html = fragment(
            _TEMPLATE,
            report=report,
            counts=counts,
            suites=suites,
            statuses=_STATUSES,
            rows=rows,
            failed=[r for r in rows if r.verdict.status in ("fail", "error", "unscored")],
            judges=precision_summary(report.verdicts, ORACLES),
        )
        summary = (
            f"{counts.total} adversarial probes: {counts.passed} passed, {counts.fail} failed, "
            f"{counts.error} errors"
        )
        return SectionHtml(html, summary=summary)
