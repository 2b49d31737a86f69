"""SIGTERM stops every job as Ctrl-C does, and the hint it prints finishes the run (issue
36, defect 5): SIGTERM left simulate, explore, probe and run ``running`` with exit 143 and
nothing printed. Each job runs in a child process against a Python bot that never
answers; after SIGTERM the run is ``stopped``, the command exits 143 and prints how to
resume, and that very command, run with a bot that answers, finishes it. A crash of
sparring exits 70, never 1 (a FAIL)."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_matrix import PROFILE

from sparring.cli import _app

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
SECONDS = 120
"""Generous bound for a loaded machine; each step takes seconds."""
CHATBOT = (
    "connector: python\nparams:\n  target: hostile_bot:respond\n  path: {here}\n  timeout: {t}\n"
)
COMMANDS = {
    "simulate": ["simulate", "profiles", "-c", "chatbot.yaml", "-o", "out"],
    "explore": ["explore", "-c", "chatbot.yaml", "-o", "out", "--sessions", "2", "--turns", "2"],
    "run": ["run", "-c", "chatbot.yaml", "-o", "out", "--sessions", "2", "--turns", "2"],
    "probe": ["adversarial", "probe", "-c", "chatbot.yaml", "-s", "encoded", "-o", "out"],
}


def _sparring(cwd: Path, args: list[str], hostile: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}", "HOSTILE": hostile}
    return subprocess.Popen(
        [sys.executable, "-m", "sparring", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _status(folder: Path) -> str:
    return str(json.loads((folder / "manifest.json").read_text()).get("status"))


@pytest.mark.parametrize("job", list(COMMANDS))
def test_sigterm_stops_the_job_and_its_hint_resumes_it(tmp_path: Path, job: str) -> None:
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "hello.yaml").write_text(PROFILE)
    chatbot = tmp_path / "chatbot.yaml"
    chatbot.write_text(CHATBOT.format(here=HERE, t=600))
    child = _sparring(tmp_path, COMMANDS[job], "frozen")
    try:
        deadline = time.monotonic() + SECONDS
        manifest = tmp_path / "out" / "manifest.json"
        while not manifest.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert manifest.exists(), f"{job} never started"
        time.sleep(1.5)
        child.send_signal(signal.SIGTERM)
        output, _ = child.communicate(timeout=SECONDS)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert child.returncode == 143, output
    assert "Traceback" not in output, output
    assert _status(tmp_path / "out") == "stopped", output
    hint = next(line for line in output.splitlines() if line.startswith("stopped:"))
    command = shlex.split(hint.removeprefix("stopped:").removesuffix("to finish it"))
    assert command[0] == "sparring", hint
    chatbot.write_text(CHATBOT.format(here=HERE, t=5))  # the bot answers now
    again = _sparring(tmp_path, command[1:], "")
    output, _ = again.communicate(timeout=SECONDS * 3)
    assert again.returncode in (0, 1, 3), output  # a verdict, not a crash nor bad input
    assert _status(tmp_path / "out") == "finished", output


def test_an_internal_error_exits_70_not_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken() -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(_app, "app", broken)
    with pytest.raises(SystemExit) as caught:
        _app.main()
    assert caught.value.code == 70
    assert "internal error" in capsys.readouterr().err


def test_a_job_without_a_resume_option_names_the_same_command_on_its_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Jobs resumed by running them again (metamorphic, check) name that command, with
    ``--out`` set to the stopped run, not "run the same command again"."""
    monkeypatch.setattr(_app, "_ARGUMENTS", ["metamorphic", "-c", "bot yaml", "-o", "old"])
    assert _app.rerun_command(Path("runs/x")) == ("sparring metamorphic -c 'bot yaml' --out runs/x")
    monkeypatch.setattr(_app, "_ARGUMENTS", ["check", "-r", "rules", "runs/x"])
    assert _app.rerun_command(None) == "sparring check -r rules runs/x"
    monkeypatch.setattr(_app, "_ARGUMENTS", [])
    assert _app.rerun_command(Path("runs/x")) is None
