"""A model provider's redirect (issue 32): the model client follows redirects (LiteLLM's
HTTP handler and the OpenAI SDK both do), and ``httpx`` strips only ``Authorization`` on
the way, so a key sent in another header (Anthropic's ``x-api-key``) would follow a
redirect to any host, and a redirect to a private address would be a way around the
SSRF policy. In a dashboard job process every hop is checked: the key goes to no host it
is not bound to, and no hop reaches a forbidden address. Each attack is run without the
guards too (the control), where it succeeds."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

KEY = "sk-ant-owner-key-0123456789abcdef"


class _Recorder(BaseHTTPRequestHandler):
    seen: list[bytes]

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.seen.append(bytes(self.headers) + self.rfile.read(length))
        self.send_response(500)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def _serve(host: str, handler: type[BaseHTTPRequestHandler]) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer((host, 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def servers() -> Iterator[tuple[int, int, int, list[bytes]]]:
    """A provider on 127.0.0.2 that redirects (307, path kept) to ``/to/PORT`` → that port
    on 127.0.0.3 (allow-listed, not bound) or 127.0.0.1 (forbidden); both record what
    reaches them."""
    seen: list[bytes] = []
    recorder = type("Recorder", (_Recorder,), {"seen": seen})

    class Redirector(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            host, port = self.path.split("/")[2:4]
            self.send_response(307)
            self.send_header("Location", f"http://{host}:{port}/v1/messages")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    provider = _serve("127.0.0.2", Redirector)
    elsewhere, private = _serve("127.0.0.3", recorder), _serve("127.0.0.1", recorder)
    yield provider.server_address[1], elsewhere.server_address[1], private.server_address[1], seen
    for server in (provider, elsewhere, private):
        server.shutdown()


CALL = """
import asyncio, os, sys
from sparring.web._job_process import JobSpec, _grant, _install, model_keys

base = "http://127.0.0.2:{provider}/to/{host}/{port}"
spec = JobSpec(
    action="submit", job="simulate", run_dir="/tmp", roots=[],
    settings={{"model": "anthropic/claude-3-haiku-20240307", "model_base_url": base}},
    secrets={{"ANTHROPIC_API_KEY": "{key}"}},
    secret_hosts={{"ANTHROPIC_API_KEY": ["127.0.0.2"]}},
    ssrf_allow=["127.0.0.2", "127.0.0.3"],
)
if {guarded}:
    _install(spec)
    _grant(model_keys(spec))
else:
    os.environ["ANTHROPIC_API_KEY"] = "{key}"
import litellm
async def call():
    return await litellm.acompletion(
        model="anthropic/claude-3-haiku-20240307", api_base=base, max_retries=0, timeout=10,
        messages=[{{"role": "user", "content": "hi"}}])
try:
    asyncio.run(call())
except Exception as exc:
    print("FAILED", type(exc).__name__, str(exc)[:400])
"""


def _call(provider: int, host: str, port: int, guarded: bool) -> str:
    code = CALL.format(provider=provider, host=host, port=port, key=KEY, guarded=guarded)
    environment = {"PATH": "/usr/bin:/bin", "LITELLM_LOCAL_MODEL_COST_MAP": "True", "HOME": "/tmp"}
    if "PYTHONPATH" in os.environ:
        environment["PYTHONPATH"] = os.environ["PYTHONPATH"]
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=300,
        env=environment,
    )
    return done.stdout + done.stderr


def test_a_redirect_never_carries_the_model_key_to_another_host(
    servers: tuple[int, int, int, list[bytes]],
) -> None:
    provider, elsewhere, _private, seen = servers
    said = _call(provider, "127.0.0.3", elsewhere, guarded=True)
    assert "ANTHROPIC_API_KEY may be sent only to 127.0.0.2" in said, said
    assert not any(KEY.encode() in r for r in seen), seen
    _call(provider, "127.0.0.3", elsewhere, guarded=False)  # the control: the key follows
    assert any(KEY.encode() in r for r in seen), seen


def test_a_redirect_never_reaches_a_forbidden_address(
    servers: tuple[int, int, int, list[bytes]],
) -> None:
    provider, _elsewhere, private, seen = servers
    said = _call(provider, "127.0.0.1", private, guarded=True)
    assert "FAILED" in said, said
    assert seen == []
    _call(provider, "127.0.0.1", private, guarded=False)  # the control: it is reached
    assert seen
