"""The imported annotations section: the breakdown annotations and ratings a run imported
from ChatChecker, beside sparring's own detectors.

``import-chatchecker`` keeps ChatChecker's per-turn breakdown annotation and its dialogue
ratings in each record (``extra["chatchecker"]``). This section shows them as they are —
annotated chatbot turns, breakdowns and their types, crash annotations, the mean of each
rating dimension — and, for every detector ``evaluate`` stored in the run, how often its
verdict agrees with the imported annotation on the turns both judged (a detector that
only ranks turns gets its AUC against them instead). The annotations are a model's
(ChatChecker's GPT-4o), not people's: they are shown as silver labels, not as truth.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from statistics import mean
from typing import Any

from sparring.conversations import CHATCHECKER, ConversationRecord, Slot
from sparring.evaluate import annotated_turns, auc
from sparring.report._breakdowns import stored_breakdowns
from sparring.report._section import ReportSection, SectionHtml, fragment, report_section
from sparring.report._view import RunView

_TEMPLATE = """
<p>{{ turns }} chatbot turns of {{ conversations }} conversations carry ChatChecker's
breakdown annotation: {{ breakdowns }} breakdowns ({{ "%.1f"|format(share * 100) }}%)
{%- if crashes %}, {{ crashes }} on a crash turn{% endif %}.
These are a model's annotations (silver labels), not people's.</p>
{% if types %}<table><tr><th>breakdown type (imported)</th><th>turns</th></tr>
{% for name, count in types %}<tr><td>{{ name }}</td><td>{{ count }}</td></tr>{% endfor %}
</table>{% endif %}
{% if ratings %}<table><tr><th>rating (imported)</th><th>mean</th><th>dialogues</th></tr>
{% for name, value, count in ratings %}<tr><td>{{ name }}</td><td>{{ "%.2f"|format(value) }}</td>
<td>{{ count }}</td></tr>{% endfor %}</table>{% endif %}
{% if agreement %}<table><tr><th>sparring's detector</th><th>turns judged by both</th>
<th>agreement with the imported labels</th><th>AUC of its score</th></tr>
{% for row in agreement %}<tr><td>{{ row.detector }}</td><td>{{ row.shared }}</td>
<td>{{ row.agreement }}</td><td>{{ row.auc }}</td></tr>{% endfor %}</table>{% endif %}
"""


def _imported(record: ConversationRecord) -> dict[str, Any]:
    kept = record.extra.get(CHATCHECKER)
    return kept if isinstance(kept, dict) else {}


def _ratings(records: list[ConversationRecord]) -> list[tuple[str, float, int]]:
    """(dimension, mean rating, dialogues) of ChatChecker's ``ratings``."""
    values: dict[str, list[float]] = {}
    for record in records:
        ratings = _imported(record).get("ratings")
        for name, rating in (ratings or {}).items() if isinstance(ratings, dict) else []:
            value = rating.get("rating") if isinstance(rating, dict) else rating
            if isinstance(value, int | float) and not isinstance(value, bool):
                values.setdefault(str(name), []).append(float(value))
    return [(name, mean(found), len(found)) for name, found in sorted(values.items())]


def _agreement(run: RunView, labels: Mapping[str, Mapping[int, str]]) -> list[dict[str, str]]:
    """Per stored detector: turns judged by both, agreement, AUC of its score."""
    rows: list[dict[str, str]] = []
    for stored in stored_breakdowns(run.path):
        same = shared = 0
        gold: list[bool] = []
        risk: list[float] = []
        for conversation in stored.conversations:
            found = labels.get(conversation.conversation, {})
            for turn in conversation.turns:
                if turn.turn not in found:
                    continue
                if turn.breakdown is not None:
                    shared += 1
                    same += turn.breakdown == (found[turn.turn] == "X")
                if turn.score is not None:
                    gold.append(found[turn.turn] == "X")
                    risk.append(1.0 - turn.score)
        area = auc(gold, risk) if 0 < sum(gold) < len(gold) else None
        if shared or area is not None:
            rows.append(
                {
                    "detector": stored.detector,
                    "shared": str(shared),
                    "agreement": f"{same / shared:.1%}" if shared else "- (labels no turn)",
                    "auc": "-" if area is None else f"{area:.3f}",
                }
            )
    return rows


@report_section
class ImportedBreakdowns(ReportSection):
    """ChatChecker's imported breakdown annotations and ratings, beside sparring's own."""

    name, title, order = "imported-breakdowns", "Imported breakdown annotations", 46
    reads = frozenset({Slot.CONVERSATIONS, Slot.EVALUATIONS})

    def applies(self, run: RunView) -> bool:
        return any(_imported(r).get("breakdowns") for r in run.records)

    def render(self, run: RunView) -> SectionHtml:
        labels = {r.id: annotated_turns(r) for r in run.records}
        labels = {key: found for key, found in labels.items() if found}
        turns = sum(len(found) for found in labels.values())
        breakdowns = sum(label == "X" for found in labels.values() for label in found.values())
        types: Counter[str] = Counter()
        crashes = 0
        for record in run.records:
            for annotation in _imported(record).get("breakdowns", []):
                crashes += bool(annotation.get("crash"))
                if annotation.get("decision") == "breakdown":
                    types.update(str(t) for t in annotation.get("breakdown_types") or [])
        html = fragment(
            _TEMPLATE,
            turns=turns,
            conversations=len(labels),
            breakdowns=breakdowns,
            share=breakdowns / turns if turns else 0.0,
            crashes=crashes,
            types=types.most_common(),
            ratings=_ratings(run.records),
            agreement=_agreement(run, labels),
        )
        summary = f"{breakdowns} of {turns} chatbot turns annotated as breakdowns by ChatChecker"
        return SectionHtml(html, summary=summary)
