"""Assembling the report: every section that applies, in order, inside one
self-contained HTML page (inline CSS and JS, no external resource), written atomically
to ``<run>/report/index.html``."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from markupsafe import Markup

from sparring import __version__
from sparring._gc import paused_gc
from sparring.conversations import MANIFEST, Slot, atomic_write
from sparring.errors import UserInputError
from sparring.report._section import (
    ReportSection,
    SectionHtml,
    asset,
    fragment,
    render_template,
    sections,
    unreadable_html,
)
from sparring.report._view import RunView

logger = logging.getLogger(__name__)

REPORT_FILE = "index.html"
"""The report's file name in the run's ``report/`` slot."""


@dataclass(frozen=True)
class RenderedSection:
    """A section as the page shows it: anchor ``name``, ``title``, HTML and summary."""

    name: str
    title: str
    html: Markup
    summary: str | None


def render_section(section: ReportSection, run: RunView) -> RenderedSection | None:
    """``section`` rendered for ``run`` (``None`` when it does not apply). A section that
    raises is rendered as an error box (logged); a stored file of a later job that does not
    read (``UserInputError`` naming it: the exploration model, a job's result) is said in the
    section, located; an unreadable file of the run itself (its manifest, a record or a
    check report: ``run_file_problem``) propagates. The report page and the dashboard's run
    page both render through here."""
    try:
        if not section.applies(run):
            return None
        out = section.render(run)
    except UserInputError as exc:
        if run_file_problem(run, exc):
            raise
        out = SectionHtml(unreadable_html(exc.problems), summary=f"{section.title}: unreadable")
    except Exception as exc:  # a broken plug-in must not take the report down
        logger.warning("report section %r failed: %s", section.name, exc, exc_info=True)
        out = SectionHtml(
            fragment(
                '<p class="error">This section failed: {{ kind }}: {{ text }}</p>',
                kind=type(exc).__name__,
                text=str(exc),
            ),
            summary=f"{section.title}: the section failed to render",
        )
    return RenderedSection(section.name, section.title, out.markup, out.summary)


RUN_FILES = (Slot.CONVERSATIONS.value, Slot.VERDICTS.value)
"""The slots whose files make the run itself: a record or check report that does not read
makes the run unreadable (``sparring report`` exits 2), not just one section."""


def run_file_problem(run: RunView, error: UserInputError) -> bool:
    """Whether ``error`` is about the run itself: a problem naming no file, the manifest,
    or a file in the conversations or verdicts slot."""
    root = run.path.resolve()
    for problem in error.problems:
        if not problem.file:
            return True
        where = Path(problem.file).resolve()
        if not where.is_relative_to(root):
            continue
        inside = where.relative_to(root).parts
        if inside == (MANIFEST,) or (len(inside) > 1 and inside[0] in RUN_FILES):
            return True
    return False


def render_report(run: RunView, chosen: Sequence[ReportSection] | None = None) -> str:
    """The report of ``run`` as one HTML document. ``chosen`` are the sections to render
    (default: every registered one, by order). Raises ``UserInputError`` naming the file
    of a record or verdict file that cannot be read; a section that raises otherwise is
    shown as an error box."""
    run.records, run.check_reports  # noqa: B018  (read up front: bad files fail first)
    chosen = sections() if chosen is None else chosen
    with paused_gc():  # the sections build many short-lived acyclic objects (sparring._gc)
        rendered = [done for section in chosen if (done := render_section(section, run))]
    chatbot = run.manifest.chatbot.get("info", {}) or {}
    return render_template(
        "page.html.j2",
        run=run,
        title=str(chatbot.get("name") or run.manifest.run_id),
        verdict=run.verdict,
        sections=rendered,
        css=asset("report.css"),
        generated=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        version=__version__,
    )


def write_report(run_dir: str | Path, out: str | Path | None = None) -> Path:
    """Write the report of the run at ``run_dir`` to ``out`` (default
    ``<run>/report/index.html``), atomically; return its path. Raises ``UserInputError``
    naming the file when ``run_dir`` is not a run or a record cannot be read, ``OSError``
    when the report cannot be written."""
    run = RunView.open(run_dir)
    html = render_report(run)
    target = Path(out) if out is not None else run.store.slot(Slot.REPORT) / REPORT_FILE
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(target, html, durable=False)
    return target
