"""The metamorphic section: what ``sparring metamorphic`` found in this run — MORTAR's
metrics, and each violated relation with the source and the follow-up side by side.

A reader of ``metamorphic.json`` through the metamorphic package (never running it)."""

from __future__ import annotations

from sparring.conversations import Slot
from sparring.metamorphic import (
    METAMORPHIC,
    METAMORPHIC_FILE,
    RelationCheck,
    read_metamorphic,
)
from sparring.precision import precision_note
from sparring.report._excerpt import conversation_href
from sparring.report._section import (
    ROOT,
    ReportSection,
    SectionHtml,
    fragment,
    report_section,
)
from sparring.report._view import RunView

BUGS_SHOWN = 100
_RANK = {"high": 0, "medium": 1, "low": 2, None: 3}
_RELATIONS = {
    "MR1": "context-preserving: the reply should stay similar",
    "MR2": "context-altering: the reply should change",
    "MR3": "inner-group consistency: the same question, the same context, similar replies",
    "MR4": "inter-group divergence: the same question, another context, different replies",
    "EX": "exact values: computed values must not change",
}

_TEMPLATE = """\
{% macro side(title, answerable, question, reply) %}
<div><div class="muted-block">{{ title }}{% if answerable is not none %} ({{
"answerable" if answerable else "not answerable" }}){% endif %}</div>
<div class="bubble">{{ question }}</div>
<div class="bubble reply">{{ reply }}</div></div>
{% endmacro %}
<p>{{ m.bugs }} violated relations ({{ m.unique_bugs }} unique) in {{ m.effective_test_cases }}
effective follow-ups of {{ m.test_cases }}{% if m.bugs_per_test_case is not none %},
{{ "%.2f" | format(m.bugs_per_test_case) }} per effective follow-up{% endif %}.
Similarity: <strong>{{ r.similarity }}</strong> (threshold {{ r.threshold }});
answerability: <strong>{{ r.answerability or "—" }}</strong>.{% if not r.complete %}
<span class="error">(incomplete: run the job again to resume)</span>{% endif %}</p>
{% for note in r.notes %}<p class="note">{{ note }}</p>{% endfor %}
<p class="note">offline judge: {{ precision }}</p>
<table>
<tr><th>relation</th><th>meaning</th><th class="num">bugs</th></tr>
{% for name, meaning in relations.items() %}
<tr><td>{{ name }}</td><td>{{ meaning }}</td>
<td class="num">{{ m.by_relation.get(name, 0) }}</td></tr>
{% endfor %}
</table>
<p class="muted-block">By perturbation: {{ counts(m.by_perturbation) }} · by severity:
{{ counts(m.by_severity) }}{% if m.by_level %} · by level (gold answers):
{{ counts(m.by_level) }}{% endif %}</p>
{% if bugs %}
<h3>Violations, source and follow-up side by side{% if hidden %} (first
{{ bugs | length }}){% endif %}</h3>
{% for b in bugs %}
<div class="failure">
<div><span class="status status-fail">{{ b.relation }}</span>
<span class="tag">{{ b.perturbation }}</span> <span class="tag">severity {{ b.severity }}</span>
{% if b.level %}<span class="tag">{{ b.level }}</span>{% endif %}
<a href="{{ href(b.follow_up) }}">{{ b.follow_up }}</a> round {{ b.position }}
(source round {{ b.source_round }}){% if b.similarity is not none %} ·
{{ b.method }} similarity {{ "%.2f" | format(b.similarity) }}{% endif %}
{% if b.severity_reason %}<div class="muted">severity {{ b.severity_reason }}</div>{% endif %}</div>
<div class="mr-pair">
{% if b.reference_position is not none %}
{{ side("follow-up round %d" % b.reference_position, b.source_answerable, b.question,
        b.reference) }}
{% else %}
{{ side("source round %d" % b.source_round, b.source_answerable, b.question, b.reference) }}
{% endif %}
{{ side("follow-up round %d" % b.position, b.answerable, b.follow_up_question, b.reply) }}
</div>
{% if b.gold %}<div class="muted-block">gold answer: {{ b.gold }}</div>{% endif %}
<div class="note">{{ b.reason }}</div>
</div>
{% endfor %}
{% endif %}
{% if r.skipped %}
<details><summary>{{ r.skipped | length }} seeds skipped</summary>
<ul>{% for s in r.skipped %}<li>{{ s.seed }}: {{ s.reason }}</li>{% endfor %}</ul></details>
{% endif %}
"""


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "none"


@report_section
class Metamorphic(ReportSection):
    """MORTAR's metrics and the violated relations of a ``metamorphic`` run."""

    name = "metamorphic"
    title = "Metamorphic testing"
    order = 66
    reads = frozenset({ROOT, Slot.CONVERSATIONS, Slot.RESULTS})

    def applies(self, run: RunView) -> bool:
        return run.job_result(METAMORPHIC) is not None

    def render(self, run: RunView) -> SectionHtml:
        result = read_metamorphic(run.path)
        if result is None:
            raise FileNotFoundError(METAMORPHIC_FILE)
        ranked: list[RelationCheck] = sorted(
            result.bugs, key=lambda b: (_RANK[b.severity], b.similarity or 0.0)
        )
        html = fragment(
            _TEMPLATE,
            r=result,
            m=result.metrics,
            relations=_RELATIONS,
            bugs=ranked[:BUGS_SHOWN],
            hidden=len(ranked) > BUGS_SHOWN,
            counts=_counts,
            href=conversation_href,
            precision=precision_note("metamorphic", "bug"),
        )
        metrics = result.metrics
        summary = (
            f"metamorphic: {metrics.bugs} violated relations in {metrics.effective_test_cases}"
            f" effective follow-ups of {metrics.test_cases}"
        )
        return SectionHtml(html, summary=summary)
