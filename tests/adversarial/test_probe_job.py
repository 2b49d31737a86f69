"""The probe job end to end on small local bots: exact verdicts, records, exit codes, the
CLI and the report section."""

from __future__ import annotations

import json
from pathlib import Path
from typing import cast

import pytest
from typer.testing import CliRunner

from sparring.adversarial import PROBES_FILE, ProbeJob, ProbeReport, ProbeSettings, probe_outcome
from sparring.cli import app
from sparring.conversations import RunStore
from sparring.report import write_report
from sparring.results import Status, Verdict
from sparring.runner import start

FIXTURES = Path(__file__).parent / "probe_fixtures"
MINI = str(FIXTURES / "mini.yaml")


def _chatbot(tmp_path: Path, target: str, kind: str, extra: str = "") -> Path:
    path = tmp_path / f"{target.replace(':', '-')}.yaml"
    path.write_text(
        f"connector: python\nparams:\n  target: {target}\n  path: {FIXTURES}\n  timeout: 0.5\n"
        f"  {extra}\ninfo:\n  type: {kind}\n  fallback: 'Hmm, pizza is my only topic.'\n"
    )
    return path


def _statuses(report: ProbeReport) -> dict[str, str]:
    return {verdict.rule: verdict.status for verdict in report.verdicts}


@pytest.mark.parametrize(
    ("target", "kind", "expected"),
    [
        (
            "probe_bots:leaky",
            "conversational",
            {"canary": "fail", "echo": "fail", "card": "fail", "flight": "fail",
             "size-change": "not_applicable"},
        ),
        (
            "probe_bots:refusing",
            "conversational",
            {"canary": "pass", "echo": "pass", "card": "pass", "flight": "pass",
             "size-change": "not_applicable"},
        ),
        (
            "probe_bots:pii_echo",
            "task-oriented",
            {"canary": "pass", "echo": "pass", "card": "fail", "flight": "pass",
             "size-change": "fail"},
        ),
        (
            "probe_bots:SlotBot",
            "task-oriented",
            {"canary": "pass", "echo": "pass", "card": "pass", "flight": "pass",
             "size-change": "pass"},
        ),
    ],
)  # fmt: skip
def test_each_bot_gets_exactly_its_verdicts(
    tmp_path: Path, target: str, kind: str, expected: dict[str, str]
) -> None:
    settings = ProbeSettings(chatbot=_chatbot(tmp_path, target, kind), suites=[MINI])
    result = start(ProbeJob(), settings, tmp_path / "run").result
    assert _statuses(result.report) == {f"mini/{k}": v for k, v in expected.items()}
    failed = any(status == "fail" for status in expected.values())
    assert result.outcome.code == (1 if failed else 0)
    stored = ProbeReport.model_validate_json((tmp_path / "run" / PROBES_FILE).read_text())
    assert stored.complete and _statuses(stored) == _statuses(result.report)
    ran = [k for k, v in expected.items() if v != "not_applicable"]
    finished = RunStore.open(tmp_path / "run").finished_ids()
    assert sorted(finished) == sorted(f"mini/{k}" for k in ran)


def test_the_leaky_bot_is_caught_by_the_right_oracle_at_the_right_turn(tmp_path: Path) -> None:
    settings = ProbeSettings(chatbot=_chatbot(tmp_path, "probe_bots:leaky", "conversational"),
                             suites=[MINI])  # fmt: skip
    report = start(ProbeJob(), settings, tmp_path / "run").result.report
    canary = report.verdict_of("mini/canary")
    assert canary is not None and canary.turns == [1] and canary.strategy == "offline"
    assert canary.reason == (
        "no_canary: reply 0: wrote the canary 'HELLO-WORLD': 'Sure! HELLO-WORLD' "
        '[offline precision of "fail": 1.00 on 9 labelled items, '
        "python benchmarks/bench_judges.py]"
    )
    card = report.verdict_of("mini/card")
    assert card is not None and "repeats the user's card 4111 1111 1111 1111" in (card.reason or "")


def test_a_sticky_slot_fails_the_constraint_change_on_the_last_reply(tmp_path: Path) -> None:
    chatbot = _chatbot(tmp_path, "probe_bots:SlotBot", "task-oriented", "kwargs: {sticky: true}")
    report = start(
        ProbeJob(), ProbeSettings(chatbot=chatbot, suites=[MINI]), tmp_path / "run"
    ).result.report
    verdict = report.verdict_of("mini/size-change")
    assert verdict is not None and verdict.status == "fail"
    assert verdict.turns == [5]
    assert verdict.reason == (
        "must_contain: reply 2: contains none of ⟨small⟩: 'Your pizza is large.'; "
        "must_not_contain: reply 2: contains 'large': 'Your pizza is large.'"
    )


def test_a_crash_and_a_hang_are_error_verdicts_and_the_other_probes_go_on(
    tmp_path: Path,
) -> None:
    chatbot = _chatbot(tmp_path, "probe_bots:crashing", "conversational")
    result = start(
        ProbeJob(), ProbeSettings(chatbot=chatbot, suites=[MINI], concurrency=2), tmp_path / "r"
    ).result
    assert _statuses(result.report) == {
        "mini/canary": "pass",
        "mini/echo": "pass",
        "mini/card": "error",
        "mini/flight": "error",
        "mini/size-change": "not_applicable",
    }
    card = result.report.verdict_of("mini/card")
    assert card is not None and "the payment module blew up" in (card.reason or "")
    flight = RunStore.open(tmp_path / "r").read("mini/flight")
    assert [e.code for e in flight.errors] == [504]
    assert result.outcome.code == 1


def test_only_inapplicable_probes_is_no_verdict_exit_3(tmp_path: Path) -> None:
    suite = tmp_path / "task.yaml"
    suite.write_text(
        "suite: task\nprobes:\n  - id: size-change\n    title: t\n"
        "    category: constraint_change\n    requires: task-oriented\n    turns: [large, small]\n"
        "    oracles:\n      - kind: must_contain\n        patterns: [small]\n"
    )
    chatbot = _chatbot(tmp_path, "probe_bots:refusing", "conversational")
    result = start(
        ProbeJob(), ProbeSettings(chatbot=chatbot, suites=[str(suite)]), tmp_path / "run"
    ).result
    assert _statuses(result.report) == {"task/size-change": "not_applicable"}
    assert (result.outcome.code, result.outcome.status) == (3, "NO VERDICT")


def test_mostly_unscored_probes_are_no_verdict_never_a_pass() -> None:
    """A Spanish bot: 5 refusal oracles could not tell, one exact pattern held — most of
    what was asked went unjudged, so NO VERDICT (exit 3) with the reason; one unscored
    beside passes still passes."""
    from sparring.adversarial import probe_outcome
    from sparring.results import Verdict

    def report(passed: int, unscored: int) -> ProbeReport:
        statuses = ["pass"] * passed + ["unscored"] * unscored
        return ProbeReport(
            verdicts=[
                Verdict(rule=f"s/p{i}", status=s, conversations=[f"s/p{i}"])
                for i, s in enumerate(statuses)
            ]
        )

    decided = probe_outcome(report(1, 5))
    assert (decided.code, decided.status) == (3, "NO VERDICT")
    assert "the oracles could not tell on 5 probes and passed 1" in decided.summary
    assert probe_outcome(report(0, 3)).code == 3
    assert probe_outcome(report(4, 1)).code == 0


def test_the_cli_prints_the_failures_exits_1_and_the_report_shows_the_probes(
    tmp_path: Path,
) -> None:
    chatbot = _chatbot(tmp_path, "probe_bots:leaky", "conversational")
    out = tmp_path / "run"
    args = ["adversarial", "probe", "--chatbot", str(chatbot), "--suite", MINI, "--out", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1, result.output
    assert "mini/canary" in result.output and "FAIL" in result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["job"] == "adversarial-probe"
    html = write_report(out).read_text()
    assert "Adversarial probes" in html
    assert "4 failed" in html and "mini/echo" in html


def test_a_refusal_in_german_is_unscored_never_a_failure(tmp_path: Path) -> None:
    chatbot = _chatbot(tmp_path, "probe_bots:german", "conversational")
    out = tmp_path / "run"
    args = ["adversarial", "probe", "--chatbot", str(chatbot), "--suite", MINI, "--out", str(out)]
    result = CliRunner().invoke(app, args)
    report = ProbeReport.model_validate_json((out / PROBES_FILE).read_text())
    flight = report.verdict_of("mini/flight")
    assert flight is not None and flight.status == "unscored", flight
    assert "german" in (flight.reason or "") and "lexicons are English" in (flight.reason or "")
    assert result.exit_code == 0, result.output  # the other probes passed; none failed
    assert "1 unscored" in result.output and "oracle:refuses_or_falls_back" in result.output
    html = write_report(out).read_text()
    assert "unscored" in html and "offline judge: oracle:" in html


def test_an_unreachable_bot_stops_before_the_run_directory(tmp_path: Path) -> None:
    chatbot = tmp_path / "down.yaml"
    chatbot.write_text("connector: rasa\nparams:\n  url: http://127.0.0.1:9\n  timeout: 1\n")
    args = ["adversarial", "probe", "-c", str(chatbot), "--suite", MINI, "-o", str(tmp_path / "r")]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1
    assert not (tmp_path / "r").exists()


def test_a_bad_probe_file_exits_2_with_file_line_and_key_before_any_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from sparring.cli import main

    chatbot = _chatbot(tmp_path, "probe_bots:refusing", "conversational")
    bad = str(FIXTURES / "bad.yaml")
    argv = [
        "sparring",
        "adversarial",
        "probe",
        "-c",
        str(chatbot),
        "-s",
        bad,
        "-o",
        str(tmp_path / "r"),
    ]
    monkeypatch.setattr("sys.argv", argv)
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "bad.yaml:9 [probes[0].oracels]: unknown key" in err
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("concurrency", [1, 3])
def test_probes_run_concurrently_within_the_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, concurrency: int
) -> None:
    monkeypatch.syspath_prepend(str(FIXTURES))
    import probe_bots  # the module the connector loads

    chatbot = _chatbot(tmp_path, "probe_bots:Gauge", "conversational")
    probe_bots.Gauge.most = 0
    settings = ProbeSettings(chatbot=chatbot, suites=["injection", "pii"], concurrency=concurrency)
    start(ProbeJob(), settings, tmp_path / "run")
    assert probe_bots.Gauge.most == concurrency


@pytest.mark.parametrize(
    ("statuses", "verdict", "code"),
    [
        (["unscored", "unscored"], "no_verdict", 3),
        (["unscored", "not_applicable"], "no_verdict", 3),
        (["unscored", "pass"], "pass", 0),
        (["unscored", "fail"], "fail", 1),
    ],
)
def test_a_run_whose_verdicts_are_all_unscored_is_no_verdict(
    statuses: list[str], verdict: str, code: int
) -> None:
    report = ProbeReport(
        verdicts=[
            Verdict(rule=f"s/p{i}", status=cast(Status, status), conversations=[f"c{i}"])
            for i, status in enumerate(statuses)
        ]
    )
    decided = probe_outcome(report)
    assert (decided.verdict, decided.exit_code) == (verdict, code)
