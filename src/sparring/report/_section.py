"""The one small interface a job uses to add a part to the report: ``ReportSection``.

A section is a stateless object with a ``name`` (its anchor and registry key), a
``title``, an ``order`` (where it goes; built-ins use 10–90 in steps of 10, see
``docs/report.md``), ``applies(run)`` (shown at all?) and ``render(run)`` returning a
``SectionHtml``: an HTML fragment plus, optionally, one line for the summary under the
verdict at the top of the page. It reads the run through ``RunView`` and never writes.

Sections register in ``REPORT_SECTIONS`` with ``@report_section`` (a class is
instantiated once) or through the entry-point group ``sparring.report_sections``
(an entry point names a ``ReportSection`` subclass or instance)::

    @report_section
    class Workflow(ReportSection):
        name, title, order = "workflow", "Workflow", 40

        def applies(self, run: RunView) -> bool:
            return run.optional_file("explore/model.json") is not None

        def render(self, run: RunView) -> SectionHtml:
            return SectionHtml(inline_svg(draw(run)), summary="12 of 14 nodes covered")

Fragments are trusted markup: build them with ``fragment`` (a Jinja template string,
autoescaped) or ``inline_svg``, never by pasting run text into a string.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib.resources import files
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from markupsafe import Markup

from sparring.errors import Problem
from sparring.registry import Registry

if TYPE_CHECKING:
    from jinja2 import Environment, Template

    from sparring.report._view import RunView

ENTRY_POINT_GROUP = "sparring.report_sections"
ROOT = "."
"""In ``ReportSection.reads``: the files at the run directory's root."""
_BUILTIN_MODULES = (
    "sparring.report._overview",
    "sparring.report._failures",
    "sparring.report._rules",
    "sparring.report._exploration",
    "sparring.report._breakdowns",
    "sparring.report._imported_breakdowns",
    "sparring.report._plots",
    "sparring.report._mutation",
    "sparring.report._adversarial",
    "sparring.report._probes",
    "sparring.report._metamorphic",
    "sparring.report._conversations",
)


@dataclass(frozen=True)
class SectionHtml:
    """What a section renders: ``html``, a trusted HTML fragment (``Markup``; a plain
    ``str`` is escaped as text), and ``summary``, one plain-text line (or ``None``) shown
    under the verdict at the top of the report, linking to the section."""

    html: Markup | str
    summary: str | None = None

    @property
    def markup(self) -> Markup:
        """``html`` as markup: a ``Markup`` kept as is, a ``str`` escaped."""
        return self.html if isinstance(self.html, Markup) else Markup.escape(self.html)


class ReportSection(ABC):
    """One part of the report (see the module docstring). Subclasses set the class
    attributes ``name`` (letters, digits, ``-``, ``_``: the page anchor), ``title`` and
    ``order`` (smaller first), and implement ``render``; ``applies`` defaults to true.
    A section raising while it renders is shown as an error box, and the report goes on."""

    name: ClassVar[str]
    title: ClassVar[str]
    order: ClassVar[int] = 500
    reads: ClassVar[frozenset[str] | None] = None
    """The parts of the run directory the section reads (``applies`` and ``render``): slot
    folders (``conversations``, ``verdicts``, ``evaluations``, ``explore``, ``results``:
    ``sparring.conversations.Slot`` values) and ``ROOT`` (``"."``) for the files at the run's
    root (``manifest.json``, job results before 0.3). ``None``,
    the default: the whole run. A cache of rendered sections (the dashboard's) keeps a
    section until one of these parts changes, so a section must name every part it reads."""

    def applies(self, run: RunView) -> bool:
        """Whether the section has anything to show for ``run``."""
        return True

    @abstractmethod
    def render(self, run: RunView) -> SectionHtml:
        """The section's HTML for ``run``."""


def _adopt(name: str, loaded: Any) -> ReportSection | None:
    import types

    if isinstance(loaded, types.ModuleType):
        return None
    if isinstance(loaded, type) and issubclass(loaded, ReportSection):
        loaded = loaded()
    if not isinstance(loaded, ReportSection):
        raise TypeError(f"{loaded!r} is not a ReportSection subclass or instance")
    return loaded


REPORT_SECTIONS: Registry[ReportSection] = Registry(
    "report section", group=ENTRY_POINT_GROUP, builtins=_BUILTIN_MODULES, adopt=_adopt
)
"""Every report section by name, built in and plug-ins. Tests use ``snapshot()``/``override``."""

S = TypeVar("S", bound=type[ReportSection])


def report_section(cls: S) -> S:
    """Class decorator: register one instance of ``cls`` under ``cls.name``. Raises
    ``ValueError`` for a name that is not a valid anchor, ``DuplicateName`` when the name
    is taken by another section."""
    if not re.fullmatch(r"[A-Za-z][\w-]*", cls.name):
        raise ValueError(f"report section name {cls.name!r}: use letters, digits, - and _")
    existing = REPORT_SECTIONS.peek(cls.name)
    if existing is None or type(existing) is not cls:
        REPORT_SECTIONS.register(cls.name, cls())
    return cls


def sections() -> list[ReportSection]:
    """Every registered section (plug-ins loaded), by ``order`` then ``name``."""
    return sorted(REPORT_SECTIONS.items().values(), key=lambda s: (s.order, s.name))


@cache
def _environment() -> Environment:
    """The one Jinja environment of the report: autoescaped, undefined names are errors
    (Jinja2 is imported on the first render, not with the package)."""
    from jinja2 import Environment, PackageLoader, StrictUndefined

    return Environment(
        loader=PackageLoader("sparring.report", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


@lru_cache(maxsize=128)
def _template(source: str) -> Template:
    return _environment().from_string(source)


def fragment(template: str, /, **context: Any) -> Markup:
    """Render the Jinja template string ``template`` with ``context``, autoescaped (values
    are escaped unless they are ``Markup``). Compiled templates are cached by their text.
    Raises ``jinja2.TemplateError`` for a bad template or an undefined name."""
    return Markup(_template(template).render(**context))


def unreadable_html(problems: Sequence[Problem]) -> Markup:
    """A stored file that does not read, said in the report: one line per located
    problem (file, line, key and message), or empty markup when there is none."""
    if not problems:
        return Markup()
    return fragment(
        '<p class="error">A stored file of this section cannot be read:</p>'
        '<ul class="error">{% for p in problems %}<li>{{ p }}</li>{% endfor %}</ul>',
        problems=[str(p) for p in problems],
    )


def render_template(name: str, /, **context: Any) -> Markup:
    """Render the report's own template ``templates/<name>`` (autoescaped) as markup."""
    return Markup(_environment().get_template(name).render(**context))


@cache
def asset(name: str) -> Markup:
    """The text of ``templates/<name>`` (CSS, JS) as markup, read once."""
    return Markup(files("sparring.report").joinpath("templates", name).read_text("utf-8"))


_PROLOG = re.compile(r"<\?xml[^>]*\?>|<!DOCTYPE[^>]*>|<!--.*?-->", re.DOTALL)


def inline_svg(svg: str | bytes) -> Markup:
    """An SVG document (matplotlib's, graphviz's ``pipe(format="svg")``) as a fragment to
    put inside HTML: XML declaration, DOCTYPE and comments removed. Raises ``ValueError``
    when there is no ``<svg`` element or the SVG holds a script or event handler (a
    fragment is trusted markup)."""
    text = svg.decode("utf-8") if isinstance(svg, bytes) else svg
    text = _PROLOG.sub("", text).strip()
    if not text.startswith("<svg"):
        raise ValueError("not an SVG document (no <svg> element first)")
    if re.search(r"<script|<[^>]*\son\w+\s*=|javascript:", text, re.IGNORECASE):
        raise ValueError("an SVG with scripts or event handlers cannot be inlined")
    return Markup(text)


def percent(share: float | None) -> str:
    """A share in [0, 1] as a whole percentage; ``—`` when there is none."""
    return "—" if share is None else f"{share:.0%}"
