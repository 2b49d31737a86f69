"""The import-sensei and export-sensei commands."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from sparring.cli import app, main
from sparring.conversations import RunStore

runner = CliRunner()


def test_import_then_export_rebuilds_the_sensei_tree(sensei_file: Path, tmp_path: Path) -> None:
    source = sensei_file.parents[1].parent
    run = tmp_path / "run"
    result = runner.invoke(app, ["import-sensei", str(source), "--out", str(run)])
    assert result.exit_code == 0, result.output
    assert "Imported 1 conversations" in result.output
    store = RunStore.open(run)
    assert store.manifest.job == "import-sensei"
    assert store.manifest.profiles == ["pizza"]
    assert store.manifest.planned == ["pizza/2024-10-25-17-55-35/1_pizza_2024-10-25-17-55-35"]
    summary = json.loads((run / "summary.json").read_text())
    assert summary["failures"]["by_code"] == {"goal_not_completed": 1}
    assert summary["response_time"]["max"] == 2.5

    out = tmp_path / "exported"
    result = runner.invoke(app, ["export-sensei", str(run), "--out", str(out)])
    assert result.exit_code == 0, result.output
    exported = out / sensei_file.relative_to(source)
    assert list(yaml.safe_load_all(exported.read_text())) == list(
        yaml.safe_load_all(sensei_file.read_text())
    )


def test_export_of_a_native_run_uses_the_run_serial(tmp_path: Path) -> None:
    from conversation_builders import manifest, record

    store = RunStore.create(tmp_path / "run", manifest())
    store.write(record("pizza/0"))
    out = tmp_path / "out"
    result = runner.invoke(app, ["export-sensei", str(store.path), "--out", str(out)])
    assert result.exit_code == 0, result.output
    files = [p.relative_to(out).as_posix() for p in out.rglob("*.yml")]
    assert files == ["pizza/2026-01-02-03-04-05/7_pizza_2026-01-02-03-04-05.yml"]


def test_bad_sensei_file_exits_with_code_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "in" / "0_p_s.yml"
    bad.parent.mkdir()
    bad.write_text("serial: s\n---\n{}\n---\ninteraction:\n- Robot: beep\n")
    monkeypatch.setattr(
        sys, "argv", ["sparring", "import-sensei", str(bad.parent), "--out", str(tmp_path / "r")]
    )
    with pytest.raises(SystemExit) as exit_info:
        main()
    assert exit_info.value.code == 2
    assert "0_p_s.yml:6" in capsys.readouterr().err.replace("\n", "")


def test_import_refuses_an_existing_run(sensei_file: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert runner.invoke(app, ["import-sensei", str(sensei_file), "--out", str(run)]).exit_code == 0
    again = runner.invoke(app, ["import-sensei", str(sensei_file), "--out", str(run)])
    assert again.exit_code != 0
    assert "already holds a run" in str(again.exception)


def test_import_of_an_empty_folder_exits_2_and_creates_no_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    empty, run = tmp_path / "empty", tmp_path / "run"
    empty.mkdir()
    monkeypatch.setattr(sys, "argv", ["sparring", "import-sensei", str(empty), "--out", str(run)])
    with pytest.raises(SystemExit) as exit_info:
        main()
    assert exit_info.value.code == 2
    assert "no SENSEI conversation files" in capsys.readouterr().err
    assert not run.exists()
