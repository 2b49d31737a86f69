"""What the run page and the conversation viewer read from a run directory, through the
report's public pieces (``sparring.report``): the report's sections (``ReportSection``,
rendered by ``render_section``, never re-written here) and ``conversation_data`` (what a
conversation page shows).

Rendering every section of a 2,000-conversation run reads every record, so the rendered
sections are cached (Django's cache) under a fingerprint of the run directory: the
modification times of the folder and of its slots, which every atomic write (a rename
into the folder) moves. The worker renders them once when a run ends, so the first visit
is served from the cache too.
"""

from __future__ import annotations

import base64
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from django.core.cache import cache
from django.urls import reverse
from markupsafe import Markup

from sparring.errors import UserInputError
from sparring.web.models import Run

logger = logging.getLogger(__name__)

SKIPPED_SECTIONS = frozenset({"conversations"})
"""Report sections the run page leaves out: the conversations section is an inline script
(the dashboard's CSP forbids it); the paginated conversation pages replace it."""
_CONVERSATION_LINK = re.compile(r'href="#conv=([^"]*)"')
_SVG = re.compile(r"<svg\b.*?</svg>", re.DOTALL)


@dataclass(frozen=True)
class PageSection:
    """One report section on the run page: anchor ``name``, ``title``, trusted ``html``
    (the report's fragment with its conversation links pointed at the dashboard),
    ``summary`` (one plain line or ``None``)."""

    name: str
    title: str
    html: str
    summary: str | None


@dataclass(frozen=True)
class RunPage:
    """The run page's report part: the run's verdict (``passed``, ``failed``, ``no
    verdict``), its reasons and the sections; ``problem`` says why the run could not be
    read (then nothing else is set)."""

    verdict: str | None
    reasons: list[str]
    sections: list[PageSection]
    problem: str | None = None


def fingerprint(path: Path) -> str:
    """A key that changes whenever a file is written into the run at ``path`` or one of
    its slots (modification times in nanoseconds); ``""`` when the folder is missing."""
    try:
        parts = [path.stat().st_mtime_ns]
        parts += sorted(child.stat().st_mtime_ns for child in path.iterdir() if child.is_dir())
    except OSError:
        return ""
    return "-".join(str(part) for part in parts)


def conversation_url(run: Run, conversation_id: str) -> str:
    """The dashboard page of one conversation of ``run``."""
    base = reverse("page-run-conversations", args=[run.pk])
    return base + quote(conversation_id, safe="")


def _svg_image(match: re.Match[str]) -> str:
    """An inline SVG (a plot, the workflow graph) as an ``<img>`` of a ``data:`` URL: its
    own styles apply inside the image (the page's CSP forbids inline style) and nothing
    in an image document can run."""
    svg = match.group(0)
    if "xmlns=" not in svg[: svg.find(">")]:
        svg = svg.replace("<svg", '<svg xmlns="http://www.w3.org/2000/svg"', 1)
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return f'<img class="figure" alt="figure" src="data:image/svg+xml;base64,{data}">'


def _adapted(run: Run, html: Markup) -> str:
    """A report fragment made for the page: its ``#conv=<id>`` links turned into the
    dashboard's conversation pages (the id is already URL-encoded by
    ``sparring.report.conversation_href``), its inline SVGs into images."""
    base = reverse("page-run-conversations", args=[run.pk])
    text = _CONVERSATION_LINK.sub(lambda m: f'href="{base}{m.group(1)}"', str(html))
    return _SVG.sub(_svg_image, text)


def _render(run: Run) -> RunPage:
    from sparring.report import RunView, render_section, sections

    try:
        view = RunView.open(run.path)
        verdict = view.verdict
        rendered = [
            done
            for section in sections()
            if section.name not in SKIPPED_SECTIONS
            and (done := render_section(section, view)) is not None
        ]
    except (UserInputError, OSError) as exc:
        return RunPage(None, [], [], problem=str(exc))
    here = str(Path(run.path))  # the server's folders are not shown to users

    def hidden(text: str) -> str:
        return text.replace(here, "this run")

    return RunPage(
        verdict.status,
        [hidden(reason) for reason in verdict.reasons],
        [PageSection(s.name, s.title, hidden(_adapted(run, s.html)), s.summary) for s in rendered],
    )


def _key(kind: str, run: Run) -> str:
    return f"sparring-{kind}:{run.pk}:{fingerprint(Path(run.path))}"


def _cached(kind: str, run: Run, build: Callable[[], Any]) -> Any:
    key = _key(kind, run)
    found = cache.get(key)
    if found is None:
        found = build()
        cache.set(key, found, timeout=None)
    return found


def verdict_index(run: Run) -> dict[str, list[dict[str, Any]]]:
    """The rule verdicts on each conversation of ``run`` (``RunView.verdicts_by_conversation``
    as JSON objects of ``sparring.results.Verdict``), from the cache when the run did not
    change (reading the check reports of a 2,000-conversation run takes most of a second;
    plain objects load from the cache far faster than models). Raises ``UserInputError``
    or ``OSError`` when the run cannot be read."""
    from sparring.conversations import RunStore
    from sparring.report import RunView

    def build() -> dict[str, list[dict[str, Any]]]:
        view = RunView(RunStore.open(Path(run.path), clean=False))
        return {
            conversation: [v.model_dump(mode="json") for v in verdicts]
            for conversation, verdicts in view.verdicts_by_conversation.items()
        }

    found: dict[str, list[dict[str, Any]]] = _cached("verdicts", run, build)
    return found


def failed_rules(run: Run) -> dict[str, list[str]]:
    """The rules that failed (or raised) on each conversation of ``run``, cached."""

    def build() -> dict[str, list[str]]:
        failed: dict[str, list[str]] = {}
        for conversation, verdicts in verdict_index(run).items():
            rules = sorted({v["rule"] for v in verdicts if v["status"] in ("fail", "error")})
            if rules:
                failed[conversation] = rules
        return failed

    found: dict[str, list[str]] = _cached("failed", run, build)
    return found


def run_page(run: Run) -> RunPage:
    """The report part of ``run``'s page, from the cache when the run did not change."""
    key = _key("run-page", run)
    cached: Any = cache.get(key)
    if isinstance(cached, RunPage):
        return cached
    page = _render(run)
    if page.problem is None:
        cache.set(key, page, timeout=None)
    return page


def warm(run: Run) -> None:
    """Render ``run``'s page into the cache (the worker calls it when a run ends)."""
    try:
        run_page(run)
        failed_rules(run)
    except Exception:  # a report failure must never fail the run
        logger.warning("could not render the page of run %s", run.pk, exc_info=True)


def conversation_page(run: Run, conversation_id: str) -> dict[str, Any] | None:
    """What the conversation viewer shows (``sparring.report.conversation_data``: turns
    with latency and buttons, errors, verdicts with the turns they point at, outputs,
    breakdown marks); ``None`` when the run has no such conversation."""
    from sparring.conversations import RunStore
    from sparring.report import conversation_data, stored_breakdowns
    from sparring.results import Verdict

    try:
        store = RunStore.open(Path(run.path), clean=False)
        record = store.read(conversation_id)
        verdicts = [Verdict.model_validate(v) for v in verdict_index(run).get(record.id, [])]
        stored = stored_breakdowns(store.path)
    except (FileNotFoundError, UserInputError, OSError, ValueError):
        return None
    judged = (
        next((c for c in stored[0].conversations if c.conversation == record.id), None)
        if stored
        else None
    )
    return conversation_data(record, verdicts, judged)


def conversation_rows(run: Run, offset: int, limit: int) -> tuple[int, list[dict[str, Any]]]:
    """The number of conversations of ``run`` and one page of its index (``limit`` rows
    from ``offset``): id, profile, turns, finish reason, generic errors and the rules that
    failed on it. Only the page's records are read."""
    from itertools import islice

    from sparring.conversations import RunStore

    try:
        store = RunStore.open(Path(run.path), clean=False)
        records = list(islice(store.iter_records(), offset, offset + limit))
        failed = failed_rules(run)
        total = len(store)
    except (UserInputError, OSError):
        return 0, []
    rows = [
        {
            "id": r.id,
            "url": conversation_url(run, r.id),
            "profile": r.profile,
            "turns": len(r.turns),
            "finish_reason": r.finish_reason,
            "errors": [e.name for e in r.errors],
            "failed": failed.get(r.id, []),
        }
        for r in records
    ]
    return total, rows
