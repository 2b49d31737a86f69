"""``sparring report`` and the report line ``simulate`` and ``check`` print."""

from __future__ import annotations

import webbrowser
from pathlib import Path

import pytest
from report_builders import RULES, conversation, make_run, standard_run
from typer.testing import CliRunner

from sparring.cli import app, main

runner = CliRunner()
SIMULATE_DATA = Path(__file__).parents[1] / "simulate" / "data"


def test_report_command_writes_and_prints_the_path(tmp_path: Path) -> None:
    store = standard_run(tmp_path)
    result = runner.invoke(app, ["report", str(store.path)])
    assert result.exit_code == 0, result.output
    path = store.path / "report" / "index.html"
    assert f"report: {path}" in result.output
    assert "verdict-failed" in path.read_text()


def test_out_and_open(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = make_run(tmp_path / "run", [conversation("a/0", ["hi"])])
    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url: opened.append(url))
    out = tmp_path / "elsewhere" / "r.html"
    result = runner.invoke(app, ["report", str(store.path), "--out", str(out), "--open"])
    assert result.exit_code == 0, result.output
    assert out.is_file() and not (store.path / "report").exists()
    assert opened == [out.resolve().as_uri()]


def test_bad_run_exits_2_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    store = make_run(tmp_path / "run", [conversation("a/0", ["hi"])])
    (store.conversations_dir / "broken.json").write_text("[1,", encoding="utf-8")
    monkeypatch.setattr("sys.argv", ["sparring", "report", str(store.path)])
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 2
    assert "broken.json" in capsys.readouterr().err.replace("\n", "")


def test_check_writes_the_report_and_prints_its_path(tmp_path: Path) -> None:
    store = make_run(tmp_path / "run", [conversation("a/0", ["hi"])])
    rules = tmp_path / "rules.yaml"
    rules.write_text(RULES, encoding="utf-8")
    result = runner.invoke(app, ["check", str(rules), "--run", str(store.path)])
    assert result.exit_code == 0, result.output
    path = store.path / "report" / "index.html"
    assert f"report: {path}" in result.output.replace("\n", "")
    assert "verdict-passed" in path.read_text()


def test_simulate_writes_the_report_and_prints_its_path(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = runner.invoke(
        app,
        ["simulate", str(SIMULATE_DATA / "profiles"), "-c", str(SIMULATE_DATA / "chatbot.yaml"),
         "-o", str(out)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    path = out / "report" / "index.html"
    assert f"report: {path}" in result.output.replace("\n", "")
    assert path.read_text().count('"simulator":"agenda"') == 3
