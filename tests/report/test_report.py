"""The report of a run: its sections, the verdict, failures with excerpts, escaping of
hostile chatbot text, plots, and bad input."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from report_builders import HOSTILE, check_run, conversation, make_run, standard_run

from sparring.conversations import ModelUsage
from sparring.errors import ConfigError, UserInputError
from sparring.report import RunView, excerpt_lines, render_report, write_report

DATA_BLOCK = re.compile(
    r'<script type="application/json" id="sparring-conversations"[^>]*>(.*?)</script>', re.S
)


def sections_of(html: str) -> dict[str, str]:
    """Each ``<section id=…>``'s HTML by id, in page order."""
    parts = re.split(r'<section id="([\w-]+)"', html)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}


def embedded_conversations(html: str) -> list[dict[str, Any]]:
    """The conversations the page embeds for its script."""
    match = DATA_BLOCK.search(html)
    assert match is not None
    data: list[dict[str, Any]] = json.loads(match.group(1))
    return data


def test_report_is_written_in_the_run_with_every_section_in_order(tmp_path: Path) -> None:
    store = standard_run(tmp_path)
    path = write_report(store.path)
    assert path == store.path / "report" / "index.html"
    html = path.read_text(encoding="utf-8")
    assert list(sections_of(html)) == [
        "verdict",
        "overview",
        "failures",
        "rules",
        "response-times",
        "conversations",
    ]
    assert not [p.name for p in path.parent.iterdir() if p.name != "index.html"]  # atomic


def test_the_verdict_says_failed_and_why(tmp_path: Path) -> None:
    html = write_report(standard_run(tmp_path).path).read_text()
    verdict = sections_of(html)["verdict"]
    assert "verdict-failed" in verdict
    assert "1 rule failed: polite" in verdict
    assert "generic failures: timeout 1" in verdict
    assert 'href="#conversations">Conversations</a>: 3 conversations, 2 failing' in verdict


def test_failures_show_the_turns_around_them_and_link_the_conversation(tmp_path: Path) -> None:
    failures = sections_of(write_report(standard_run(tmp_path).path).read_text())["failures"]
    rule = failures.split('id="rule-rules-')[1]
    assert 'href="#conv=rude%2F0"' in rule
    assert "What a stupid question" in rule  # the reply that broke the rule …
    assert '<div class="turn hit"><span class="who">3 assistant</span>' in rule  # … is marked
    assert "strategy offline" in rule
    timeout = failures.split('id="failure-timeout"')[1]
    assert "504 timeout" in timeout
    assert 'href="#conv=slow%2F0"' in timeout
    assert "failure 504 at turn 3 · user simulator agenda" in timeout
    assert "One moment" in timeout and "turn hit" in timeout


def test_hostile_chatbot_text_is_never_markup(tmp_path: Path) -> None:
    html = write_report(standard_run(tmp_path).path).read_text()
    assert "pwned" in html
    assert '<script>alert("pwned")' not in html
    assert "<img src=x" not in html
    assert "&lt;script&gt;alert(&#34;pwned&#34;)" in sections_of(html)["failures"]
    # the JSON block cannot be closed by the text, and reads back verbatim
    assert html.count("</script>") == 2  # the data block and the page script, nothing else
    rude = next(c for c in embedded_conversations(html) if c["id"] == "rude/0")
    assert rude["turns"][3][1] == f"What a stupid question {HOSTILE}"


def test_conversation_data_holds_turns_buttons_latency_failures_outputs(tmp_path: Path) -> None:
    html = write_report(standard_run(tmp_path).path).read_text()
    data = {c["id"]: c for c in embedded_conversations(html)}
    slow = data["slow/0"]
    assert slow["errors"] == [[504, "timeout", "failure 504", None, 3]]
    assert slow["turns"][1] == ["assistant", "Hello!", 2.0, [["Buy", "/buy"]]]
    assert slow["outputs"] == [["price", 12.5, "float", "offline", "12.5 $", None]]
    assert slow["variables"] == {"item": "hat", "sizes": ["S", "M"]}
    assert data["rude/0"]["failed"] == ["polite"]
    assert data["rude/0"]["verdicts"][0][:2] == ["polite", "fail"]
    assert data["ok/0"]["failed"] == [] and data["ok/0"]["errors"] == []


def test_rule_table_counts_and_strategy(tmp_path: Path) -> None:
    rules = sections_of(write_report(standard_run(tmp_path).path).read_text())["rules"]
    row = rules.split('href="#rule-rules-')[1].split("</tr>")[0]
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
    # status, kind, checks, pass, fail, errors, unscored, n/a, fail rate, strategy
    assert [re.sub(r"<[^>]+>", "", c) for c in cells[:10]] == [
        "fail", "single", "3", "2", "1", "0", "0", "0", "33.33%", "offline",
    ]  # fmt: skip
    assert ">timeout</a>" in rules  # the generic row links to its failures


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        (None, "sparring check RULES --run run"),
        ("name: p\nconversations: 1\noracle: not chatbot_returns('xyz')\n", "passed"),
        ("name: p\nconversations: 1\nwhen: false\noracle: true\n", "not applicable"),
    ],
)
def test_verdict_without_failures(tmp_path: Path, rules: str | None, expected: str) -> None:
    store = make_run(tmp_path / "run", [conversation("a/0", ["Hi"]), conversation("b/0", ["Hi"])])
    if rules is not None:
        check_run(store, tmp_path, rules)
    verdict = RunView.open(store.path).verdict
    assert verdict.status == ("passed" if expected == "passed" else "no verdict")
    assert expected in " ".join(verdict.reasons)
    assert str(tmp_path) not in " ".join(verdict.reasons)  # the run is named, not the folder


def test_response_time_plot_is_inline_svg_with_percentiles(tmp_path: Path) -> None:
    records = [conversation(f"a/{i}", ["x"] * 4, latency=0.25) for i in range(3)]
    html = write_report(make_run(tmp_path / "run", records).path).read_text()
    section = sections_of(html)["response-times"]
    assert "<svg" in section and "<?xml" not in section and "DOCTYPE svg" not in section
    # latencies 0.25, 0.5, 0.75, 1.0 in each conversation: p50 0.625, p95 1.0
    assert "p50 0.625 s, p95 1.000 s over 12 chatbot turns" in html
    assert "cost" not in sections_of(html)  # no model was used


def test_cost_section_appears_when_models_were_used(tmp_path: Path) -> None:
    usage = {"user_simulator": ModelUsage(calls=2, prompt_tokens=100, completion_tokens=20,
                                          cost=0.25)}  # fmt: skip
    records = [conversation(f"a/{i}", ["x"], usage=usage, simulator="llm") for i in range(4)]
    html = write_report(make_run(tmp_path / "run", records).path).read_text()
    cost = sections_of(html)["cost"]
    assert "<svg" in cost
    assert '<td>user_simulator</td><td class="num">8</td>' in cost
    assert "US$1.0000 over 4 conversations" in html
    assert '<span class="tag">llm × 4</span>' in sections_of(html)["overview"]


def test_excerpt_keeps_the_turns_around_the_failure_with_gaps() -> None:
    record = conversation("a/0", [f"reply {n}" for n in range(5)])  # turns 0..9
    lines = excerpt_lines(record, [5])
    assert [(line.index, line.hit) for line in lines] == [
        (None, False), (4, False), (5, True), (6, False), (None, False),
    ]  # fmt: skip
    assert [line.index for line in excerpt_lines(record, [])] == [None, 8, 9]
    assert [line.index for line in excerpt_lines(record, [99])] == [None, 8, 9]


def test_big_runs_are_paginated_in_the_browser(tmp_path: Path) -> None:
    records = [conversation(f"p/{i}", ["hi", "bye"]) for i in range(120)]
    html = render_report(RunView.open(make_run(tmp_path / "run", records).path))
    assert 'data-page-size="50"' in html
    assert len(embedded_conversations(html)) == 120
    assert html.count("<tr>") < 60  # the index rows are built by the script, 50 at a time


def test_not_a_run_directory_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserInputError, match="not a run directory"):
        write_report(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(UserInputError, match=r"empty: not a run directory \(no manifest.json\)"):
        write_report(tmp_path / "empty")


def test_an_unreadable_record_is_named(tmp_path: Path) -> None:
    store = make_run(tmp_path / "run", [conversation("a/0", ["hi"])])
    bad = store.conversations_dir / "broken.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        write_report(store.path)
    assert str(bad) in str(caught.value)
    assert not (store.path / "report" / "index.html").exists()
