"""The hostile-bot matrix (issue 26): every job that talks to a chatbot (simulate, explore,
run, adversarial probe, metamorphic, chat) × every way a bot can misbehave. Each job runs
through the command line (in process: ``sparring``'s own exit-code mapping, a watchdog
that aborts the whole test run if a job outlives its time limit) against

- an HTTP bot whose every reply holds a lone surrogate, is JSON nested 100,000 deep, is a
  3 MB body, is HTTP 500, or which dies (resets every connection) after a few replies;
- a Python bot that raises ``SystemExit`` or ``KeyboardInterrupt``, calls ``os._exit`` or
  never returns.

Each job must end within its time limit without a traceback, record the failure with its
cause, and exit non-zero, since nothing was tested; the surrogate bot answers (its text
repaired and noted), so there the jobs just have to finish and record it.
"""

from __future__ import annotations

import faulthandler
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sparring.cli import app
from sparring.errors import UserInputError

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
JOB_SECONDS = 300
"""Wall-clock limit of one job (each takes seconds; generous for a loaded 2-core machine)."""

PROFILE = """\
test_name: hello
user:
  language: English
  role: You ask a chatbot for help.
  context: [you are polite]
  goals: [Hello, What can you do?]
chatbot:
  is_starter: false
  fallback: "I do not understand."
  output: []
conversation:
  number: 2
  goal_style: {steps: 2}
  interaction_style: [single question]
"""

# An HTTP scenario's body (or None: reset the connection), given the request number.
BODIES = {
    "surrogate": lambda n: b'{"text": "bad \\ud800 text ' + str(n).encode() + b'"}',
    "deep_json": lambda n: b"[" * 100_000 + b"]" * 100_000,
    "huge_body": lambda n: json.dumps({"text": "x" * 3_000_000}).encode(),
    "http_500": lambda n: b'{"error": "internal"}',
    "dies_mid_run": lambda n: f'{{"text": "reply {n}"}}'.encode() if n < 2 else None,
}
CAUSES = {
    "surrogate": None,
    "deep_json": "bad_payload",
    "huge_body": "too_large",
    "http_500": "crash",
    "dies_mid_run": "crash",
    "system_exit": "crash",
    "keyboard_interrupt": "crash",
    "os_exit": "crash",
    "frozen": "timeout",
}


@dataclass
class HostileServer:
    url: str
    scenario: str = ""
    requests: int = 0


def _handler(state: HostileServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            state.requests += 1
            body = BODIES[state.scenario](state.requests)
            if body is None:
                self.close_connection = True
                self.connection.close()
                return
            self.send_response(500 if state.scenario == "http_500" else 200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:  # the reachability probe: the server is up
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

    return Handler


@pytest.fixture(scope="module")
def server() -> Iterator[HostileServer]:
    state = HostileServer(url="")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    httpd.daemon_threads = True
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield state
    httpd.shutdown()
    httpd.server_close()


def _chatbot(folder: Path, scenario: str, server: HostileServer) -> Path:
    path = folder / "chatbot.yaml"
    if scenario in BODIES:
        server.scenario, server.requests = scenario, 0
        params = (
            f"  url: {server.url}\n  response_path: text\n  timeout: 2\n"
            "  send_message: {path: /chat, payload_template: {message: '{message}'}}\n"
        )
        path.write_text(f"connector: rest\nparams:\n{params}")
    else:
        path.write_text(
            f"connector: python\nparams:\n  target: hostile_bot:respond\n  path: {HERE}\n"
            "  timeout: 1\n"
        )
    return path


def _seeds(folder: Path) -> Path:
    """A run with one three-round conversation, the metamorphic job's seed."""
    from datetime import UTC, datetime

    from sparring.conversations import ConversationRecord, RunManifest, RunStore, Turn

    now = datetime.now(UTC)
    store = RunStore.create(
        folder / "seeds", RunManifest(run_id="seeds", created_at=now, sparring_version="0")
    )
    rounds = [("My name is Ada", "Hi Ada."), ("Hello", "Hello!"), ("What is a pizza?", "Food.")]
    turns = [Turn(role=r, text=t) for q, a in rounds for r, t in (("user", q), ("assistant", a))]
    store.write(ConversationRecord(id="seed", profile="p", turns=turns, started_at=now))
    return store.path


def _command(job: str, chatbot: Path, folder: Path) -> list[str]:
    out = str(folder / "out")
    if job == "simulate":
        (folder / "profiles").mkdir()
        (folder / "profiles" / "hello.yaml").write_text(PROFILE)
        return ["simulate", str(folder / "profiles"), "-c", str(chatbot), "-o", out]
    if job == "explore":
        return ["explore", "-c", str(chatbot), "-o", out, "--sessions", "2", "--turns", "2"]
    if job == "run":
        return ["run", "-c", str(chatbot), "-o", out, "--sessions", "2", "--turns", "2"]
    if job == "probe":
        return ["adversarial", "probe", "-c", str(chatbot), "-s", "encoded", "-o", out]
    if job == "metamorphic":
        seeds = _seeds(folder)
        return ["metamorphic", str(seeds), "-c", str(chatbot), "-o", out, "-p", "drs", "-p", "drd"]
    if job == "chat":
        return ["chat", "-c", str(chatbot)]
    raise AssertionError(job)


def _causes(out: Path) -> tuple[set[str], set[str]]:
    """The failure causes and the notes recorded in every record under ``out``."""
    causes: set[str] = set()
    notes: set[str] = set()
    for file in out.rglob("conversations/*.json"):
        record = json.loads(file.read_text())
        causes |= {e.get("cause") for e in record.get("errors", []) if e.get("cause")}
        notes |= set(record.get("notes", []))
    return causes, notes


JOBS = ["simulate", "explore", "run", "probe", "metamorphic", "chat"]
CHAT_INPUT = "hello\nwhat can you do?\n/quit\n"


@pytest.mark.parametrize("scenario", list(CAUSES))
@pytest.mark.parametrize("job", JOBS)
def test_a_hostile_bot_never_takes_the_job_with_it(
    job: str,
    scenario: str,
    server: HostileServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    chatbot = _chatbot(tmp_path, scenario, server)
    monkeypatch.setenv("HOSTILE", scenario)
    monkeypatch.chdir(tmp_path)
    faulthandler.dump_traceback_later(JOB_SECONDS, exit=True)  # a hang aborts loudly
    try:
        result = CliRunner().invoke(app, _command(job, chatbot, tmp_path), input=CHAT_INPUT)
    finally:
        faulthandler.cancel_dump_traceback_later()
    output = result.output
    code = 2 if isinstance(result.exception, UserInputError) else result.exit_code
    crashed = result.exception is not None and not isinstance(
        result.exception, SystemExit | UserInputError
    )
    assert not crashed, (repr(result.exception), output)
    assert code != 130, output
    expected = CAUSES[scenario]
    if job == "chat":  # writes no records: the console says what happened
        assert code == (0 if expected is None else 1), output
        assert ("\ufffd" in output) if expected is None else ("no usable answer" in output), output
        return
    causes, notes = _causes(tmp_path / "out")
    if expected is None:  # the bot answered: its text repaired and noted
        assert any("surrogate" in note for note in notes), (notes, output)
        return
    assert code not in (0, 2), output  # nothing tested, and not the user's mistake
    assert expected in causes, (causes, output)
