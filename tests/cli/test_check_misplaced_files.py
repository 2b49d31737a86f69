"""``sparring check`` given a profile or a chatbot.yaml where rules go says so once per
file, with where that file goes, instead of a screenful of "unknown key" problems; a real
rule file's own problems are still said as the rule loader found them (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sparring.cli import main

ROOT = Path(__file__).parents[2]


def test_files_of_another_kind_given_as_rules_are_named_once_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    chatbot = tmp_path / "chatbot.yaml"
    chatbot.write_text("connector: rest\nparams:\n  url: http://127.0.0.1:9/chat\n")
    broken = tmp_path / "rule.yaml"
    broken.write_text("name: r\nthen: 'len(chatbot_messages) > 0'\nwhen: [\n")
    profiles = ROOT / "examples" / "alice" / "profiles"
    args = ["check", str(profiles), str(chatbot), str(broken), "--run", str(tmp_path)]
    monkeypatch.setenv("COLUMNS", "300")
    monkeypatch.setattr("sys.argv", ["sparring", *args])
    with pytest.raises(SystemExit) as caught:
        main()
    stderr = capsys.readouterr().err
    assert caught.value.code == 2, stderr
    lines = stderr.splitlines()
    named = [line for line in lines if "not a rule file" in line]
    assert len(named) == len(list(profiles.glob("*.y*ml"))) + 1, lines
    assert f"error: {chatbot}: a chatbot.yaml, not a rule file" in stderr
    assert "profiles go to `sparring simulate`" in stderr
    assert "unknown key" not in stderr  # the profiles' keys are not listed
    assert any(line.startswith(f"error: {broken}:") and "YAML" in line for line in lines)
