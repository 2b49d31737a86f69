"""HTTP plumbing shared by the HTTP connectors (Rasa, Taskyto, REST, OpenAI-compatible).

``HttpClient`` owns one lazily created ``httpx.AsyncClient`` per connector and turns
httpx's low-level errors into the chatbot-failure family at this boundary:

- ``httpx.TimeoutException`` → ``ChatbotTimeout``;
- any other ``httpx.HTTPError`` (refused, reset, closed without a response) and an HTTP
  status ≥ 400 → ``ChatbotCrash``;
- a body that is not JSON, or JSON nested too deeply → ``BadPayload``. An empty body is
  ``None`` (an empty reply);
- a body over the connector's ``max_reply_bytes`` → ``ReplyTooLarge``, read no further
  (``_boundary``).

Messages are redacted, so no secret resolved from ``${ENV}`` leaks into records or logs.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import httpx

from sparring._ssrf import guarded
from sparring.connectors._base import ConnectorContext
from sparring.connectors._boundary import decode_json, too_large
from sparring.errors import ChatbotCrash, ChatbotTimeout

logger = logging.getLogger(__name__)

_SNIPPET = 200


def join_url(base: str, path: str) -> str:
    """``base`` + ``path`` with exactly one slash between (``path`` may be a full URL)."""
    if not path or path.startswith(("http://", "https://")):
        return path or base
    return f"{base.rstrip('/')}/{path.lstrip('/')}"


class HttpClient:
    """JSON over HTTP with chatbot-failure translation (see the module docstring).

    ``headers`` are sent with every request; ``timeout`` is seconds per request.
    """

    def __init__(
        self, context: ConnectorContext, *, timeout: float, headers: Mapping[str, str] = {}
    ) -> None:
        self._context = context
        self._timeout = timeout
        self._headers = dict(headers)
        self._client: httpx.AsyncClient | None = None

    def __repr__(self) -> str:
        return f"HttpClient(timeout={self._timeout:g})"

    def _get_client(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(
                headers=self._headers,
                timeout=httpx.Timeout(self._timeout),
                transport=guarded(self._context.transport),
                follow_redirects=True,
            )
        return self._client

    async def request_json(
        self,
        method: str,
        url: str,
        *,
        json_body: Any = None,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        expect_json: bool = True,
        content: bytes | None = None,
    ) -> Any:
        """Send one request; return the decoded JSON body (``None`` when the body is empty),
        with the secrets resolved from ``${ENV}`` hidden.

        With ``expect_json=False`` the body's text is returned (secrets hidden too).
        ``content``, when given, is sent as the body byte for byte instead of ``json_body``
        (as JSON unless ``headers`` name another ``Content-Type``). Raises
        ``ChatbotTimeout``, ``ChatbotCrash`` or ``BadPayload``.
        """
        redact = self._context.redact
        where = redact.text(f"{method} {url}")
        try:
            if content is not None:
                typed = {k.lower() for k in (*self._headers, *(headers or {}))}
                extra = {} if "content-type" in typed else {"Content-Type": "application/json"}
                request = self._get_client().build_request(
                    method,
                    url,
                    content=content,
                    params=params,
                    headers={**extra, **(headers or {})},
                )
            else:
                request = self._get_client().build_request(
                    method, url, json=json_body, params=params, headers=headers
                )
            response = await self._get_client().send(request, stream=True)
            try:
                body = await self._read_capped(response, where)
            finally:
                await response.aclose()
        except httpx.TimeoutException as exc:
            raise ChatbotTimeout(f"no reply within {self._timeout:g} s to {where}") from exc
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            detail = redact.text(str(exc)) or type(exc).__name__
            raise ChatbotCrash(f"{where} failed: {detail}") from exc
        logger.debug("%s -> HTTP %s", where, response.status_code)
        if response.status_code >= 400:
            snippet = redact.text(_text(response, body[:_SNIPPET]))
            raise ChatbotCrash(f"HTTP {response.status_code} from {where}: {snippet}")
        if not body.strip():
            return None
        if not expect_json:
            return redact.text(_text(response, body))
        return redact(decode_json(body, self._context.limits, where))

    async def _read_capped(self, response: httpx.Response, where: str) -> bytes:
        """The body of ``response``, raising ``ReplyTooLarge`` as soon as it passes the
        limit (a declared ``Content-Length`` over it is refused before reading)."""
        limit = self._context.limits.max_bytes
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise too_large(limit, where)
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > limit:
                raise too_large(limit, where)
            chunks.append(chunk)
        return b"".join(chunks)

    async def reach(self, url: str) -> None:
        """Check that the server at ``url`` answers at all: a ``GET`` whose status, even 404
        or 405, proves it is up. Raises ``ChatbotTimeout`` or ``ChatbotCrash`` (refused,
        unknown host, reset) with the transport's own message, redacted."""
        redact = self._context.redact
        try:
            response = await self._get_client().send(
                self._get_client().build_request("GET", url), stream=True
            )
            await response.aclose()  # the status is enough: the body is never read
        except httpx.TimeoutException as exc:
            raise ChatbotTimeout(
                f"no answer within {self._timeout:g} s from {redact.text(url)}"
            ) from exc
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            detail = redact.text(str(exc)) or type(exc).__name__
            raise ChatbotCrash(f"{redact.text(url)} cannot be reached: {detail}") from exc

    async def aclose(self) -> None:
        """Close the underlying client, if one was opened. Never raises."""
        if self._client is not None:
            client, self._client = self._client, None
            try:
                await client.aclose()
            except Exception:  # closing must never fail a run
                logger.debug("closing the HTTP client failed", exc_info=True)


def _text(response: httpx.Response, body: bytes) -> str:
    """``body`` decoded with the response's charset (UTF-8 when it names none or an
    unknown one), undecodable bytes replaced."""
    try:
        return body.decode(response.charset_encoding or "utf-8", errors="replace")
    except LookupError:
        return body.decode("utf-8", errors="replace")
