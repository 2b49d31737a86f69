"""Ctrl-C stops a job whose chatbot froze (issue 26, defect 4): ``simulate`` against a
Python bot that never returns used to ignore SIGINT for good (its frozen calls held the
event loop's executor, which the process waits for); it must now stop with exit 130."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

from test_matrix import PROFILE

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
STOP_SECONDS = 60
"""Generous bound for a loaded machine; it takes a few seconds."""


def test_ctrl_c_stops_simulate_with_a_frozen_bot(tmp_path: Path) -> None:
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "hello.yaml").write_text(PROFILE.replace("number: 2", "number: 6"))
    chatbot = tmp_path / "chatbot.yaml"
    chatbot.write_text(
        f"connector: python\nparams:\n  target: hostile_bot:respond\n  path: {HERE}\n"
        "  timeout: 600\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "HOSTILE": "frozen"}
    command = [sys.executable, "-m", "sparring", "simulate", "profiles", "-c", str(chatbot)]
    child = subprocess.Popen(
        [*command, "-o", "out"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        restore_signals=True,
    )
    try:
        deadline = time.monotonic() + 120
        manifest = tmp_path / "out" / "manifest.json"
        while not manifest.exists() and time.monotonic() < deadline:  # conversations started
            time.sleep(0.2)
        assert manifest.exists(), "simulate never started"
        time.sleep(1.0)
        child.send_signal(signal.SIGINT)
        output, _ = child.communicate(timeout=STOP_SECONDS)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert child.returncode == 130, output
    assert "Traceback" not in output, output
    assert '"status": "stopped"' in manifest.read_text()  # the runner kept the status


def test_ctrl_c_stops_evaluate_without_a_traceback(tmp_path: Path) -> None:
    """``evaluate`` printed a 116-line traceback on Ctrl-C; now it exits 130 quietly
    while a (slow) judge model is rating."""
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "hello.yaml").write_text(PROFILE)
    (tmp_path / "chatbot.yaml").write_text(
        f"connector: python\nparams:\n  target: hostile_bot:respond\n  path: {HERE}\n"
    )
    (tmp_path / "judge.yaml").write_text("replies: ['3']\nexhausted: cycle\nlatency: 600\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "HOSTILE": ""}
    simulate = [sys.executable, "-m", "sparring", "simulate", "profiles", "-c", "chatbot.yaml"]
    subprocess.run([*simulate, "-o", "run"], cwd=tmp_path, env=env, check=True,
                   capture_output=True, timeout=120)  # fmt: skip
    evaluate = ["evaluate", "ratings", "run", "--model", "scripted:judge.yaml"]
    child = subprocess.Popen(
        [sys.executable, "-m", "sparring", *evaluate],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        time.sleep(6.0)  # loaded, judging (if still loading: exits 130 quietly too)
        child.send_signal(signal.SIGINT)
        output, _ = child.communicate(timeout=STOP_SECONDS)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert child.returncode == 130, output
    assert "Traceback" not in output and "never retrieved" not in output, output


_SIGINT_WHILE_LOADING = """
import importlib.abc, os, signal, sys, time

class Interrupt(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "sparring.cli":  # Ctrl-C pressed while the command line loads
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)
        return None

sys.meta_path.insert(0, Interrupt())
sys.argv = ["sparring", "--help"]
{run}
"""


def test_ctrl_c_while_the_console_script_loads_exits_130_with_one_line() -> None:
    """Ctrl-C while ``sparring`` was still importing its command line printed the
    traceback of whichever import it hit; the console script named in ``pyproject.toml``
    (run as pip's generated script runs it) and ``python -m sparring`` now exit 130 with
    one line."""
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module, function = scripts["sparring"].split(":")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    console_script = f"from {module} import {function}\nsys.exit({function}())"  # pip's
    python_m = "import runpy\nrunpy.run_module('sparring', run_name='__main__')"
    for run in (console_script, python_m):
        code = _SIGINT_WHILE_LOADING.format(run=run)
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True, timeout=STOP_SECONDS)  # fmt: skip
        assert done.returncode == 130, done.stderr
        assert done.stderr.splitlines() == ["sparring: interrupted while loading; nothing was run"]
        assert done.stdout == ""
