"""The report (``sparring report RUN``): one self-contained HTML file a chatbot developer
reads first — the verdict, failures with the turns that show them, rule results,
response-time and cost plots, and a page per conversation. Any run can be reported
(simulated or imported); every job writes it to ``<run>/report/index.html``::

    path = write_report("runs/x")            # UserInputError: not a run, unreadable record

Later jobs add sections through one small interface, ``ReportSection`` (``name``,
``title``, ``order``, ``reads``, ``applies(run)``, ``render(run) -> SectionHtml``), registered with
``@report_section`` or the entry-point group ``sparring.report_sections``; see
docs/report.md.
"""

from sparring.report._breakdowns import stored_breakdowns
from sparring.report._conversations import conversation_data
from sparring.report._excerpt import (
    ExcerptLine,
    anchor,
    conversation_href,
    excerpt_html,
    excerpt_lines,
)
from sparring.report._page import (
    REPORT_FILE,
    RenderedSection,
    render_report,
    render_section,
    write_report,
)
from sparring.report._section import (
    ENTRY_POINT_GROUP,
    REPORT_SECTIONS,
    ROOT,
    ReportSection,
    SectionHtml,
    asset,
    fragment,
    inline_svg,
    report_section,
    sections,
)
from sparring.report._view import GenericFailure, RunVerdict, RunView, VerdictStatus

__all__ = [
    "ENTRY_POINT_GROUP",
    "REPORT_FILE",
    "REPORT_SECTIONS",
    "ROOT",
    "ExcerptLine",
    "GenericFailure",
    "RenderedSection",
    "ReportSection",
    "RunVerdict",
    "RunView",
    "SectionHtml",
    "VerdictStatus",
    "anchor",
    "asset",
    "conversation_data",
    "conversation_href",
    "excerpt_html",
    "excerpt_lines",
    "fragment",
    "inline_svg",
    "render_report",
    "render_section",
    "report_section",
    "sections",
    "stored_breakdowns",
    "write_report",
]
