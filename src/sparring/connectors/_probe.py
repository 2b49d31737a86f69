"""Is the chatbot under test reachable? One check before the first conversation.

A connector may offer an optional ``probe()`` coroutine (the HTTP connectors do: a ``GET``
on their endpoint, where any HTTP status proves a server answers); it raises a
``ChatbotFailure`` when the chatbot cannot be reached. Connectors without one (``python``,
``scripted``: in process) count as reachable. No user utterance is sent, so the probe
leaves no trace in the chatbot's dialogue state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from sparring.connectors._base import Connector, within_timeout
from sparring.connectors._config import ChatbotConfig, create_connector
from sparring.errors import ChatbotFailure, SparringError


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


class ChatbotUnreachable(SparringError):
    """The probe before the first conversation got no answer from the chatbot; ``cause``
    is why (e.g. "All connection attempts failed"). Nothing was written."""

    def __init__(self, cause: str | None) -> None:
        super().__init__(f"the chatbot cannot be reached: {cause or 'no answer'}")
        self.cause = cause


async def ensure_reachable(
    config: ChatbotConfig,
    timeout: float,
    report: Callable[[ProbeResult], None] | None = None,
) -> ProbeResult:
    """Probe the chatbot of ``config`` (a connector of its own, closed after) for at most
    ``timeout`` seconds; ``report`` sees the result. Raises ``ChatbotUnreachable`` when it
    does not answer — every job calls this before it writes anything or spends a model
    call."""
    connector = create_connector(config)
    try:
        result = await probe(connector, timeout)
    finally:
        await connector.aclose()
    if report is not None:
        report(result)
    if not result.reachable:
        raise ChatbotUnreachable(result.cause)
    return result


def endpoint_of(config: ChatbotConfig) -> str | None:
    """Where the connector talks to the chatbot, for the manifest: its URL without
    credentials, query or fragment, or the Python target/module it loads. A ``${NAME}``
    in the URL is kept as written (never resolved into the manifest)."""
    params = config.params.model_dump(mode="json")
    for key in ("url", "base_url", "endpoint"):
        value = params.get(key)
        if isinstance(value, str) and value:
            parts = urlsplit(value)
            netloc = parts.netloc.rpartition("@")[2]  # as written: "${PORT}" stays unread
            path = f"{parts.path.rstrip('/')}{params.get('path') or ''}"
            return urlunsplit((parts.scheme, netloc, path, "", ""))
    for key in ("target", "module", "file", "script"):
        value = params.get(key)
        if isinstance(value, str) and value:
            return f"{config.connector}:{value}"
    return config.connector
