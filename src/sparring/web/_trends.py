"""A project's trends across its runs (issue 37): pass rate per rule, generic failures per
code, chatbot response time (p50, p95) and model cost in US dollars, one point per run,
drawn server-side with matplotlib as SVG (shown as ``<img>`` of a ``data:`` URL: the CSP
allows no inline style, and nothing in an image can run; no script, no CDN).

Each run's point is read once through the report's ``RunView`` and cached under the parts
of the run it reads (``conversations``, ``verdicts``: a check applied later moves it); the
worker computes it when a run ends (``_run_page.warm``). The page reads cached points and
draws the four plots, cached under the points they show.
"""

from __future__ import annotations

import base64
import hashlib
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.core.cache import cache

from sparring.errors import UserInputError
from sparring.web.models import Run

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_READS = frozenset({"conversations", "verdicts"})
COLOURS = ("#0969da", "#cf222e", "#9a6700", "#1a7f37", "#8250df", "#bf3989", "#57606a",
           "#0a7ea4", "#bc4c00", "#6e7781")  # fmt: skip
MARKERS = ("o", "s", "^", "D", "v", "P", "X")
"""Series are told apart by colour and marker (lines at the same value overlap)."""


@dataclass(frozen=True)
class RunPoint:
    """One run as the trends see it: ``rules`` maps each rule to (passed, scored) — the
    checks that ended in pass, and in pass or fail (not applicable and unscored left out);
    ``codes`` the conversations carrying each generic failure; ``p50``/``p95`` the
    chatbot's response time in seconds (``None`` without timed turns); ``cost`` the model
    cost in US dollars."""

    run: int
    conversations: int
    rules: dict[str, tuple[int, int]] = field(default_factory=dict)
    codes: dict[str, int] = field(default_factory=dict)
    p50: float | None = None
    p95: float | None = None
    cost: float = 0.0


def _percentile(values: Sequence[float], share: float) -> float | None:
    """The ``share`` quantile of ``values`` (linear between the closest ranks)."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * share
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _read(run: Run) -> RunPoint:
    from sparring._gc import paused_gc
    from sparring.report import RunView

    with paused_gc():  # many short-lived acyclic objects (sparring._gc)
        view = RunView.open(Path(run.path))
        latencies: list[float] = []
        codes: dict[str, int] = {}
        cost = 0.0
        for record in view.records:
            latencies += record.response_times
            cost += record.cost
            for name in {e.name for e in record.errors}:
                codes[name] = codes.get(name, 0) + 1
        rules: dict[str, tuple[int, int]] = {}
        for _, result in view.rule_results():
            passed, scored = rules.get(result.rule, (0, 0))
            rules[result.rule] = (passed + result.counts.passed, scored + result.counts.scored)
        return RunPoint(
            run=run.pk,
            conversations=len(view.records),
            rules=rules,
            codes=codes,
            p50=_percentile(latencies, 0.5),
            p95=_percentile(latencies, 0.95),
            cost=cost,
        )


def _key(run: Run) -> str | None:
    from sparring.web._run_page import fingerprint

    parts = fingerprint(Path(run.path), _READS)
    return None if not parts else f"sparring-trend-point:{run.pk}:{parts}"


def run_point(run: Run) -> RunPoint | None:
    """``run``'s point, cached while its conversations and verdicts are unchanged;
    ``None`` when the run cannot be read (its folder gone, a broken file)."""
    key = _key(run)
    if key is None:
        return None
    found = cache.get(key)
    if isinstance(found, RunPoint):
        return found
    try:
        found = _read(run)
    except (UserInputError, OSError, ValueError):
        return None
    cache.set(key, found, timeout=None)
    return found


@dataclass(frozen=True)
class Plot:
    """One trend plot: ``name`` (its anchor), ``title`` and ``image`` (a ``data:`` URL of
    its SVG)."""

    name: str
    title: str
    image: str


def _figure() -> Figure:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(8.0, 2.8), dpi=96)
    figure.set_layout_engine("constrained")
    return figure


def _image(figure: Figure, salt: str) -> str:
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": salt}):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    data = base64.b64encode(buffer.getvalue().encode("utf-8")).decode("ascii")
    return f"data:image/svg+xml;base64,{data}"


def _lines(
    points: list[RunPoint],
    series: dict[str, list[float | None]],
    ylabel: str,
    salt: str,
    top: float | None = None,
) -> str:
    """A line per series over the runs; the y axis from 0 (to ``top`` when given)."""
    from matplotlib.ticker import MaxNLocator

    figure = _figure()
    axes = figure.add_subplot()
    x = list(range(len(points)))
    for index, (label, values) in enumerate(series.items()):
        shown = [math.nan if v is None else v for v in values]
        colour = COLOURS[index % len(COLOURS)]
        marker = MARKERS[index % len(MARKERS)]
        axes.plot(x, shown, marker=marker, markersize=5, color=colour, label=label, alpha=0.85)
    axes.set_xticks(x, [f"#{p.run}" for p in points], fontsize=8)
    axes.set_xlabel("run (oldest first)")
    axes.set_ylabel(ylabel)
    axes.grid(alpha=0.3)
    axes.set_ylim(bottom=0, top=top)
    if ylabel == "conversations":
        axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    if series:
        axes.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.0, 0.5))
    return _image(figure, salt)


def trend_plots(points: list[RunPoint]) -> list[Plot]:
    """The four plots of ``points`` (oldest first): pass rate per rule (%), conversations
    with each generic failure, response time p50/p95 (s), model cost (US$)."""
    rule_names = sorted({name for p in points for name in p.rules})
    code_names = sorted({name for p in points for name in p.codes})

    def rate(point: RunPoint, rule: str) -> float | None:
        passed, scored = point.rules.get(rule, (0, 0))
        return 100.0 * passed / scored if scored else None

    rates = {rule: [rate(p, rule) for p in points] for rule in rule_names}
    codes: dict[str, list[float | None]] = {
        code: [float(p.codes.get(code, 0)) for p in points] for code in code_names
    }
    latency: dict[str, list[float | None]] = {
        "p50": [p.p50 for p in points],
        "p95": [p.p95 for p in points],
    }
    cost: dict[str, list[float | None]] = {"cost": [p.cost for p in points]}
    return [
        Plot(
            "pass-rate", "Pass rate per rule", _lines(points, rates, "passed (%)", "pass", top=105)
        ),
        Plot(
            "failures", "Generic failures per code", _lines(points, codes, "conversations", "codes")
        ),
        Plot("latency", "Response time", _lines(points, latency, "seconds", "latency")),
        Plot("cost", "Model cost", _lines(points, cost, "US$", "cost")),
    ]


def cached_plots(points: list[RunPoint]) -> list[Plot]:
    """``trend_plots``, cached under the points they draw."""
    digest = hashlib.sha256(repr(points).encode("utf-8")).hexdigest()
    key = f"sparring-trend-plots:{digest}"
    found = cache.get(key)
    if isinstance(found, list):
        return found
    plots = trend_plots(points)
    cache.set(key, plots, timeout=None)
    return plots


def table(points: list[RunPoint]) -> list[dict[str, Any]]:
    """The figures the plots draw, one row per run (the page's table under them)."""
    rows = []
    for p in points:
        passed = sum(v[0] for v in p.rules.values())
        scored = sum(v[1] for v in p.rules.values())
        rows.append(
            {
                "run": p.run,
                "conversations": p.conversations,
                "pass_rate": 100.0 * passed / scored if scored else None,
                "failures": sum(p.codes.values()),
                "p50": p.p50,
                "p95": p.p95,
                "cost": p.cost,
            }
        )
    return rows
