"""``sparring adversarial plan`` from the command line: offline on our booking agent,
with a ``scripted:FILE`` model on the pizzeria and its answers file, and the stops."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from sparring.adversarial import load_weaknesses
from sparring.cli import app, main

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "adversarial"
PIZZERIA = ROOT / "examples" / "pizzeria"
ENV = {"COLUMNS": "200"}


def test_offline_plan_of_the_booking_agent(tmp_path: Path) -> None:
    out = tmp_path / "weaknesses.yaml"
    args = ["adversarial", "plan", "--chatbot", str(EXAMPLES / "chatbot.yaml")]
    result = runner.invoke(app, [*args, "--source", str(EXAMPLES), "--out", str(out)], env=ENV)
    assert result.exit_code == 0, result.output
    assert "static scan (python)" in result.output and "1 findings" in result.output
    assert "unguarded-tool-call" in result.output
    assert "BookingAgent.respond->book_table" in result.output
    assert "wrote 1 weaknesses (offline)" in result.output
    assert load_weaknesses(out).weaknesses[0].sources == ["static-scan"]


def test_scripted_plan_of_the_pizzeria_with_answers_and_documents(tmp_path: Path) -> None:
    out = tmp_path / "weaknesses.yaml"
    result = runner.invoke(
        app,
        [
            "adversarial", "plan", "--chatbot", str(PIZZERIA / "chatbot.yaml"),
            "--source", str(PIZZERIA / "rasa"),
            "--answers", str(EXAMPLES / "pizzeria-answers.yaml"),
            "--docs", str(EXAMPLES / "docs"),
            "--model", f"scripted:{EXAMPLES / 'pizzeria-plan-script.yaml'}",
            "--out", str(out),
        ],
        env=ENV,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "6 findings" in result.output and "interview: 3 questions (enough)" in result.output
    assert "lessons: 4" in result.output and "6 calls" in result.output
    assert "wrote 3 weaknesses (llm)" in result.output
    planned = load_weaknesses(out)
    assert [w.sources for w in planned.weaknesses] == [
        ["model", "static-scan", "interview"],
        ["model", "static-scan", "interview"],
        ["model", "interview", "docs"],
    ]
    assert (tmp_path / "weaknesses.plan.json").exists()


def test_answers_without_a_model_stop_naming_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("SPARRING_MODEL", raising=False)
    out = tmp_path / "weaknesses.yaml"
    argv = [
        "sparring", "adversarial", "plan", "--chatbot", str(EXAMPLES / "chatbot.yaml"),
        "--source", str(EXAMPLES), "--answers", str(EXAMPLES / "pizzeria-answers.yaml"),
        "--out", str(out),
    ]  # fmt: skip
    monkeypatch.setattr("sys.argv", argv)
    with pytest.raises(SystemExit) as caught:
        main()
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert "the developer interview (--answers) needs a language model" in err
    assert "--model" in err and not out.exists()


def test_a_model_that_fails_keeps_the_record_and_exits_1(tmp_path: Path) -> None:
    script = tmp_path / "short.yaml"
    script.write_text("replies: []\n", encoding="utf-8")
    out = tmp_path / "weaknesses.yaml"
    args = ["adversarial", "plan", "--chatbot", str(PIZZERIA / "chatbot.yaml")]
    args += ["--source", str(PIZZERIA), "--model", f"scripted:{script}", "--out", str(out)]
    result = runner.invoke(app, args, env=ENV)
    assert result.exit_code == 1
    assert "the model failed" in result.output and "weaknesses.plan.json" in result.output
    assert (tmp_path / "weaknesses.plan.json").exists() and not out.exists()
