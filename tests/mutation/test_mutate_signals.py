"""``mutate`` under SIGTERM (issue 36, defect 5): the run stops as on Ctrl-C (status
``stopped``, every server stopped), the command exits 143 and names the command that
finishes it, and that very command, run when the bot answers again, finishes the run. The
mutants' build folders, which hold a copy of the user's ``chatbot.yaml`` (literal keys
included), are private like the run's records (they were 0644 beside 0600 records).

The job runs in a child process (``LAUNCH``: the fake operator of ``test_harness_fakes``
registered, then sparring's own entry point) against the fake bot, made to freeze in the
mutants' copies while ``FAKE_FREEZE`` is set."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

from test_harness_fakes import make_project

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
SECONDS = 180
"""Generous bound for a loaded machine; each step takes seconds."""
LAUNCH = f"""\
import sys
sys.path.insert(0, {str(HERE)!r})
from test_harness_fakes import DropReply
from sparring.cli._app import main
from sparring.mutation import OPERATORS
with OPERATORS.override("fake.drop_reply", DropReply()):
    main()
"""
FREEZE = """
_respond = Bot.respond
def _frozen(self, text):
    if os.environ.get("FAKE_FREEZE") and "mutants" in str(HERE):
        time.sleep(3600)
    return _respond(self, text)
Bot.respond = _frozen
"""


def _sparring(cwd: Path, args: list[str], freeze: bool) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    env.pop("FAKE_FREEZE", None)
    if freeze:
        env["FAKE_FREEZE"] = "1"
    return subprocess.Popen(
        [sys.executable, "-c", LAUNCH, *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _status(run: Path) -> str:
    return str(json.loads((run / "manifest.json").read_text())["status"])


def test_sigterm_stops_mutate_and_its_hint_finishes_it(tmp_path: Path) -> None:
    project, profiles, rules = make_project(tmp_path)
    (project / "bot.py").write_text((project / "bot.py").read_text() + FREEZE)
    chatbot = project / "chatbot.yaml"
    chatbot.write_text(chatbot.read_text().replace("timeout: 5", "timeout: 600"))
    args = ["mutate", "--project", str(project), "--kind", "aiml", "--profiles", str(profiles),
            "--rules", str(rules), "--out", "out"]  # fmt: skip
    child = _sparring(tmp_path, args, freeze=True)
    try:
        deadline = time.monotonic() + SECONDS
        while not list(tmp_path.glob("out/mutants/*/build/project")):
            assert time.monotonic() < deadline, "no mutant was ever built"
            time.sleep(0.2)
        time.sleep(2)  # the mutant's conversations are waiting for the frozen bot
        builds = list(tmp_path.glob("out/mutants/*/build"))
        modes = {p: p.stat().st_mode & 0o777 for p in builds}
        modes |= {p: p.stat().st_mode & 0o777 for b in builds for p in b.rglob("*")}
        child.send_signal(signal.SIGTERM)
        output, _ = child.communicate(timeout=SECONDS)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    record = next(tmp_path.glob("out/conversations/*.json"))
    assert record.stat().st_mode & 0o777 == 0o600
    shared = {str(p): oct(m) for p, m in modes.items() if m & 0o077}
    assert not shared, shared  # nothing in a build folder is open to others
    assert child.returncode == 143, output
    assert "Traceback" not in output, output
    assert _status(tmp_path / "out") == "stopped", output
    hint = next(line for line in output.splitlines() if line.startswith("stopped:"))
    command = shlex.split(hint.removeprefix("stopped:").removesuffix("to finish it"))
    assert command[:2] == ["sparring", "mutate"], hint
    again = _sparring(tmp_path, command[1:], freeze=False)
    output, _ = again.communicate(timeout=SECONDS * 3)
    assert again.returncode == 0, output
    assert _status(tmp_path / "out") == "finished", output
    assert "mutation score: 67%" in output, output
