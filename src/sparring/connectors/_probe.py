"""Is the chatbot under test reachable? One check before the first conversation.

A connector may offer an optional ``probe()`` coroutine (the HTTP connectors do: a ``GET``
on their endpoint, where any HTTP status proves a server answers); it raises a
``ChatbotFailure`` when the chatbot cannot be reached. Connectors without one (``python``,
``scripted``: in process) count as reachable. No user utterance is sent, so the probe
leaves no trace in the chatbot's dialogue state.
"""

from __future__ import annotations

from dataclasses import dataclass

from sparring.connectors._base import Connector, within_timeout
from sparring.errors import ChatbotFailure


@dataclass(frozen=True)
class ProbeResult:
    """``reachable`` is ``False`` with the failure's ``cause`` (the transport's message,
    e.g. "All connection attempts failed"); ``checked`` is ``False`` when the connector
    offers no probe (in-process chatbots)."""

    reachable: bool
    cause: str | None = None
    checked: bool = True


async def probe(connector: Connector, timeout: float = 10.0) -> ProbeResult:
    """Probe ``connector`` for at most ``timeout`` seconds; never raises for the chatbot's
    failures (they become an unreachable ``ProbeResult``)."""
    check = getattr(connector, "probe", None)
    if check is None:
        return ProbeResult(reachable=True, checked=False)
    try:
        await within_timeout(check(), timeout, "answer to the reachability probe")
    except ChatbotFailure as exc:
        return ProbeResult(reachable=False, cause=str(exc))
    return ProbeResult(reachable=True)
