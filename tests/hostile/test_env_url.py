"""``${NAME}`` in a chatbot's URL works for every job (issue 36, defect 6): docs say a URL
may use it and ``chat``/``validate`` accepted it, but ``sparring run`` crashed writing the
manifest (``urlsplit(...).port`` on ``${BOT_PORT}``) and exited 1, a FAIL's code."""

from __future__ import annotations

import faulthandler
import json
from pathlib import Path

import pytest
from test_matrix import CHAT_INPUT, JOB_SECONDS, JOBS, HostileServer, _command, server
from typer.testing import CliRunner

from sparring.cli import app
from sparring.errors import UserInputError

__all__ = ["server"]  # the fixture, imported for pytest


def _chatbot(folder: Path, host: HostileServer) -> Path:
    host.scenario, host.requests = "surrogate", 0  # answers (its text repaired and noted)
    path = folder / "chatbot.yaml"
    path.write_text(
        "connector: rest\nparams:\n  url: http://127.0.0.1:${BOT_PORT}\n"
        "  response_path: text\n  timeout: 2\n"
        "  send_message: {path: /chat, payload_template: {message: '{message}'}}\n"
    )
    return path


@pytest.mark.parametrize("job", JOBS)
def test_a_url_with_an_environment_variable_works_for_every_job(
    job: str, server: HostileServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chatbot = _chatbot(tmp_path, server)
    monkeypatch.setenv("BOT_PORT", server.url.rsplit(":", 1)[1])
    monkeypatch.chdir(tmp_path)
    faulthandler.dump_traceback_later(JOB_SECONDS, exit=True)
    try:
        result = CliRunner().invoke(app, _command(job, chatbot, tmp_path), input=CHAT_INPUT)
    finally:
        faulthandler.cancel_dump_traceback_later()
    crashed = result.exception is not None and not isinstance(
        result.exception, SystemExit | UserInputError
    )
    assert not crashed, (repr(result.exception), result.output)
    assert not isinstance(result.exception, UserInputError), result.output
    assert server.requests > 0, result.output  # it reached the bot through the variable
    for manifest in (tmp_path / "out").rglob("manifest.json"):
        endpoint = json.loads(manifest.read_text()).get("endpoint")
        assert endpoint in (
            None,
            "http://127.0.0.1:${BOT_PORT}/chat",
            "http://127.0.0.1:${BOT_PORT}",
        )
