"""A folder where a file is expected, holding nothing to read (found by the fuzz sweep of
``benchmarks/bench_hostile_files.py --fuzz``): ``simulate``'s profiles and the DBDC
reader said "no profile files found" or "no DBDC dialogue" without naming what they were
given; the error now names the path, as every other reader's does."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sparring.cli import main
from sparring.errors import UserInputError
from sparring.evaluate import load_dbdc


def test_a_folder_without_profiles_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "profile.yaml"
    folder.mkdir()
    chatbot = tmp_path / "chatbot.yaml"
    chatbot.write_text("connector: scripted\nparams:\n  fallback: Hello!\n", encoding="utf-8")
    argv = ["sparring", "simulate", str(folder), "-c", str(chatbot), "-o", str(tmp_path / "o")]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as caught:
        main()
    assert caught.value.code == 2
    assert f"{folder}: no profile files found" in capsys.readouterr().err.replace("\n", "")


def test_a_folder_without_dbdc_dialogues_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "dialogue.log.json"
    folder.mkdir()
    with pytest.raises(UserInputError) as caught:
        load_dbdc(folder)
    assert [p.file for p in caught.value.problems] == [str(folder)]
