"""The project's model key goes only to its provider's hosts (issue 32): LiteLLM's default
host for the provider, or a host the key's owner stated. An editor who points
``model_base_url`` (or a model name that is a URL) at their own server gets no key there:
the job is refused before any work, naming the key, its hosts and the setting."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sparring.errors import UserInputError
from sparring.web._job_process import JobSpec, ProcessExecutor, job_environment, model_keys

KEY = "sk-owner-model-key-0123456789abcdef"
SECRETS = {"OPENAI_API_KEY": KEY, "BOT_KEY": "bot-key-0123456789"}


def _spec(settings: dict[str, object], hosts: dict[str, list[str]] | None = None) -> JobSpec:
    return JobSpec(
        action="submit",
        job="simulate",
        settings=settings,  # type: ignore[arg-type]
        run_dir="/nowhere",
        roots=[],
        secrets=SECRETS,
        secret_hosts=hosts or {},
    )


@pytest.mark.parametrize(
    ("settings", "hosts", "granted"),
    [
        ({"model": "openai/gpt-4o-mini"}, None, {"OPENAI_API_KEY"}),  # LiteLLM's own host
        (
            {"model": "gpt-4o-mini", "model_base_url": "https://api.openai.com/v1"},
            None,
            {"OPENAI_API_KEY"},
        ),
        (
            {"model": "openai/gpt-4o-mini", "model_base_url": "https://llm.corp.example/v1"},
            {"OPENAI_API_KEY": ["llm.corp.example"]},  # the owner's own proxy, stated
            {"OPENAI_API_KEY"},
        ),
        ({"model": "custom_openai/x", "model_base_url": "https://evil.example/v1"}, None, set()),
        ({"model": "scripted:replies.yaml"}, None, set()),
        ({}, None, set()),
    ],
)
def test_a_model_key_is_granted_only_towards_its_providers_hosts(
    settings: dict[str, object], hosts: dict[str, list[str]] | None, granted: set[str]
) -> None:
    keys = model_keys(_spec(settings, hosts)).environ
    assert set(keys) == granted
    assert "BOT_KEY" not in keys  # a secret no model reads never enters the environment


@pytest.mark.parametrize(
    "settings",
    [
        {"model": "openai/gpt-4o-mini", "model_base_url": "https://evil.example/v1"},
        {"model": "gpt-4o-mini", "model_base_url": "https://api.openai.com.evil.example/v1"},
        {"model": "gpt-4o-mini", "model_base_url": "https://api.openai.com@evil.example/v1"},
        {"model": "openai/https://evil.example"},  # a model name that is a URL
        {
            "model": "scripted:x.yaml",
            "profile_model": "openai/gpt-4o",
            "model_base_url": "http://evil.example",
        },
    ],
)
def test_an_editors_model_base_url_never_gets_the_key(settings: dict[str, object]) -> None:
    spec = _spec(settings, {"OPENAI_API_KEY": []})
    if "profile_model" in settings:
        spec.job = "explore"
    with pytest.raises(UserInputError) as raised:
        model_keys(spec)
    said = str(raised.value)
    assert "settings.model_base_url" in said
    assert "OPENAI_API_KEY may be sent only to api.openai.com" in said
    assert "evil.example" in said and KEY not in said


def test_a_job_process_starts_with_no_secret_in_its_environment() -> None:
    environment = job_environment({"PATH": "/usr/bin", "OPENAI_API_KEY": "sk-servers-own"})
    assert environment == {"PATH": "/usr/bin", "HOME": "/tmp"}


@pytest.fixture
def model_server() -> Iterator[tuple[int, list[bytes]]]:
    """A server on loopback that records what each connection sent (an editor's server,
    allow-listed by the SSRF policy so only the key binding stands in the way)."""
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
            with contextlib.suppress(OSError):
                received.append(connection.recv(65536))
            connection.close()

    threading.Thread(target=serve, daemon=True).start()
    yield server.getsockname()[1], received
    server.close()


PROFILE = """\
test_name: order
user:
  language: English
  role: a customer who wants to order a pizza
  context: [{personality: impatient}]
  goals: ["I would like to order a pizza"]
chatbot: {is_starter: false, fallback: "Sorry, I did not understand."}
conversation:
  number: 1
  goal_style: {steps: 1}
  interaction_style: [single question]
"""


def _run_job(tmp_path: Path, port: int, hosts: dict[str, list[str]]) -> tuple[str | None, str]:
    """A simulate job with an OpenAI user model at the editor's server, in a real job
    process; its final status and error."""
    from sparring import _ssrf

    (tmp_path / "chatbot.yaml").write_text("connector: scripted\nparams: {}\n")
    (tmp_path / "profiles").mkdir(exist_ok=True)
    (tmp_path / "profiles" / "order.yaml").write_text(PROFILE)
    settings = {
        "chatbot": str(tmp_path / "chatbot.yaml"),
        "profiles": [str(tmp_path / "profiles")],
        "model": "openai/gpt-4o-mini",
        "model_base_url": f"http://127.0.0.1:{port}/v1",
        "concurrency": 1,
    }
    before = _ssrf.installed_policy()
    _ssrf.install_policy(_ssrf.NetworkPolicy.from_entries(["127.0.0.1"]))
    try:
        executor = ProcessExecutor()
        executor.prepare(SECRETS, [tmp_path], {k: frozenset(v) for k, v in hosts.items()})
        handle = executor.submit("simulate", settings, tmp_path / f"run-{len(hosts)}")  # type: ignore[arg-type]
    finally:
        _ssrf.install_policy(before)
    deadline = time.monotonic() + 600  # a bound on a hung process, not a timing claim
    while executor.status(handle) == "running" and time.monotonic() < deadline:
        time.sleep(0.2)
    failure = executor.error(handle)
    return executor.status(handle), str(failure or "")


def test_an_editors_model_server_never_receives_the_key(
    tmp_path: Path, model_server: tuple[int, list[bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    port, received = model_server
    monkeypatch.setenv("SPARRING_ALLOW_MODEL_REQUESTS", "1")  # the server is local
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    status, error = _run_job(tmp_path, port, {})
    assert status == "failed"
    assert "settings.model_base_url" in error and "OPENAI_API_KEY" in error, error
    assert received == []  # no work at all: not even a keyless request
    # the control: once the owner states that host, the same job sends the key there
    _run_job(tmp_path, port, {"OPENAI_API_KEY": ["127.0.0.1"]})
    assert any(KEY.encode() in r for r in received), received
    assert os.environ.get("OPENAI_API_KEY") != KEY  # never in the server's environment
