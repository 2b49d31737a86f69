"""The planted-secret grep (issue 26, defects 18 and 19): a run whose chatbot URL carries
userinfo and an ``api_key`` query parameter, whose headers carry a literal token, whose
bot echoes what it received, and whose model server answers 401 echoing the model key —
then ``check`` with a model-backed rule, ``report``, ``export-sensei`` and every report
file. No planted secret appears in any file written or any line printed."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web

from sparring.cli import main

from .fakes import loopback_server

DATA = Path(__file__).parent / "data"
MODEL_KEY = "sk-planted-model-key-4242"
HEADER_TOKEN = "planted-header-token-9999"
URL_PASSWORD = "planted-url-password-7777"
QUERY_KEY = "planted-query-key-8888"
PLANTED = (MODEL_KEY, HEADER_TOKEN, URL_PASSWORD, QUERY_KEY)


@pytest.fixture
def servers() -> Iterator[str]:
    """One loopback server: ``/chat`` is a bot that echoes every credential it received;
    ``/v1/chat/completions`` is a model server whose 401 echoes the key it was sent."""

    async def chat(request: web.Request) -> web.Response:
        body = await request.json()
        headers = request.headers
        echo = f"{headers.get('X-Api-Key')} {request.url} {headers.get('Authorization')}"
        return web.json_response({"reply": f"You said {body['text']}; I got {echo}"})

    async def completions(request: web.Request) -> web.Response:
        key = request.headers.get("Authorization", "").removeprefix("Bearer ")
        message = f"Incorrect API key provided: {key}. You can find your API key at …"
        error = {"message": message, "type": "invalid_request_error", "code": "invalid_api_key"}
        return web.json_response({"error": error}, status=401)

    with loopback_server({"/chat": chat, "/v1/chat/completions": completions}) as address:
        yield address


def _run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """Run ``sparring ARGS``; everything it printed (stdout and stderr)."""
    monkeypatch.setattr(sys, "argv", ["sparring", "-vv", *args])
    with contextlib.suppress(SystemExit):
        main()
    captured = capsys.readouterr()
    return captured.out + captured.err


def test_no_planted_secret_reaches_any_output(
    servers: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", MODEL_KEY)
    monkeypatch.setenv("SPARRING_ALLOW_MODEL_REQUESTS", "1")  # to the loopback server only
    chatbot = tmp_path / "chatbot.yaml"
    chatbot.write_text(
        "connector: rest\nparams:\n"
        f"  base_url: http://bot:{URL_PASSWORD}@{servers}\n"
        f"  send_message:\n    path: /chat?api_key={QUERY_KEY}\n    method: POST\n"
        f"    headers:\n      X-Api-Key: {HEADER_TOKEN}\n"
        "    payload_template:\n      text: '{user_msg}'\n"
        "  response_path: reply\n",
        encoding="utf-8",
    )
    rules = tmp_path / "rules.yaml"
    rules.write_text("name: polite\noracle: tone(chatbot_phrases[0]) == 'polite'\n")
    run, out = tmp_path / "run", tmp_path / "out"
    model = ["--model", "openai/gpt-4o-mini", "--model-base-url", f"http://{servers}/v1"]
    printed = [
        _run(monkeypatch, capsys, "simulate", str(DATA / "profiles"), "-c", str(chatbot),
             "-o", str(run)),
        _run(monkeypatch, capsys, "check", str(rules), "--run", str(run), *model,
             "--junit", str(out / "junit.xml"), "--csv", str(out / "results.csv"),
             "--json", str(out / "verdicts.json")),
        _run(monkeypatch, capsys, "report", str(run)),
        _run(monkeypatch, capsys, "export-sensei", str(run), "--out", str(out / "sensei")),
        _run(monkeypatch, capsys, "adversarial", "probe", "--chatbot", str(chatbot),
             "--suite", "prompt-injection", "--out", str(tmp_path / "probes")),
    ]  # fmt: skip
    files = [p for p in tmp_path.rglob("*") if p.is_file() and p != chatbot]
    texts = {str(p): p.read_text(encoding="utf-8", errors="replace") for p in files}
    texts.update({f"console of command {i}": text for i, text in enumerate(printed)})
    # the run happened: the bot answered, the model was asked and refused
    assert any("You said" in t for t in texts.values()), printed
    assert any("Incorrect API key provided: ***" in t for t in texts.values()), printed[1]
    hits = {(name, secret) for name, text in texts.items() for secret in PLANTED if secret in text}
    assert not hits, sorted(hits)
