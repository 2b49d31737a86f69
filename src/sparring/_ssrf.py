"""The server-side request forgery guard: which addresses a server may call for its users.

The dashboard calls chatbot URLs that users type. With a ``NetworkPolicy`` installed
(``install_policy``, done by ``sparring web`` and any worker serving it), every HTTP
connector's client goes through ``GuardedTransport``, which:

1. resolves the host itself (``getaddrinfo``), and refuses the request if ANY address is
   not globally routable — loopback (``127.0.0.0/8``, ``::1``), link-local (the cloud
   metadata address ``169.254.169.254``, ``fe80::/10``), private ranges (``10/8``,
   ``172.16/12``, ``192.168/16``, ``fc00::/7``), shared, reserved, multicast, unspecified,
   and IPv4 addresses inside IPv6 ones (mapped ``::ffff:a.b.c.d``, 6to4 ``2002::/16``,
   Teredo, NAT64 ``64:ff9b::/96``), and site-local ``fec0::/10`` — unless the operator
   allow-listed that network or host name;
2. connects to the address it checked (the URL's host is replaced by that address; the
   ``Host`` header and TLS server name keep the name), so a DNS answer that changes
   between the check and the connection (DNS rebinding) cannot slip through;
3. does so for every request the client sends — and ``httpx`` sends each redirect hop as
   a new request through the transport, so every redirect is checked too;
4. refuses a request that carries a secret the execution policy binds to other hosts or
   to none (``sparring._policy``, ``secret_hosts``), so a secret goes only where its owner
   said.

A refused request raises ``AddressRefused`` (an ``httpx.ConnectError``): the connectors
turn it into a chatbot failure whose message names the address and the reason. The CLI
installs no policy: on a person's own machine, calling ``localhost`` is the point.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import socket
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field

import httpx

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str, int], Awaitable[list[IPAddress]]]


class AddressRefused(httpx.ConnectError):
    """A request to an address the ``NetworkPolicy`` does not allow."""


def _why_not_public(address: IPAddress) -> str | None:
    """Why ``address`` is not a public internet address (``None``: it is one)."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is None and address.teredo is not None:
            embedded = address.teredo[1]  # (server, client): the client is where it goes
        if embedded is not None:  # ::ffff:a.b.c.d, 6to4 2002:AABB:CCDD::, Teredo
            return _why_not_public(embedded)
        if address.is_site_local:  # fec0::/10, deprecated but still routed privately
            return "site-local"
    for reason, flag in (
        ("loopback", address.is_loopback),
        ("link-local (e.g. cloud metadata)", address.is_link_local),
        ("unspecified", address.is_unspecified),
        ("multicast", address.is_multicast),
        ("private", address.is_private),
        ("reserved", address.is_reserved),
    ):
        if flag:
            return reason
    return None if address.is_global else "not globally routable"


@dataclass(frozen=True)
class NetworkPolicy:
    """Addresses a server may call: public ones, plus ``allow`` — networks
    (``10.0.0.0/8``, ``127.0.0.1``) or exact host names (``bot.internal``)."""

    allow_networks: tuple[IPNetwork, ...] = ()
    allow_hosts: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def from_entries(cls, entries: Iterable[str]) -> NetworkPolicy:
        """A policy from operator entries: each a network, an address or a host name."""
        networks: list[IPNetwork] = []
        hosts: set[str] = set()
        for entry in (e.strip() for e in entries):
            if not entry:
                continue
            try:
                networks.append(ipaddress.ip_network(entry.strip("[]"), strict=False))
            except ValueError:
                hosts.add(entry.lower().rstrip("."))
        return cls(tuple(networks), frozenset(hosts))

    def refusal(self, host: str, addresses: list[IPAddress]) -> str | None:
        """Why a request to ``host`` resolving to ``addresses`` is refused (``None``:
        allowed)."""
        if not addresses:
            return f"{host} resolves to no address"
        if host.lower().rstrip(".") in self.allow_hosts:
            return None
        for address in addresses:
            reason = _why_not_public(address)
            if reason is not None and not any(address in n for n in self.allow_networks):
                return (
                    f"{host} resolves to {address} ({reason}); the server calls it only "
                    "if the operator allow-lists it (SPARRING_WEB_SSRF_ALLOW)"
                )
        return None


async def resolve(host: str, port: int) -> list[IPAddress]:
    """Every address ``host`` resolves to (an address literal resolves to itself)."""
    try:
        return [ipaddress.ip_address(host.strip("[]"))]
    except ValueError:
        pass
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise httpx.ConnectError(f"cannot resolve {host}: {exc}") from exc
    found: list[IPAddress] = []
    for _family, _type, _proto, _name, sockaddr in infos:
        address = ipaddress.ip_address(str(sockaddr[0]).split("%")[0])
        if address not in found:
            found.append(address)
    return found


class GuardedTransport(httpx.AsyncBaseTransport):
    """An ``httpx`` transport that checks every request against ``policy`` and connects
    to the checked address (see the module docstring). ``inner`` sends the request
    (default: ``httpx.AsyncHTTPTransport``); ``resolver`` resolves host names (tests)."""

    def __init__(
        self,
        policy: NetworkPolicy,
        inner: httpx.AsyncBaseTransport | None = None,
        resolver: Resolver = resolve,
    ) -> None:
        self._policy = policy
        self._inner = inner or httpx.AsyncHTTPTransport()
        self._resolve = resolver

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        host = request.url.host
        if (bound := await _bound_secret_refusal(request)) is not None:
            raise AddressRefused(f"refused: {bound}", request=request)
        port = request.url.port or (443 if request.url.scheme == "https" else 80)
        addresses = await self._resolve(host, port)
        reason = self._policy.refusal(host, addresses)
        if reason is not None:
            raise AddressRefused(f"refused: {reason}", request=request)
        pinned = str(addresses[0])
        if pinned != host.strip("[]"):
            request.url = request.url.copy_with(host=pinned)
            if request.url.scheme == "https":
                request.extensions = {**request.extensions, "sni_hostname": host}
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


async def _bound_secret_refusal(request: httpx.Request) -> str | None:
    """Why ``request`` may not go to its host: it carries (URL, headers or body) the value
    of a secret the execution policy binds to other hosts, or to none (``sparring._policy``:
    ``secret_refusal``; a redirect to another host is checked the same way)."""
    return secret_refusal(request, await request.aread())


def secret_refusal(request: httpx.Request, body: bytes) -> str | None:
    """Why ``request`` (whose body is ``body``) may not go to its host under the execution
    policy in force: it carries a secret that may not be sent there (``None``: it may).
    Compared without case: a secret written into a host name (``x.${KEY}.evil.example``
    through a parameter that is not a URL) reaches the request lower-cased — and its DNS
    look-up, which comes after this check, would carry it to the name's server."""
    from sparring._policy import current_policy

    policy = current_policy()
    if policy.secret_hosts is None or not policy.secrets:
        return None
    host = request.url.host.lower().rstrip(".")
    carried = _carried_text(request, body).casefold()  # a host name is lower-cased
    for name, value in policy.secrets.items():
        forms = {form.casefold() for form in _encodings(value)}
        if len(value) < 4 or not any(form in carried for form in forms):
            continue
        if (why := policy.secret_refusal(name, host)) is not None:
            return why
    return None


def guard_secret_requests() -> None:
    """Check every request any ``httpx`` client of this process sends — LiteLLM's and the
    OpenAI SDK's included, whatever their transport, and each redirect hop, which ``httpx``
    sends as a request of its own — against the secrets' hosts (``secret_refusal``): a
    model provider's redirect cannot carry a key to another host. Raises ``AddressRefused``
    for a refused request. For the dashboard's job process; it cannot be undone."""
    if getattr(httpx.Client, "_sparring_guarded", False):
        return
    send_sync = httpx.Client._send_single_request
    send_async = httpx.AsyncClient._send_single_request

    def checked_sync(client: httpx.Client, request: httpx.Request) -> httpx.Response:
        if (why := secret_refusal(request, request.read())) is not None:
            raise AddressRefused(f"refused: {why}", request=request)
        return send_sync(client, request)

    async def checked_async(client: httpx.AsyncClient, request: httpx.Request) -> httpx.Response:
        if (why := secret_refusal(request, await request.aread())) is not None:
            raise AddressRefused(f"refused: {why}", request=request)
        return await send_async(client, request)

    httpx.Client._send_single_request = checked_sync  # type: ignore[method-assign,assignment]
    httpx.AsyncClient._send_single_request = checked_async  # type: ignore[method-assign,assignment]
    httpx.Client._sparring_guarded = True  # type: ignore[attr-defined]


def _carried_text(request: httpx.Request, body: bytes) -> str:
    """What a request carries, as text: its URL (also percent-decoded), its headers (a
    ``Basic`` authorization also decoded) and its body (also form-decoded)."""
    import base64
    import binascii
    from urllib.parse import unquote, unquote_plus

    parts = [str(request.url), unquote(str(request.url))]
    for key, value in request.headers.items():
        parts.append(f"{key}: {value}")
        scheme, _, token = value.partition(" ")
        if scheme.lower() == "basic":
            with contextlib.suppress(binascii.Error, ValueError):
                parts.append(base64.b64decode(token.strip()).decode("utf-8", "replace"))
    text = body.decode("utf-8", "replace")
    return "\n".join([*parts, text, unquote_plus(text)])


def _encodings(value: str) -> set[str]:
    """The forms a secret ``value`` takes in a request: as is, percent-encoded and
    JSON-escaped."""
    import json
    from urllib.parse import quote, quote_plus

    return {
        value,
        quote(value, safe=""),
        quote_plus(value),
        json.dumps(value)[1:-1],
        json.dumps(value, ensure_ascii=False)[1:-1],
    }


PolicySource = Callable[[], NetworkPolicy]
"""A policy decided again at each use (the dashboard's local mode follows its accounts)."""

_installed: NetworkPolicy | PolicySource | None = None


def install_policy(policy: NetworkPolicy | PolicySource | None) -> None:
    """Guard every HTTP connector created from now on in this process with ``policy`` — a
    ``NetworkPolicy``, or a ``PolicySource`` asked at each use (it must not raise: on
    doubt it answers its strictest policy) — ``None`` removes the guard. Called by
    servers, never by the CLI."""
    global _installed
    _installed = policy


def installed_policy() -> NetworkPolicy | None:
    """The policy in force in this process now, if any."""
    if _installed is None or isinstance(_installed, NetworkPolicy):
        return _installed
    return _installed()


def guarded(transport: httpx.AsyncBaseTransport | None) -> httpx.AsyncBaseTransport | None:
    """``transport`` wrapped in a ``GuardedTransport`` when a policy is installed (the one
    place connectors ask); unchanged otherwise."""
    policy = installed_policy()
    if policy is None:
        return transport
    return GuardedTransport(policy, inner=transport)


def _connect_refusal(policy: NetworkPolicy, address: object) -> str | None:
    """Why the policy refuses a socket connection to ``address`` (``(host, port, …)``)."""
    if not isinstance(address, tuple) or len(address) < 2 or not isinstance(address[0], str):
        return None
    host = address[0]
    try:
        addresses: list[IPAddress] = [ipaddress.ip_address(host.split("%")[0])]
    except ValueError:  # a name given to connect(): check what it resolves to
        try:
            infos = socket.getaddrinfo(host, address[1], type=socket.SOCK_STREAM)
        except OSError:
            return None  # connect() itself fails to resolve it
        addresses = [ipaddress.ip_address(str(i[4][0]).split("%")[0]) for i in infos]
    return policy.refusal(host, addresses)


def guard_sockets(policy: NetworkPolicy) -> None:
    """Check every internet socket connection this process makes against ``policy``, for
    the rest of its life (a ``sys.addaudithook`` on ``socket.connect``, which cannot be
    removed): model calls through LiteLLM, SDK clients and anything else that opens a
    connection, not only the HTTP connectors. A refused connection raises
    ``ConnectionRefusedError`` naming the address and the reason. Host names the operator
    allow-listed are resolved now and their addresses allowed. Only for a process that
    runs jobs for a server (the dashboard's job process): it cannot be undone."""
    import sys

    extra: list[IPNetwork] = []
    for host in policy.allow_hosts:
        try:
            infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
        except OSError:
            continue
        extra += [ipaddress.ip_network(str(i[4][0]).split("%")[0]) for i in infos]
    checked = NetworkPolicy(policy.allow_networks + tuple(extra), policy.allow_hosts)

    def hook(event: str, args: tuple[object, ...]) -> None:
        if event != "socket.connect" or len(args) < 2:
            return
        sock = args[0]
        if getattr(sock, "family", None) not in (socket.AF_INET, socket.AF_INET6):
            return
        reason = _connect_refusal(checked, args[1])
        if reason is not None:
            raise ConnectionRefusedError(f"refused: {reason}")

    sys.addaudithook(hook)


def url_refusal(url: str, policy: NetworkPolicy | None = None) -> str | None:
    """Why ``policy`` (default: the installed one) refuses requests to ``url``'s host
    (``None``: allowed, or no policy); resolves the name now (no request is sent). For
    checks before work starts — a job's ``model_base_url`` — that name the setting; the
    transport and socket guards still check every request."""
    policy = policy or installed_policy()
    if policy is None:
        return None
    parsed = httpx.URL(url)
    if parsed.scheme not in ("http", "https") or not parsed.host:
        return f"{url!r} is not an http(s) URL"
    try:
        addresses: list[IPAddress] = [ipaddress.ip_address(parsed.host.strip("[]"))]
    except ValueError:
        try:
            infos = socket.getaddrinfo(parsed.host, parsed.port or 443, type=socket.SOCK_STREAM)
        except OSError:
            return f"cannot resolve {parsed.host}"
        addresses = [ipaddress.ip_address(str(i[4][0]).split("%")[0]) for i in infos]
    return policy.refusal(parsed.host, addresses)
