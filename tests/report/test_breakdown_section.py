"""The breakdown section: after ``evaluate``, the report shows the detectors, a heatmap of
breakdown types × profile and the breakdown turns (types, score, reasoning, excerpt, link
to the conversation); text from the model is escaped; without evaluations it is absent."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from report_builders import HOSTILE, conversation, make_run

from sparring.evaluate import EvaluateJob, EvaluateSettings
from sparring.llm import ScriptedModel
from sparring.report import RunView, render_report, write_report
from sparring.runner import start


def responder(messages: list[dict[str, str]]) -> dict[str, Any]:
    judged = messages[-1]["content"].split("# Latest chatbot utterance to judge")[-1]
    if "stupid" in judged:
        return {
            "reasoning": f"Insults the user {HOSTILE}",
            "score": 0.05,
            "decision": "breakdown",
            "breakdown_types": ["lack of sociality", "ignore request"],
        }
    return {"reasoning": "Fine.", "score": 0.9, "decision": "no_breakdown", "breakdown_types": []}


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    records = [
        conversation("ok/0", ["Hello", "Here is your hat"], profile="polite"),
        conversation("rude/0", ["Hello", "You are stupid"], profile="rude"),
        conversation("rude/1", ["You are stupid", "Bye"], profile="rude"),
    ]
    path = make_run(tmp_path / "run", records).path
    model = ScriptedModel(responder)
    monkeypatch.setattr("sparring.llm.load_model", lambda *args: model)
    start(EvaluateJob(), EvaluateSettings(run=path, model="scripted", ratings=False))
    return path


def section(html: str) -> str:
    start = html.index('id="dialogue-breakdowns"')
    return html[start : html.index("</section>", start)]


@pytest.mark.usefixtures("report_sections")
def test_the_breakdown_section_appears_after_evaluate(run: Path) -> None:
    html = render_report(RunView.open(run))
    assert "2 breakdowns in 2 of 3 conversations (chatchecker)" in html
    part = section(html)
    assert "<svg" in part and "lack of sociality" in part  # the heatmap, text kept as text
    assert '<a href="#conv=rude%2F0">rude/0</a> · turn 4' in part
    assert '<a href="#conv=rude%2F1">rude/1</a> · turn 2' in part
    assert '<span class="tag">ignore request</span>' in part and "score 0.05" in part
    assert HOSTILE not in html and "Insults the user &lt;/script&gt;" in part
    assert part.count('class="excerpt"') == 2
    assert re.search(r"<td>chatchecker</td><td>scripted</td><td class=\"num\">3</td>", part)
    # the section sits between the rules (30) and the response times (50)
    assert html.index('id="dialogue-breakdowns"') < html.index('id="response-times"')


@pytest.mark.usefixtures("report_sections")
def test_no_section_without_evaluations(tmp_path: Path) -> None:
    path = make_run(tmp_path / "run", [conversation("a/0", ["hi"])]).path
    assert 'id="dialogue-breakdowns"' not in render_report(RunView.open(path))


@pytest.mark.usefixtures("report_sections")
def test_breakdown_turns_are_marked_on_the_conversation_page(run: Path, tmp_path: Path) -> None:
    from test_report_browser import CHROMIUM, chromium, console_errors

    html = render_report(RunView.open(run))
    data = html[html.index('id="sparring-conversations"') :]
    assert '"breakdowns":[[3,0.05,["lack of sociality","ignore request"]' in data
    if CHROMIUM is None:
        pytest.skip("chromium is not installed")
    report = write_report(run)
    done = chromium(tmp_path, report.as_uri() + "#conv=rude%2F0", "--dump-dom")
    assert console_errors(done.stderr) == []
    page = done.stdout.split('id="conversation-page"')[1]
    assert page.count('class="breakdown-note"') == 1
    assert "breakdown (chatchecker, score 0.05): lack of sociality, ignore request" in page


@pytest.mark.usefixtures("report_sections")
def test_an_offline_ranking_is_shown_as_turns_to_review_with_its_quality(
    tmp_path: Path,
) -> None:
    records = [
        conversation("a/0", ["When do you open?", "Bananas are yellow.", "Hm", "Bye"]),
        conversation("b/0", ["Hello", "Hello! How can I help?"]),
    ]
    path = make_run(tmp_path / "run", records).path
    start(EvaluateJob(), EvaluateSettings(run=path))
    html = render_report(RunView.open(path))
    part = section(html)
    assert "No breakdown was labelled: the offline detector labels only the breakdowns" in part
    assert "Turns to review: the offline detector" in part and "Not verdicts" in part
    assert (
        part.count('<div class="why">unscored: the offline detector ranks') == 6
    )  # every chatbot turn
    assert "offline · labels the breakdowns its typed detectors see" in part
    assert "6 turns ranked, not labelled" in html
