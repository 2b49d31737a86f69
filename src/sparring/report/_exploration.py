"""The exploration section: what ``explore`` learnt about the chatbot (its functionality
model, drawn as the workflow graph) and, for a tested run, the black-box coverage — covered
nodes filled green in the graph, and per node the parameters and option values exercised.

A reader of explore's results through ``sparring.explore``'s public API, as the rules
section reads check's."""

from __future__ import annotations

from pathlib import Path

from sparring.conversations import Slot, read_json_model
from sparring.explore import Coverage, ExplorationModel, read_coverage, workflow_svg
from sparring.report._section import (
    ROOT,
    ReportSection,
    SectionHtml,
    inline_svg,
    percent,
    render_template,
    report_section,
)
from sparring.report._view import RunView

MODEL_FILE = f"{Slot.EXPLORE.value}/model.json"


@report_section
class Exploration(ReportSection):
    """The explored model, its workflow graph and the run's coverage of it."""

    name = "exploration"
    title = "Explored functionalities and coverage"
    order = 40
    reads = frozenset({ROOT, Slot.CONVERSATIONS, Slot.EXPLORE, Slot.RESULTS})

    def applies(self, run: RunView) -> bool:
        return run.optional_file(MODEL_FILE) is not None

    def render(self, run: RunView) -> SectionHtml:
        path = run.optional_file(MODEL_FILE)
        if path is None:
            raise FileNotFoundError(MODEL_FILE)
        model = read_json_model(Path(path), ExplorationModel)
        measured = read_coverage(run.path)
        covered = measured.covered_ids if measured is not None else None
        svg = workflow_svg(model, covered)
        by_id = {f.id: f for f in measured.functionalities} if measured is not None else {}
        html = render_template(
            "exploration.html.j2",
            model=model,
            coverage=measured,
            by_id=by_id,
            svg=inline_svg(svg) if svg else None,
            pct=percent,
        )
        return SectionHtml(html, summary=_summary(model, measured))


def _summary(model: ExplorationModel, measured: Coverage | None) -> str:
    partial = "" if model.complete else " (partial)"
    found = f"{len(model.functionalities)} functionalities explored{partial} ({model.strategy})"
    if measured is None or measured.functionality_share is None:
        return found
    return f"{found}; {len(measured.covered_ids)} covered ({percent(measured.functionality_share)})"
