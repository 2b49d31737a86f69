"""The SSRF guard (``sparring._ssrf``): with a policy installed, HTTP connectors refuse
loopback, link-local (cloud metadata), private ranges and ``::1`` — at connect time, on
every redirect, whatever the DNS answer — unless the operator allow-listed them."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from connector_helpers import Answer, LoopbackServer

from sparring._ssrf import (
    AddressRefused,
    GuardedTransport,
    IPAddress,
    NetworkPolicy,
    install_policy,
)
from sparring.connectors import create_connector, load_chatbot_config
from sparring.errors import ChatbotCrash

PUBLIC = "93.184.216.34"
DNS = {
    "bot.example": [PUBLIC],
    "metadata.example": ["169.254.169.254"],
    "intranet.example": ["10.1.2.3"],
    "sneaky.example": [PUBLIC, "127.0.0.1"],  # one public answer does not hide a private one
    "six.example": ["::1"],
    "mapped.example": ["::ffff:127.0.0.1"],
}


async def _fake_dns(host: str, port: int) -> list[IPAddress]:
    try:
        return [ipaddress.ip_address(host.strip("[]"))]
    except ValueError:
        return [ipaddress.ip_address(a) for a in DNS[host]]


def _client(policy: NetworkPolicy, seen: list[httpx.Request]) -> httpx.AsyncClient:
    def bot(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path == "/redirect":
            return httpx.Response(302, headers={"Location": "http://metadata.example/latest"})
        return httpx.Response(200, json={"ok": True})

    guard = GuardedTransport(policy, inner=httpx.MockTransport(bot), resolver=_fake_dns)
    return httpx.AsyncClient(transport=guard, follow_redirects=True)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:5005/webhook",
        "http://[::1]/",
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.7/",
        "http://metadata.example/",
        "http://intranet.example/",
        "http://sneaky.example/",
        "http://six.example/",
        "http://mapped.example/",
    ],
)
async def test_private_addresses_are_refused(url: str) -> None:
    seen: list[httpx.Request] = []
    async with _client(NetworkPolicy(), seen) as client:
        with pytest.raises(AddressRefused, match="refused"):
            await client.get(url)
    assert not seen  # nothing was sent


async def test_a_public_host_is_called_on_the_address_that_was_checked() -> None:
    seen: list[httpx.Request] = []
    async with _client(NetworkPolicy(), seen) as client:
        response = await client.get("https://bot.example/chat")
    assert response.status_code == 200
    assert seen[0].url.host == PUBLIC  # pinned: a second DNS answer is never asked for
    assert seen[0].headers["Host"] == "bot.example"
    assert seen[0].extensions["sni_hostname"] == "bot.example"


async def test_every_redirect_is_checked() -> None:
    seen: list[httpx.Request] = []
    async with _client(NetworkPolicy(), seen) as client:
        with pytest.raises(AddressRefused, match=r"169\.254\.169\.254"):
            await client.get("http://bot.example/redirect")
    assert [r.url.path for r in seen] == ["/redirect"]


async def test_the_operator_allow_list_opens_networks_and_host_names() -> None:
    policy = NetworkPolicy.from_entries(["10.0.0.0/8", "metadata.example", "::1", " "])
    seen: list[httpx.Request] = []
    async with _client(policy, seen) as client:
        for url in ("http://intranet.example/", "http://metadata.example/", "http://[::1]/"):
            assert (await client.get(url)).status_code == 200
        with pytest.raises(AddressRefused):
            await client.get("http://127.0.0.1/")


@pytest.fixture
def installed() -> Iterator[None]:
    yield
    install_policy(None)


def _rest_bot(tmp_path: Path, url: str) -> Path:
    path = tmp_path / "chatbot.yaml"
    path.write_text(
        "connector: rest\nparams:\n"
        f"  base_url: {url}\n  send_message:\n    path: /chat\n"
        "    payload_template: {message: '{user_msg}'}\n  response_path: reply\n",
        encoding="utf-8",
    )
    return path


async def test_connectors_are_guarded_once_a_server_installs_a_policy(
    tmp_path: Path, loopback: LoopbackServer, installed: None
) -> None:
    loopback.routes["/chat"] = lambda request: Answer(200, {"reply": "hello"})
    config = load_chatbot_config(_rest_bot(tmp_path, loopback.url))

    install_policy(NetworkPolicy())
    with pytest.raises(ChatbotCrash, match=r"127\.0\.0\.1 \(loopback\)"):
        await (await create_connector(config).open()).send("hi")
    assert not loopback.received

    # the tests' own loopback bot, allow-listed explicitly
    install_policy(NetworkPolicy.from_entries(["127.0.0.1/32"]))
    reply = await (await create_connector(config).open()).send("hi")
    assert reply.messages == ["hello"]

    install_policy(None)  # the CLI: no guard
    reply = await (await create_connector(config).open()).send("hi")
    assert reply.messages == ["hello"]
