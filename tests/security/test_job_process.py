"""A dashboard job's process (issue 32): its environment holds none of the server's
secrets, and every connection it opens — a model call through LiteLLM to
``model_base_url`` included — goes through the SSRF policy, which refuses loopback,
link-local (cloud metadata) and private addresses before a byte leaves."""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator

import pytest

from sparring.web._job_process import job_environment

SERVER_ENVIRONMENT = {
    "PATH": "/usr/bin",
    "LANG": "C.UTF-8",
    "SPARRING_WEB_SECRET_KEY": "django-secret-0123456789abcdef",
    "SPARRING_WEB_FERNET_KEYS": "b3JpZ2luYWwta2V5LW9mLXRoZS1zZXJ2ZXI=",
    "SPARRING_DATABASE_URL": "postgres://sparring:pa55word@db/sparring",
    "DATABASE_URL": "postgres://sparring:pa55word@db/sparring",
    "OPENAI_API_KEY": "sk-the-servers-own-key-123456",
    "AWS_SECRET_ACCESS_KEY": "aws-secret-of-the-server-123",
}


def test_a_job_environment_holds_nothing_of_the_servers() -> None:
    """The project's secrets reach the job on its standard input; the model keys it may
    use it puts into its own environment (tests/security/test_model_keys.py)."""
    environment = job_environment(base=SERVER_ENVIRONMENT)
    assert environment["PATH"] == "/usr/bin"
    for name, value in SERVER_ENVIRONMENT.items():
        if name not in ("PATH", "LANG"):
            assert name not in environment
            assert value not in environment.values()


@pytest.fixture
def listener() -> Iterator[tuple[int, list[bytes]]]:
    """A loopback listener that records every connection it accepts (what it received)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    received: list[bytes] = []

    def serve() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            connection.settimeout(2)
            try:
                received.append(connection.recv(65536))
            except OSError:
                received.append(b"")
            connection.close()

    threading.Thread(target=serve, daemon=True).start()
    yield server.getsockname()[1], received
    server.close()


def _in_a_guarded_process(code: str, guard: bool = True) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a new Python process after ``guard_sockets`` with the dashboard's
    default policy (no allow-list); with ``guard`` false, without it (the control)."""
    prelude = (
        "from sparring._ssrf import NetworkPolicy, guard_sockets\nguard_sockets(NetworkPolicy())\n"
        if guard
        else ""
    )
    return subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        env={"LITELLM_LOCAL_MODEL_COST_MAP": "True", "PATH": "/usr/bin:/bin", **_python_path()},
    )


def _python_path() -> dict[str, str]:
    import os

    return {"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "169.254.169.254", "10.0.0.7"])
def test_a_raw_connection_is_refused(host: str, listener: tuple[int, list[bytes]]) -> None:
    port, received = listener
    done = _in_a_guarded_process(
        f"""
        import socket
        try:
            socket.create_connection(({host!r}, {port}), timeout=2)
        except ConnectionRefusedError as exc:
            print("REFUSED", exc)
        """
    )
    assert "REFUSED refused:" in done.stdout, done.stderr
    assert received == []


MODEL_CALL = """
import asyncio, litellm
async def call():
    return await litellm.acompletion(
        model="openai/gpt-4o-mini", api_base="http://127.0.0.1:{port}/v1",
        api_key="sk-project-model-key-0123456789", max_retries=0,
        messages=[{{"role": "user", "content": "hi"}}], timeout=3)
try:
    asyncio.run(call())
except Exception as exc:
    print("FAILED", type(exc).__name__)
"""


def test_a_model_call_to_a_loopback_base_url_never_leaves(
    listener: tuple[int, list[bytes]],
) -> None:
    """``model_base_url`` at a forbidden listener: LiteLLM's call is refused at the socket,
    and the listener never sees the project's model key (without the guard it does)."""
    port, received = listener
    done = _in_a_guarded_process(MODEL_CALL.format(port=port))
    assert "FAILED" in done.stdout, done.stdout + done.stderr
    assert received == []
    _in_a_guarded_process(MODEL_CALL.format(port=port), guard=False)  # the control
    assert any(b"sk-project-model-key-0123456789" in r for r in received), received
