"""Local mode: the dashboard on a person's own laptop may call chatbots on loopback and
private addresses; a server others can reach keeps the SSRF guard.

The guard (``sparring._ssrf``) protects a shared server from its users: an account that
types ``http://127.0.0.1:6379`` or a LAN address makes the *server* call it. On a server
that listens on loopback only and has a single account, the only user is the person at
the machine, who can call those addresses anyway: there the guard would only stand in
the way of testing their own bot on ``localhost``.

The decision is taken on parsed, typed facts (``ServerFacts``), never on text: the
addresses the server listens on (each parsed with ``ipaddress``; a host name is resolved
and every address it names must be loopback), the number of accounts in the database,
and whether sign-up is open (anyone who reaches the server could then make an account).
It is taken again at each use of the policy (the worker starting a job, a launch, the
launch page), and when an account is created or deleted (Django's
``post_save``/``post_delete`` on the user model); where the database may not be queried
(an event loop's thread) the last decision stands. A second account ends local mode at
once; link-local addresses (cloud metadata, ``169.254.169.254``) stay refused in local mode
too.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import threading
from dataclasses import dataclass
from typing import Any

from sparring._ssrf import IPAddress, IPNetwork, NetworkPolicy, install_policy

logger = logging.getLogger(__name__)

LOCAL_NETWORKS: tuple[IPNetwork, ...] = tuple(
    ipaddress.ip_network(n)
    for n in ("127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7")
)
"""What local mode opens: loopback and the private ranges (never link-local)."""


@dataclass(frozen=True)
class ServerFacts:
    """What local mode is decided on: ``bind``, the addresses the server listens on (empty:
    unknown, e.g. not started by ``sparring web``), ``accounts``, how many user accounts
    exist, and ``signup``, whether anyone may create one."""

    bind: tuple[IPAddress, ...] = ()
    accounts: int = 0
    signup: bool = False

    @property
    def local(self) -> bool:
        """Loopback only, one account at most, sign-up closed."""
        on_loopback = bool(self.bind) and all(a.is_loopback for a in self.bind)
        return on_loopback and self.accounts <= 1 and not self.signup


def bind_addresses(host: str) -> tuple[IPAddress, ...]:
    """The addresses serving on ``host`` listens on: the address itself, or every address
    the name resolves to (empty when it resolves to none)."""
    try:
        return (ipaddress.ip_address(host.strip("[]")),)
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except OSError:
        return ()
    found = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]
    return tuple(dict.fromkeys(found))


def network_policy(allow: list[str], facts: ServerFacts) -> NetworkPolicy:
    """The operator's allow-list (``SPARRING_WEB_SSRF_ALLOW``), plus ``LOCAL_NETWORKS``
    when ``facts`` say local mode."""
    base = NetworkPolicy.from_entries(allow)
    if not facts.local:
        return base
    return NetworkPolicy(base.allow_networks + LOCAL_NETWORKS, base.allow_hosts)


_lock = threading.Lock()
_facts = ServerFacts()
_bind: tuple[IPAddress, ...] = ()


def current_facts() -> ServerFacts:
    """The facts of the last decision (``refresh``)."""
    return _facts


def refresh() -> ServerFacts:
    """Decide again from the database and the settings (the account count, sign-up) and
    the addresses ``install`` was given; the new facts."""
    global _facts
    from django.conf import settings
    from django.contrib.auth import get_user_model

    accounts = get_user_model().objects.count()
    with _lock:
        _facts = ServerFacts(_bind, accounts, bool(settings.SIGNUP_OPEN))
        return _facts


def _policy() -> NetworkPolicy:
    """The policy now: decided again from the database where this thread may query it
    (the worker starting a job, a request); the last decision elsewhere (an event loop's
    thread, where Django refuses a query, or a database that does not answer)."""
    from django.conf import settings

    facts = _facts
    try:
        facts = refresh()
    except Exception:  # SynchronousOnlyOperation, DatabaseError: keep the last decision
        logger.debug("local mode: the last decision is kept", exc_info=True)
    return network_policy(list(settings.SSRF_ALLOW), facts)


def install(host: str) -> ServerFacts:
    """Install the dashboard's network policy for a server listening on ``host``: the
    operator's allow-list, and local mode while the facts allow it (decided now and again
    at each change, see the module docstring); the facts decided now."""
    global _bind
    _bind = bind_addresses(host)
    facts = refresh()
    install_policy(_policy)
    return facts


def _accounts_changed(sender: Any, **kwargs: Any) -> None:
    try:
        refresh()
    except Exception:  # a failed count must not fail the account's save: keep the guard
        global _facts
        _facts = ServerFacts()
        logger.exception("local mode: accounts could not be counted; the guard stays on")


def connect_signals() -> None:
    """Decide again whenever an account is created or deleted."""
    from django.contrib.auth import get_user_model
    from django.db.models.signals import post_delete, post_save

    user = get_user_model()
    post_save.connect(_accounts_changed, sender=user, dispatch_uid="sparring_web_local_save")
    post_delete.connect(_accounts_changed, sender=user, dispatch_uid="sparring_web_local_delete")
