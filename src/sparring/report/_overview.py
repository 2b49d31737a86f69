"""The overview section: what was run and the pass/fail counts behind the verdict."""

from __future__ import annotations

from sparring.conversations import ErrorCode, percentile
from sparring.report._excerpt import anchor
from sparring.report._section import ReportSection, SectionHtml, fragment, report_section
from sparring.report._view import RunView
from sparring.results import Counts

_CODES = {code.rule_name: int(code) for code in ErrorCode}
_TEMPLATE = """
<div class="grid">
<table class="kv">
  <tr><th>chatbot</th><td>{{ chatbot }}</td></tr>
  {% if endpoint %}<tr><th>endpoint</th><td>{{ endpoint }}</td></tr>{% endif %}
  <tr><th>job</th><td>{{ job }}{% if source %} from {{ source }}{% endif %}</td></tr>
  <tr><th>created</th><td>{{ created }}</td></tr>
  <tr><th>user simulators</th><td>{% for name, n in simulators %}<span class="tag">{{ name }} × {{ n }}</span>{% endfor %}</td></tr>
  <tr><th>profiles</th><td>{{ profiles }}</td></tr>
  <tr><th>rule sets</th><td>{% for name, model in reports %}<span class="tag">{{ name }} ({{ model }})</span>{% else %}none checked{% endfor %}</td></tr>
</table>
<table class="kv">
  <tr><th>conversations</th><td class="num">{{ s.conversations }}</td></tr>
  <tr><th>with a generic failure</th><td class="num">{{ s.failures.conversations }}</td></tr>
  <tr><th>chatbot turns / user turns</th><td class="num">{{ s.turns }} / {{ s.user_turns }}</td></tr>
  <tr><th>response time p50 / p95</th><td class="num">{{ p50 }} / {{ p95 }}</td></tr>
  <tr><th>model cost</th><td class="num">${{ "%.4f" | format(s.cost) }} ({{ s.tokens }} tokens)</td></tr>
  {% if counts %}
  <tr><th>rule checks</th><td class="num">
    <span class="status status-pass">{{ counts.passed }} pass</span>
    <span class="status status-fail">{{ counts.fail }} fail</span>
    <span class="status status-error">{{ counts.error }} error</span>
    <span class="status status-unscored">{{ counts.unscored }} unscored</span>
    <span class="status status-not_applicable">{{ counts.not_applicable }} n/a</span></td></tr>
  {% endif %}
</table>
</div>
{% if generic %}
<h3>Generic failures</h3>
<table>
  <tr><th class="num">code</th><th>failure</th><th class="num">conversations</th><th>by profile</th></tr>
  {% for name, anchor, code, n, profiles in generic %}
  <tr><td class="num">{{ code }}</td><td><a href="#{{ anchor }}">{{ name }}</a></td><td class="num">{{ n }}</td>
    <td>{% for p, k in profiles %}<span class="tag">{{ p }} {{ k }}</span>{% endfor %}</td></tr>
  {% endfor %}
</table>
{% endif %}
"""


def _seconds(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f} s"


@report_section
class Overview(ReportSection):
    """What was run (chatbot, job, simulators, rule sets) and the counts behind the
    verdict: conversations, generic failures by SENSEI code, rule checks by status."""

    name = "overview"
    title = "Overview"
    order = 10

    def render(self, run: RunView) -> SectionHtml:
        s = run.summary
        latencies = [t for record in run.records for t in record.response_times]
        counts = Counts()
        for _, result in run.rule_results():
            for key in ("passed", "fail", "error", "unscored", "not_applicable"):
                setattr(counts, key, getattr(counts, key) + getattr(result.counts, key))
        by_profile = s.failures.by_profile
        generic = [
            (name, anchor("failure", name), _CODES.get(name, name.removeprefix("error_")), s.failures.by_code[name],
             [(p, c[name]) for p, c in by_profile.items() if name in c])
            for name in run.generic_failures
        ]  # fmt: skip
        info = run.manifest.chatbot.get("info") or {}
        html = fragment(
            _TEMPLATE,
            s=s,
            chatbot=info.get("name") or run.manifest.chatbot.get("connector") or "unknown",
            endpoint=run.manifest.endpoint,
            job=run.manifest.job,
            source=run.manifest.settings.get("source") if run.imported else None,
            created=run.manifest.created_at.strftime("%Y-%m-%d %H:%M UTC"),
            simulators=sorted(run.simulators.items()),
            profiles=len(s.profiles),
            reports=[(n, r.model or "offline") for n, r in run.check_reports.items()],
            p50=_seconds(percentile(latencies, 50) if latencies else None),
            p95=_seconds(s.response_time.p95),
            counts=counts if run.check_reports else None,
            generic=generic,
        )
        failing = s.failures.conversations
        return SectionHtml(html, summary=f"{s.conversations} conversations, {failing} with a "
                                         "generic failure")  # fmt: skip
