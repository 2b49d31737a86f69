"""What the run page and the conversation viewer read from a run directory, through the
report's public pieces (``sparring.report``): the report's sections (``ReportSection``,
rendered by ``render_section``, never re-written here) and ``conversation_data`` (what a
conversation page shows).

Nothing is computed on the request path. Each section is cached (Django's cache) under a
key of the parts of the run directory it reads (``ReportSection.reads``: the modification
times of those slot folders or of the run's root, which every atomic write, a rename into
the folder, moves), the run's verdict under the whole run's. The page shows what is cached
and, for a piece that is not, a placeholder that htmx fills when it is ready; the worker's
page thread (``_page_renderer``) renders the missing pieces, once per change of the run:
a stored check re-renders only the sections that read ``verdicts``. The worker renders a
run's pieces when it ends, and ``sparring web import`` when it indexes one.
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
from sparring.web._page_renderer import renderer
from sparring.web.models import Run

logger = logging.getLogger(__name__)

SKIPPED_SECTIONS = frozenset({"conversations"})
"""Report sections the run page leaves out: the conversations section is an inline script
(the dashboard's CSP forbids it); the paginated conversation pages replace it."""
_CONVERSATION_LINK = re.compile(r'href="#conv=([^"]*)"')
_SVG = re.compile(r"<svg\b.*?</svg>", re.DOTALL)
_ABSENT = "absent"
"""The cached value of a section that does not apply to the run."""
_PROBLEM_SECONDS = 30
"""How long a run that could not be read for a passing reason (``OSError``) is shown so
before it is read again; a located error (``UserInputError``) stays until the run changes."""


@dataclass(frozen=True)
class PageSection:
    """One report section on the run page: anchor ``name``, ``title``, trusted ``html``
    (the report's fragment with its conversation links pointed at the dashboard; ``None``
    while it is being computed), ``summary`` (one plain line or ``None``)."""

    name: str
    title: str
    html: str | None
    summary: str | None


@dataclass(frozen=True)
class _Head:
    """The cached top of the page: the run's verdict and reasons, or why it cannot be read."""

    verdict: str | None
    reasons: list[str]
    problem: str | None = None
    unchecked: bool = False


@dataclass(frozen=True)
class RunPage:
    """The run page's report part: the run's verdict (``passed``, ``failed``, ``no
    verdict``; ``None`` while it is computed), its reasons and the sections (those being
    computed have no ``html``); ``ready`` when nothing is being computed; ``problem`` says
    why the run could not be read (then nothing else is set); ``unchecked`` when the run
    has no verdict only because no rule was checked (its reasons, the command line's
    advice, are left out: the page offers *Check this run…*)."""

    verdict: str | None
    reasons: list[str]
    sections: list[PageSection]
    problem: str | None = None
    ready: bool = True
    unchecked: bool = False

    def section(self, name: str) -> PageSection | None:
        """The section ``name`` as the page shows it (``None``: it does not apply)."""
        return next((s for s in self.sections if s.name == name), None)


def _parts(path: Path) -> dict[str, int] | None:
    """The modification times (nanoseconds) of the run's root folder (``ROOT``) and of
    each folder in it (its slots; ``report/``, which no section reads, left out); ``None``
    when the run's folder is missing."""
    from sparring.conversations import Slot
    from sparring.report import ROOT

    try:
        parts = {ROOT: path.stat().st_mtime_ns}
        for child in path.iterdir():
            if child.name != Slot.REPORT and child.is_dir():
                parts[child.name] = child.stat().st_mtime_ns
    except OSError:
        return None
    return parts


def fingerprint(path: Path, reads: frozenset[str] | None = None) -> str:
    """A key that changes whenever a file is written into the parts ``reads`` of the run
    at ``path`` (its slot folders, ``ROOT`` for its root; ``None``: all of them, and a new
    folder); ``""`` when the folder is missing."""
    parts = _parts(path)
    return "" if parts is None else _joined(parts, reads)


def _joined(parts: dict[str, int], reads: frozenset[str] | None) -> str:
    names = sorted(parts if reads is None else reads)
    return "-".join(f"{name}:{parts.get(name, '')}" for name in names)


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


def _adapted(pk: int, html: Markup) -> str:
    """A report fragment made for the page: its ``#conv=<id>`` links turned into the
    dashboard's conversation pages (the id is already URL-encoded by
    ``sparring.report.conversation_href``), its inline SVGs into images."""
    base = reverse("page-run-conversations", args=[pk])
    text = _CONVERSATION_LINK.sub(lambda m: f'href="{base}{m.group(1)}"', str(html))
    return _SVG.sub(_svg_image, text)


def page_sections() -> list[Any]:
    """The report's sections the run page shows (``sparring.report.sections()`` less
    ``SKIPPED_SECTIONS``), in order."""
    from sparring.report import sections

    return [s for s in sections() if s.name not in SKIPPED_SECTIONS]


def _section_key(pk: int, section: Any, parts: dict[str, int]) -> str:
    return f"sparring-section:{pk}:{section.name}:{_joined(parts, section.reads)}"


def _head_key(pk: int, parts: dict[str, int]) -> str:
    return f"sparring-head:{pk}:{_joined(parts, None)}"


def _verdicts_key(kind: str, pk: int, parts: dict[str, int]) -> str:
    from sparring.conversations import Slot

    return f"sparring-{kind}:{pk}:{_joined(parts, frozenset({Slot.VERDICTS.value}))}"


def render_stale(pk: int, path: Path) -> None:
    """Render into the cache every piece of the page of run ``pk`` (its folder ``path``)
    that is missing for the run as it is now: the verdict, each section, the rule verdicts
    by conversation. The run is read once (``RunView``) and only if something is missing.
    Reads files only (no database): the worker's page thread calls it. A run that cannot
    be read is cached as a problem."""
    from sparring._gc import paused_gc
    from sparring.report import RunView, render_section

    parts = _parts(path)
    if parts is None:
        return
    head_key = _head_key(pk, parts)
    todo = [s for s in page_sections() if cache.get(_section_key(pk, s, parts)) is None]
    index_key, failed_key = _verdicts_key("verdicts", pk, parts), _verdicts_key("failed", pk, parts)
    need_head = cache.get(head_key) is None
    need_index = cache.get(index_key) is None or cache.get(failed_key) is None
    if not (todo or need_head or need_index):
        return
    here = str(path)  # the server's folders are not shown to users

    def hidden(text: str) -> str:
        return text.replace(here, "this run")

    try:
        with paused_gc():  # many short-lived acyclic objects (sparring._gc)
            view = RunView.open(path)
            if need_head:
                verdict = view.verdict
                reasons = [] if verdict.unchecked else [hidden(r) for r in verdict.reasons]
                cache.set(head_key, _Head(verdict.status, reasons, unchecked=verdict.unchecked))
            for section in todo:
                done = render_section(section, view)
                shown = (
                    _ABSENT if done is None
                    else PageSection(done.name, done.title, hidden(_adapted(pk, done.html)),
                                     done.summary)
                )  # fmt: skip
                cache.set(_section_key(pk, section, parts), shown, timeout=None)
            if need_index:
                index = _index(view)
                cache.set(index_key, index, timeout=None)
                cache.set(failed_key, _failed(index), timeout=None)
    except (UserInputError, OSError) as exc:
        timeout = None if isinstance(exc, UserInputError) else _PROBLEM_SECONDS
        cache.set(head_key, _Head(None, [], hidden(str(exc))), timeout=timeout)


def _index(view: Any) -> dict[str, list[dict[str, Any]]]:
    return {
        conversation: [v.model_dump(mode="json") for v in verdicts]
        for conversation, verdicts in view.verdicts_by_conversation.items()
    }


def _cached(kind: str, run: Run, build: Callable[[], Any]) -> Any:
    parts = _parts(Path(run.path))
    if parts is None:
        raise OSError(f"run {run.pk}: its folder is missing")
    key = _verdicts_key(kind, run.pk, parts)
    found = cache.get(key)
    if found is None:
        found = build()
        cache.set(key, found, timeout=None)
    return found


def verdict_index(run: Run) -> dict[str, list[dict[str, Any]]]:
    """The rule verdicts on each conversation of ``run`` (``RunView.verdicts_by_conversation``
    as JSON objects of ``sparring.results.Verdict``), from the cache while the run's
    ``verdicts`` slot did not change (plain objects load from the cache far faster than
    models). Raises ``UserInputError`` or ``OSError`` when the run cannot be read."""
    from sparring.conversations import RunStore
    from sparring.report import RunView

    def build() -> dict[str, list[dict[str, Any]]]:
        return _index(RunView(RunStore.open(Path(run.path), clean=False)))

    found: dict[str, list[dict[str, Any]]] = _cached("verdicts", run, build)
    return found


def failed_rules(run: Run) -> dict[str, list[str]]:
    """The rules that failed (or raised) on each conversation of ``run``, cached."""

    found: dict[str, list[str]] = _cached("failed", run, lambda: _failed(verdict_index(run)))
    return found


def _failed(index: dict[str, list[dict[str, Any]]]) -> dict[str, list[str]]:
    failed: dict[str, list[str]] = {}
    for conversation, verdicts in index.items():
        rules = sorted({v["rule"] for v in verdicts if v["status"] in ("fail", "error")})
        if rules:
            failed[conversation] = rules
    return failed


def _render_later(pk: int, path: Path) -> None:
    """Hand run ``pk``'s missing pieces (``render_stale``) to the worker's page thread."""
    renderer().submit((pk, path), lambda: render_stale(pk, path))


def preload() -> None:
    """Import the report's sections on the page thread (``sparring web`` does at start:
    the first visit of a run page then finds them loaded)."""
    renderer().submit("sections", page_sections, grace=0)


def run_page(run: Run) -> RunPage:
    """The report part of ``run``'s page as the cache holds it — never computed here: a
    piece that is missing is handed to the worker's page thread and shown as being
    computed (``RunPage.ready`` false)."""
    path = Path(run.path)
    parts = _parts(path)
    if parts is None:
        return RunPage(None, [], [], problem="the run's folder is missing")
    head = cache.get(_head_key(run.pk, parts))
    if isinstance(head, _Head) and head.problem is not None:
        return RunPage(None, [], [], problem=head.problem)
    shown: list[PageSection] = []
    for section in page_sections():
        found = cache.get(_section_key(run.pk, section, parts))
        if found == _ABSENT:
            continue
        pending = PageSection(section.name, section.title, None, None)
        shown.append(found if isinstance(found, PageSection) else pending)
    ready = isinstance(head, _Head) and all(s.html is not None for s in shown)
    if not ready:
        _render_later(run.pk, path)
    if not isinstance(head, _Head):
        return RunPage(None, [], shown, ready=False)
    return RunPage(head.verdict, head.reasons, shown, ready=ready, unchecked=head.unchecked)


def warm(run: Run) -> None:
    """Render ``run``'s page into the cache now, and the index the conversation list's
    filters read (the worker calls it when a run ends, ``sparring web import`` when it
    indexes one)."""
    from sparring.web._conversation_filters import conversation_index
    from sparring.web._trends import run_point

    try:
        render_stale(run.pk, Path(run.path))
        failed_rules(run)
        conversation_index(run)  # the conversation list's filters read it
        run_point(run)  # the project's trends read it
    except Exception:  # a report failure must never fail the run
        logger.warning("could not render the page of run %s", run.pk, exc_info=True)


def _cached_index(run: Run) -> dict[str, list[dict[str, Any]]] | None:
    """The rule verdicts by conversation when the cache holds them for the run's checks as
    they are; else ``None``, and the worker's page thread is asked for them (a run whose
    checks cannot be read is read here, to raise its error)."""
    path = Path(run.path)
    parts = _parts(path)
    if parts is None:
        raise OSError(f"run {run.pk}: its folder is missing")
    found: dict[str, list[dict[str, Any]]] | None = cache.get(
        _verdicts_key("verdicts", run.pk, parts)
    )
    if found is not None:
        return found
    head = cache.get(_head_key(run.pk, parts))
    if isinstance(head, _Head) and head.problem is not None:
        return verdict_index(run)
    _render_later(run.pk, path)
    return None


def conversation_page(run: Run, conversation_id: str) -> dict[str, Any] | None:
    """What the conversation viewer shows (``sparring.report.conversation_data``: turns
    with latency and buttons, errors, verdicts with the turns they point at, outputs,
    breakdown marks) and ``verdicts_pending``: true when the run's checks changed and
    their verdicts are being read by the worker's page thread (then none is shown yet);
    ``None`` when the run has no such conversation."""
    from sparring.conversations import RunStore
    from sparring.report import conversation_data, stored_breakdowns
    from sparring.results import Verdict

    try:
        store = RunStore.open(Path(run.path), clean=False)
        record = store.read(conversation_id)
        index = _cached_index(run)
        found = [] if index is None else index.get(record.id, [])
        verdicts = [Verdict.model_validate(v) for v in found]
        stored = stored_breakdowns(store.path)
    except (FileNotFoundError, UserInputError, OSError, ValueError):
        return None
    judged = (
        next((c for c in stored[0].conversations if c.conversation == record.id), None)
        if stored
        else None
    )
    return {**conversation_data(record, verdicts, judged), "verdicts_pending": index is None}


def conversation_rows(run: Run, offset: int, limit: int) -> tuple[int, list[dict[str, Any]], bool]:
    """The number of conversations of ``run``, one page of its index (``limit`` rows from
    ``offset``: id, profile, turns, finish reason, generic errors and the rules that failed
    on it) and whether those rules are known: when the run's checks changed since they
    were cached, the rows come without them (``failed`` ``None``) and the worker's page
    thread is asked for them. Only the page's records are read."""
    from sparring.conversations import RunStore

    path = Path(run.path)
    parts = _parts(path)
    try:
        store = RunStore.open(path, clean=False)
        records = list(store.iter_records(offset, offset + limit))
        total = len(store)
    except (UserInputError, OSError):
        return 0, [], True
    failed = cache.get(_verdicts_key("failed", run.pk, parts)) if parts is not None else None
    if failed is None:
        _render_later(run.pk, path)
    rows = [
        {
            "id": r.id,
            "url": conversation_url(run, r.id),
            "profile": r.profile,
            "turns": len(r.turns),
            "finish_reason": r.finish_reason,
            "errors": [e.name for e in r.errors],
            "failed": None if failed is None else failed.get(r.id, []),
        }
        for r in records
    ]
    return total, rows, failed is not None
