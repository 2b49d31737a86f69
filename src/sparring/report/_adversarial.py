"""The adversarial section: what ``sparring adversarial test`` found (Agent-Testing Agent,
arXiv 2508.17393, §3.3): the model's executive summary, patterns and prioritised
recommendations when it wrote them (else only the measured parts), per-weakness scores and
difficulty trajectories, and the paper's bubble chart — difficulty against score, one
bubble per test, each linking to its conversation page (``#conv=<id>``).

A reader of ``adversarial.json`` through ``sparring.adversarial``'s public API (never
running it). The charts are matplotlib SVG inlined, with links (no script, no CDN)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from markupsafe import Markup

from sparring.adversarial import ADVERSARIAL, ADVERSARIAL_FILE, AdversarialResult, AdversarialTest
from sparring.conversations import Slot, read_json_model
from sparring.report._excerpt import conversation_href
from sparring.report._plots import _figure, _svg
from sparring.report._section import (
    ROOT,
    ReportSection,
    SectionHtml,
    render_template,
    report_section,
)
from sparring.report._view import RunView
from sparring.types import ModelUsage

PALETTE = (
    "#0969da", "#cf222e", "#1a7f37", "#9a6700", "#8250df",
    "#bf3989", "#0a7e8c", "#6e7781", "#d4a72c", "#57606a",
)  # fmt: skip
"""One colour per weakness (cycled)."""
BUBBLE_AREA = 60.0
"""Bubble area per user turn (points²), on top of ``BUBBLE_BASE``."""
BUBBLE_BASE = 60.0


def _css(test: AdversarialTest) -> str:
    if test.status == "chatbot_failure":
        return "error"
    if test.score is None:
        return "unscored"
    return "pass" if test.score >= 5.5 else "fail"


def bubble_chart(result: AdversarialResult) -> Markup | None:
    """Difficulty (x, 1–10) against overall score (y, 1–10), one bubble per scored test
    sized by its user turns and coloured by weakness; each bubble links to its
    conversation. ``None`` when no test is scored."""
    from matplotlib.collections import PathCollection

    figure = _figure(8.0, 4.2)
    axes = figure.add_subplot()
    plotted = False
    for n, weakness in enumerate(result.weaknesses):
        tests = [t for t in result.tests_of(weakness.id) if t.score is not None]
        if not tests:
            continue
        plotted = True
        bubbles = axes.scatter(
            [t.difficulty for t in tests],
            [t.score or 0.0 for t in tests],
            s=[BUBBLE_BASE + BUBBLE_AREA * t.turns for t in tests],
            color=PALETTE[n % len(PALETTE)],
            alpha=0.6,
            edgecolors="white",
            linewidths=0.8,
            label=weakness.id,
        )
        bubbles.set_urls([conversation_href(t.conversation_id or "") for t in tests])
    if not plotted:
        return None
    _axes_1_to_10(axes, "difficulty", "overall score")
    axes.axhline(5.5, color="#d8dee6", linewidth=1, zorder=0)
    legend = axes.legend(frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    for handle in legend.legend_handles:
        if isinstance(handle, PathCollection):  # legend bubbles of one size
            handle.set_sizes([60.0])
    # matplotlib opens links in a new window; the conversation pages are in this one.
    return Markup(str(_svg(figure, "adversarial-bubbles")).replace(' target="_blank"', ""))


def trajectory_chart(result: AdversarialResult) -> Markup | None:
    """Each weakness's difficulty (y, 1–10) by test (x: 1 = the first test's, then the
    difficulty after each test). ``None`` when there are no tests."""
    if not result.tests:
        return None
    figure = _figure(8.0, 2.8)
    axes = figure.add_subplot()
    for n, weakness in enumerate(result.weaknesses):
        points = result.trajectory(weakness.id)
        if points:
            axes.plot(
                range(1, len(points) + 1), points, marker="o", markersize=3,
                color=PALETTE[n % len(PALETTE)], label=weakness.id,
            )  # fmt: skip
    axes.set_ylim(0.5, 10.5)
    axes.set_xlabel("test (last point: the next difficulty)")
    axes.set_ylabel("difficulty")
    axes.spines[["top", "right"]].set_visible(False)
    axes.set_xticks(range(1, max(len(result.trajectory(w.id)) for w in result.weaknesses) + 1))
    axes.legend(frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _svg(figure, "adversarial-trajectories")


def _axes_1_to_10(axes: Any, xlabel: str, ylabel: str) -> None:
    axes.set_xlim(0.5, 10.5)
    axes.set_ylim(0.5, 10.5)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.set_xticks(range(1, 11))
    axes.set_yticks(range(1, 11))
    axes.spines[["top", "right"]].set_visible(False)


def _rows(result: AdversarialResult) -> list[dict[str, Any]]:
    rows = []
    for weakness in result.weaknesses:
        rows.append(
            {
                "weakness": weakness,
                "tests": result.tests_of(weakness.id),
                "mean": result.mean_score(weakness.id),
                "trajectory": " → ".join(f"{d:.2f}" for d in result.trajectory(weakness.id)),
                "usage": result.usage_of(weakness.id),
            }
        )
    return rows


def _total(result: AdversarialResult) -> ModelUsage:
    usage = result.usage_of()
    extra = result.analysis_usage
    return ModelUsage(
        calls=usage.calls + extra.calls,
        prompt_tokens=usage.prompt_tokens + extra.prompt_tokens,
        completion_tokens=usage.completion_tokens + extra.completion_tokens,
        cost=usage.cost + extra.cost,
    )


@report_section
class Adversarial(ReportSection):
    """The results of an ``adversarial test`` run."""

    name = "adversarial"
    title = "Adversarial testing"
    order = 25
    reads = frozenset({ROOT, Slot.CONVERSATIONS, Slot.RESULTS})

    def applies(self, run: RunView) -> bool:
        return run.job_result(ADVERSARIAL) is not None

    def render(self, run: RunView) -> SectionHtml:
        path = run.job_result(ADVERSARIAL)
        if path is None:
            raise FileNotFoundError(ADVERSARIAL_FILE)
        result = read_json_model(Path(path), AdversarialResult)
        scores = [t.score for t in result.tests if t.score is not None]
        mean = f"{sum(scores) / len(scores):.2f}" if scores else "—"
        counts: Counter[str] = Counter({"scored": 0, "unscored": 0, "chatbot_failure": 0})
        counts.update(t.status for t in result.tests)
        html = render_template(
            "adversarial.html.j2",
            result=result,
            rows=_rows(result),
            counts=counts,
            mean=mean,
            usage=_total(result),
            bubbles=bubble_chart(result),
            trajectories=trajectory_chart(result),
            href=conversation_href,
            css=_css,
        )
        means = [(m, w.id) for w in result.weaknesses if (m := result.mean_score(w.id)) is not None]
        lowest = f"; lowest: {min(means)[1]} ({min(means)[0]:.2f})" if means else ""
        summary = (
            f"{len(result.weaknesses)} weaknesses, {len(result.tests)} adversarial tests, "
            f"mean score {mean}/10{lowest}"
        )
        return SectionHtml(html, summary=summary)
