"""``sparring bench dbdc`` on a tiny DBDC fixture."""

from __future__ import annotations

import json
from pathlib import Path

from dbdc_builders import write_dbdc
from typer.testing import CliRunner

from sparring.cli import app

cli = CliRunner()


def test_bench_dbdc_prints_and_writes_figures(tmp_path: Path) -> None:
    data = write_dbdc(tmp_path / "data")
    out = tmp_path / "figures.json"
    result = cli.invoke(app, ["bench", "dbdc", str(data), "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "accuracy (T+X)" in result.output and "offline" in result.output
    figures = json.loads(out.read_text())
    assert [f["detector"] for f in figures] == ["offline", "always"]
    always = figures[1]
    assert always["turns"] == 5 and always["tx"]["accuracy"] == 0.6 and always["x"]["f1"] > 0
    assert always["auc"] == 0.5  # one score for every turn ranks nothing
    offline = figures[0]  # ranks and does not label: measured by its AUC alone
    assert offline["turns"] == 0 and offline["unscored"] == 5 and offline["ranked"] == 5
    assert 0.0 <= offline["auc"] <= 1.0
    assert "AUC of the score (T+X)" in result.output


def test_bench_dbdc_one_file_and_one_detector(tmp_path: Path) -> None:
    data = write_dbdc(tmp_path)
    result = cli.invoke(app, ["bench", "dbdc", str(data / "tiny" / "A.log.json"), "-d", "always"])
    assert result.exit_code == 0, result.output
    assert "always" in result.output and "offline" not in result.output


def test_bench_dbdc_unknown_detector_or_no_data(tmp_path: Path) -> None:
    data = write_dbdc(tmp_path / "data")
    unknown = cli.invoke(app, ["bench", "dbdc", str(data), "-d", "offlin"])
    assert unknown.exit_code != 0 and "offline" in str(unknown.exception)
    empty = cli.invoke(app, ["bench", "dbdc", str(tmp_path / "nothing")])
    assert empty.exit_code != 0 and "no DBDC dialogue" in str(empty.exception)


def test_bench_dbdc_runs_the_chatchecker_detector_with_a_model(tmp_path: Path) -> None:
    data = write_dbdc(tmp_path / "data")
    script = tmp_path / "judge.yaml"
    reply = '{"reasoning": "Off topic.", "score": 0.1, "decision": "breakdown"}'
    script.write_text(f"replies: ['{reply}']\nexhausted: cycle\n", encoding="utf-8")
    result = cli.invoke(
        app, ["bench", "dbdc", str(data), "-d", "chatchecker", "--model", f"scripted:{script}"]
    )
    assert result.exit_code == 0, result.output
    assert "chatchecker" in result.output and "accuracy (T+X)" in result.output
    without = cli.invoke(app, ["bench", "dbdc", str(data), "-d", "chatchecker"])
    assert without.exit_code != 0
    assert "chatchecker detector needs a language model" in str(without.exception)
