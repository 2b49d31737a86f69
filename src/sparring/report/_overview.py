"""The overview section: what was run and the pass/fail counts behind the verdict."""

from __future__ import annotations

from sparring.conversations import ErrorCode, Slot, percentile
from sparring.explore import read_coverage
from sparring.report._excerpt import anchor
from sparring.report._section import (
    ROOT,
    ReportSection,
    SectionHtml,
    render_template,
    report_section,
)
from sparring.report._view import RunView
from sparring.results import Counts

_CODES = {code.rule_name: int(code) for code in ErrorCode}


def _seconds(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f} s"


def _job_name(run: RunView) -> str:
    """The job that made the run: ``run`` for a tested run of ``sparring run`` (its own
    manifest; before 0.3 a simulate manifest beside the exploration's coverage), else the
    manifest's job."""
    made_by = run.manifest.job
    if made_by == "run" or (made_by == "simulate" and read_coverage(run.path) is not None):
        return "run (explore → simulate → check)"
    return run.manifest.job


@report_section
class Overview(ReportSection):
    """What was run (chatbot, job, simulators, rule sets) and the counts behind the
    verdict: conversations, generic failures by SENSEI code, rule checks by status."""

    name = "overview"
    title = "Overview"
    order = 10
    reads = frozenset({ROOT, Slot.CONVERSATIONS, Slot.VERDICTS, Slot.RESULTS})

    def render(self, run: RunView) -> SectionHtml:
        s = run.summary
        latencies = [t for record in run.records for t in record.response_times]
        counts = Counts()
        for _, result in run.rule_results():
            for key in ("passed", "fail", "error", "unscored", "not_applicable"):
                setattr(counts, key, getattr(counts, key) + getattr(result.counts, key))
        by_profile = s.failures.by_profile
        generic = [
            (
                name,
                anchor("failure", name),
                _CODES.get(name, name.removeprefix("error_")),
                s.failures.by_code[name],
                [(p, c[name]) for p, c in by_profile.items() if name in c],
            )
            for name in run.generic_failures
        ]
        info = run.manifest.chatbot.get("info") or {}
        html = render_template(
            "overview.html.j2",
            s=s,
            chatbot=info.get("name") or run.manifest.chatbot.get("connector") or "not recorded",
            endpoint=run.manifest.endpoint,
            job=_job_name(run),
            source=run.manifest.settings.get("source") if run.imported else None,
            created=run.manifest.created_at.strftime("%Y-%m-%d %H:%M UTC"),
            simulators=sorted(run.simulators.items()),
            profiles=len(s.profiles),
            reports=[(n, r.model or "offline") for n, r in run.check_reports.items()],
            p50=_seconds(percentile(latencies, 50) if latencies else None),
            p95=_seconds(s.response_time.p95),
            counts=counts if run.check_reports else None,
            generic=generic,
        )
        failing = s.failures.conversations
        return SectionHtml(html, summary=f"{s.conversations} conversations, {failing} with a "
                                         "generic failure")  # fmt: skip
