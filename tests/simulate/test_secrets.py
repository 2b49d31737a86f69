"""A secret given through ``${ENV}`` reaches the chatbot but no file of the run, nor the log."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web
from typer.testing import CliRunner

from sparring.cli import app

from .fakes import loopback_server

SECRET = "s3cr3t-token-value-1234"
DATA = Path(__file__).parent / "data"


@pytest.fixture
def rest_bot() -> Iterator[str]:
    """A loopback REST bot that answers only when the Authorization header is right."""

    async def message(request: web.Request) -> web.Response:
        if request.headers.get("Authorization") != f"Bearer {SECRET}":
            return web.json_response({"error": "unauthorised"}, status=401)
        body = await request.json()
        return web.json_response({"reply": f"Got it: {body['text']}. Which size?"})

    with loopback_server({"/chat": message}) as address:
        yield f"http://{address}"


def test_secret_is_used_but_never_written(
    rest_bot: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPARRING_TEST_TOKEN", SECRET)
    chatbot = tmp_path / "chatbot.yaml"
    chatbot.write_text(
        "connector: rest\nparams:\n"
        f"  base_url: {rest_bot}\n"
        "  send_message:\n    path: /chat\n    method: POST\n"
        "    headers:\n      Authorization: 'Bearer ${SPARRING_TEST_TOKEN}'\n"
        "    payload_template:\n      text: '{user_msg}'\n"
        "  response_path: reply\n"
    )
    out = tmp_path / "run"
    result = CliRunner().invoke(
        app, ["-vv", "simulate", str(DATA / "profiles"), "-c", str(chatbot), "-o", str(out)]
    )
    # the echo bot never completes a goal: every conversation fails (code 1001), so exit 1
    assert result.exit_code == 1 and "every conversation (3) failed" in result.output
    texts = [p.read_text() for p in out.rglob("*") if p.is_file()]
    assert any("Got it: I would like to order a pizza" in t for t in texts)  # the bot answered
    assert not any(SECRET in t for t in texts)
    assert SECRET not in result.output
