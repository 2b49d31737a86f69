"""Local mode (``sparring.web._local``): a server on loopback with one account tests the
person's own bots on loopback and private addresses with no allow-list; a server others
can reach — bound to the network, with a second account, or with sign-up open — keeps the
SSRF guard, and a run launched there against loopback is refused before the bot is
called. And a taken port is one line on standard error, before anything is printed."""

from __future__ import annotations

import ipaddress
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from web_helpers import PASSWORD, PROFILE, api, client_for, json_bot

from sparring.web import _local, _worker
from sparring.web._files import save_file
from sparring.web._serve import bind, guard_network
from sparring.web._views import create_project
from sparring.web.models import Run

SRC = Path(__file__).resolve().parents[2] / "src"
LOOPBACK = (ipaddress.ip_address("127.0.0.1"),)


@pytest.mark.parametrize(
    ("facts", "local"),
    [
        (_local.ServerFacts(LOOPBACK, 1), True),
        (_local.ServerFacts((ipaddress.ip_address("::1"),), 1), True),
        (_local.ServerFacts(LOOPBACK, 0), True),
        (_local.ServerFacts(LOOPBACK, 2), False),  # a teammate: shared
        (_local.ServerFacts(LOOPBACK, 1, signup=True), False),  # anyone may join
        (_local.ServerFacts((ipaddress.ip_address("0.0.0.0"),), 1), False),
        (_local.ServerFacts((ipaddress.ip_address("192.168.1.20"),), 1), False),
        (_local.ServerFacts((*LOOPBACK, ipaddress.ip_address("10.0.0.5")), 1), False),
        (_local.ServerFacts((), 1), False),  # listening where: unknown
    ],
)
def test_local_mode_is_loopback_only_one_account_and_sign_up_closed(
    facts: _local.ServerFacts, local: bool
) -> None:
    assert facts.local is local


def test_a_host_name_is_local_only_when_every_address_it_names_is_loopback() -> None:
    assert _local.bind_addresses("localhost")
    assert all(a.is_loopback for a in _local.bind_addresses("localhost"))
    assert _local.bind_addresses("[::1]") == (ipaddress.ip_address("::1"),)
    assert _local.bind_addresses("no-such-host.invalid") == ()


@pytest.mark.parametrize(
    ("address", "in_local_mode"),
    [
        ("127.0.0.1", True),
        ("10.1.2.3", True),
        ("172.20.0.4", True),
        ("192.168.1.5", True),
        ("fd00::1", True),
        ("::1", True),
        ("169.254.169.254", False),  # cloud metadata stays refused
        ("fe80::1", False),
        ("100.64.0.1", False),  # shared (carrier) space is not the user's LAN
    ],
)
def test_local_mode_opens_loopback_and_private_addresses_only(
    address: str, in_local_mode: bool
) -> None:
    parsed = [ipaddress.ip_address(address)]
    local = _local.network_policy([], _local.ServerFacts(LOOPBACK, 1))
    shared = _local.network_policy([], _local.ServerFacts(LOOPBACK, 2))
    assert (local.refusal("bot", parsed) is None) is in_local_mode
    assert shared.refusal("bot", parsed) is not None
    public = [ipaddress.ip_address("93.184.216.34")]
    assert local.refusal("bot", public) is None and shared.refusal("bot", public) is None


@pytest.fixture
def bot() -> Iterator[tuple[str, list[Any]]]:
    """A REST chatbot on loopback that records each request it gets."""
    with json_bot(lambda _: "Sure, which size?") as (url, seen):
        yield url, seen


CHATBOT = (
    "connector: rest\nparams:\n  base_url: {url}\n"
    "  send_message: {{path: /chat, payload_template: {{message: '{{user_msg}}'}}}}\n"
    "  response_path: reply\n"
)


def _run_against(owner: Any, url: str, monkeypatch: pytest.MonkeyPatch) -> Run:
    """A simulate run of a new project of ``owner`` against the bot at ``url``, launched
    through the API and run by the worker."""
    worker = _worker.Worker()  # the runner's in-process executor: a real job
    monkeypatch.setattr(_worker, "_worker", worker)
    project = create_project(owner, "laptop")
    save_file(project, "chatbot", "chatbot.yaml", CHATBOT.format(url=url), owner)
    save_file(project, "profile", "profiles/order.yaml", PROFILE, owner)
    settings = {"chatbot": "chatbot.yaml", "profiles": ["profiles"]}
    response = api(
        client_for(owner),
        "post",
        "/api/runs/",
        {"project": project.pk, "job": "simulate", "settings": settings},
    )
    assert response.status_code == 201, response.content
    worker.run_one(response.data["id"])
    return Run.objects.get(pk=response.data["id"])


@pytest.mark.django_db(transaction=True)
def test_on_a_laptop_the_only_owner_tests_a_loopback_bot_with_no_allow_list(
    bot: tuple[str, list[Any]], monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    settings.SSRF_ALLOW = []
    url, seen = bot
    owner = get_user_model().objects.create_superuser("owner", password=None)
    guard_network("127.0.0.1")  # as `sparring web` does on loopback
    assert _local.current_facts().local
    run = _run_against(owner, url, monkeypatch)
    assert run.status == "finished", run.error
    assert seen  # the bot was called


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("shared_by", ["a second account", "the network", "open sign-up"])
def test_a_shared_server_refuses_a_run_against_loopback_before_calling_it(
    bot: tuple[str, list[Any]],
    monkeypatch: pytest.MonkeyPatch,
    settings: Any,
    shared_by: str,
) -> None:
    settings.SSRF_ALLOW = []
    url, seen = bot
    owner = get_user_model().objects.create_superuser("owner", password=None)
    host = "0.0.0.0" if shared_by == "the network" else "127.0.0.1"
    settings.SIGNUP_OPEN = shared_by == "open sign-up"
    guard_network(host)
    attacker = owner
    if shared_by == "a second account":  # the attack: a teammate's account, after start
        attacker = get_user_model().objects.create_user("mallory", password=PASSWORD)
    assert not _local.current_facts().local
    run = _run_against(attacker, url, monkeypatch)
    assert run.status == "failed"
    assert "127.0.0.1 (loopback)" in run.error and "SPARRING_WEB_SSRF_ALLOW" in run.error
    assert not seen  # the bot was never called


@pytest.mark.django_db
def test_the_launch_page_says_which_mode_the_server_is_in(settings: Any) -> None:
    settings.SSRF_ALLOW = []
    owner = get_user_model().objects.create_superuser("owner", password=None)
    project = create_project(owner, "laptop")
    guard_network("127.0.0.1")
    page = client_for(owner).get(f"/projects/{project.pk}/launch/simulate/").content.decode()
    assert "Local mode" in page and "loopback and private addresses" in page
    get_user_model().objects.create_user("teammate", password=PASSWORD)
    page = client_for(owner).get(f"/projects/{project.pk}/launch/simulate/").content.decode()
    assert "Local mode" not in page and "SPARRING_WEB_SSRF_ALLOW" in page


def test_with_no_port_given_the_next_free_port_is_taken() -> None:
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    held.listen()
    taken = held.getsockname()[1]
    try:
        from sparring.web import _serve

        original = _serve.DEFAULT_PORT
        _serve.DEFAULT_PORT = taken
        try:
            sockets = bind("127.0.0.1", None)
        finally:
            _serve.DEFAULT_PORT = original
        try:
            assert sockets[0].getsockname()[1] > taken
        finally:
            for sock in sockets:
                sock.close()
    finally:
        held.close()


def test_a_taken_port_is_one_line_before_anything_is_printed(tmp_path: Path) -> None:
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    held.listen()
    port = held.getsockname()[1]
    env = {**os.environ, "PYTHONPATH": str(SRC), "SPARRING_WEB_DATA": str(tmp_path)}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    env.pop("SPARRING_WEB_MODE", None)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "sparring.web", "--port", str(port), "--no-browser"],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        held.close()
    assert done.returncode == 2
    assert done.stdout == ""  # no URL, no sign-in link for a server that is not there
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert f"port {port} on 127.0.0.1 is taken" in lines[0] and "Traceback" not in done.stderr


@pytest.mark.django_db
def test_an_account_made_behind_the_servers_back_ends_local_mode_at_the_next_use(
    settings: Any,
) -> None:
    """An account created without the signals (another process, a bulk insert) is counted
    the next time the policy is asked, e.g. when the worker starts a job."""
    from sparring._ssrf import installed_policy

    settings.SSRF_ALLOW = []
    get_user_model().objects.create_superuser("owner", password=None)
    guard_network("127.0.0.1")
    policy = installed_policy()
    assert policy is not None and policy.refusal("bot", list(LOOPBACK)) is None
    get_user_model().objects.bulk_create([get_user_model()(username="other")])  # no signal
    policy = installed_policy()
    assert policy is not None and policy.refusal("bot", list(LOOPBACK)) is not None
