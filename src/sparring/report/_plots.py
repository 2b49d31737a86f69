"""The response-time and cost sections: matplotlib figures rendered to inline SVG (text
kept as text), so the report stays one self-contained file.

Figures are drawn on a ``matplotlib.figure.Figure`` directly — no pyplot, no global
backend switch — so importing this module costs nothing and the work is bounded: one
histogram over every chatbot turn (a few milliseconds for 20,000 turns) and one bar per
module.
"""

from __future__ import annotations

import io
from collections import defaultdict
from typing import TYPE_CHECKING

from markupsafe import Markup

from sparring.conversations import Slot, percentile
from sparring.report._section import (
    ReportSection,
    SectionHtml,
    inline_svg,
    render_template,
    report_section,
)
from sparring.report._view import RunView

if TYPE_CHECKING:
    from matplotlib.figure import Figure

BINS = 40
COLOURS = ("#0969da", "#cf222e", "#9a6700", "#1a7f37")


def _svg(figure: Figure, salt: str) -> Markup:
    """``figure`` as an inline SVG fragment; ``salt`` keeps its element ids unique."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": salt}):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    return inline_svg(buffer.getvalue())


def _figure(width: float = 8.0, height: float = 2.8) -> Figure:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=96)
    figure.set_layout_engine("constrained")
    return figure


def latency_plot(latencies: list[float]) -> Markup:
    """A histogram of chatbot response times (seconds) with p50 and p95 marked."""
    import numpy  # an array, not a list: matplotlib checks a list element by element

    figure = _figure()
    axes = figure.add_subplot()
    axes.hist(
        numpy.asarray(latencies, dtype=float),
        bins=BINS,
        color="#8cb4e8",
        edgecolor="#0969da",
        linewidth=0.5,
    )
    for q, colour in ((50, COLOURS[0]), (95, COLOURS[1])):
        value = percentile(latencies, q)
        axes.axvline(value, color=colour, linestyle="--", linewidth=1.2,
                     label=f"p{q} {value:.3f} s")  # fmt: skip
    axes.set_xlabel("chatbot response time (s)")
    axes.set_ylabel("turns")
    axes.legend(frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    axes.spines[["top", "right"]].set_visible(False)
    return _svg(figure, "latency")


@report_section
class ResponseTimes(ReportSection):
    """The distribution of the chatbot's response time per turn, p50/p95, per profile."""

    name = "response-times"
    title = "Response times"
    order = 50
    reads = frozenset({Slot.CONVERSATIONS})

    def applies(self, run: RunView) -> bool:
        return run.summary.response_time.count > 0

    def render(self, run: RunView) -> SectionHtml:
        by_profile: defaultdict[str, list[float]] = defaultdict(list)
        for record in run.records:
            by_profile[record.profile].extend(record.response_times)
        latencies = [t for times in by_profile.values() for t in times]
        rows = [
            (p, len(ts), percentile(ts, 50), percentile(ts, 95), max(ts))
            for p, ts in sorted(by_profile.items())
            if ts
        ]
        html = render_template("response_times.html.j2", plot=latency_plot(latencies), rows=rows)
        p50, p95 = percentile(latencies, 50), percentile(latencies, 95)
        summary = f"p50 {p50:.3f} s, p95 {p95:.3f} s over {len(latencies)} chatbot turns"
        return SectionHtml(html, summary=summary)


def cost_plot(by_module: dict[str, float], per_conversation: list[float]) -> Markup:
    """Model cost (US dollars) by module (bars) and per conversation (histogram)."""
    import numpy

    figure = _figure(9.0, 2.8)
    left, right = figure.subplots(1, 2, width_ratios=(1, 1.4))
    modules = list(by_module)
    left.barh(modules, [by_module[m] for m in modules], color=COLOURS[: len(modules)] or None)
    left.set_xlabel("cost by module (US$)")
    right.hist(
        numpy.asarray(per_conversation, dtype=float),
        bins=BINS,
        color="#e8c48c",
        edgecolor="#9a6700",
        linewidth=0.5,
    )
    right.set_xlabel("cost per conversation (US$)")
    right.set_ylabel("conversations")
    for axes in (left, right):
        axes.spines[["top", "right"]].set_visible(False)
    return _svg(figure, "cost")


@report_section
class Cost(ReportSection):
    """Model cost and tokens by module and per conversation (shown when models were used)."""

    name = "cost"
    title = "Model cost"
    order = 60
    reads = frozenset({Slot.CONVERSATIONS})

    def applies(self, run: RunView) -> bool:
        return bool(run.summary.usage)

    def render(self, run: RunView) -> SectionHtml:
        usage = run.summary.usage
        plot = cost_plot({m: u.cost for m, u in usage.items()}, [r.cost for r in run.records])
        html = render_template("cost.html.j2", plot=plot, usage=list(usage.items()))
        total = run.summary.cost
        summary = f"US${total:.4f} over {run.summary.conversations} conversations"
        return SectionHtml(html, summary=summary)
