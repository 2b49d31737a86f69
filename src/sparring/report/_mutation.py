"""The mutation section: what ``sparring mutate`` found, shown in the report of its job
folder (which is the original bot's run): the mutation score, per-operator counts, which
rule or generic failure killed which mutant, and the live mutants' diffs.

A reader of ``mutation.json`` through the mutation package (never running it)."""

from __future__ import annotations

from pathlib import Path

from sparring.conversations import Slot, read_json_model

# Not exported from sparring.mutation yet (its __init__ is owned elsewhere).
from sparring.mutation import MUTATION, MUTATION_FILE, MutationResult
from sparring.report._section import (
    ROOT,
    ReportSection,
    SectionHtml,
    percent,
    render_template,
    report_section,
)
from sparring.report._view import RunView

_CSS = {"killed": "pass", "live": "fail", "stillborn": "unscored", "error": "error"}
"""A killed mutant is good news (green); a live one is a gap in the rules (red)."""


@report_section
class Mutation(ReportSection):
    """The mutation score and the mutants of a ``mutate`` job."""

    name = "mutation"
    title = "Mutation testing"
    order = 65
    reads = frozenset({ROOT, Slot.CONVERSATIONS, Slot.RESULTS})

    def applies(self, run: RunView) -> bool:
        return run.job_result(MUTATION) is not None

    def render(self, run: RunView) -> SectionHtml:
        path = run.job_result(MUTATION)
        if path is None:
            raise FileNotFoundError(MUTATION_FILE)
        result = read_json_model(Path(path), MutationResult)
        html = render_template(
            "mutation.html.j2",
            result=result,
            killers=result.killed_by_table(),
            live=[m for m in result.mutants if m.status == "live"],
            css=_CSS,
            pct=percent,
        )
        summary = (
            f"mutation score {percent(result.score)}: {result.count('killed')} killed, "
            f"{result.count('live')} live, {result.count('stillborn')} stillborn"
        )
        return SectionHtml(html, summary=summary)
