"""One redaction pass over everything sparring writes or prints (issue 26, defects 18, 19).

Run records, verdicts, reports, summaries and exports are written through
``conversations.atomic_write``, the console and the log through the CLI's consoles and
``sparring._terminal.escape``; each of them passes its text through ``redact_text``,
which replaces with ``***``:

- **known secrets**: values registered with ``add_secrets`` — the ``${ENV}`` values and
  ``SecretStr`` parameters a connector resolved, the values of its credential headers
  (``Authorization``, ``X-API-Key``, ``Cookie``, any name with key, token, secret, auth or
  password), and a model provider's configured ``api_key``;
- **provider keys in the environment**: the value of every variable whose name holds
  ``KEY``, ``TOKEN``, ``SECRET``, ``PASSWORD``, ``PASSWD`` or ``CREDENTIAL`` (values of
  at least 8 characters with a digit, or of 20 and more, without spaces), read at each
  pass, so a model server's 401 that echoes ``OPENAI_API_KEY`` is caught wherever it
  ends up;
- **URL credentials**: the userinfo of any URL (``http://user:pass@host`` →
  ``http://***@host``) and the value of credential-like query parameters (``api_key``,
  ``apikey``, ``key``, ``token``, ``access_token``, ``auth``, ``password``, ``secret``,
  ``client_secret``, ``signature``, ``sig``);
- **authorization values**: ``Bearer …``, ``Basic …`` and ``Token …`` credentials.

Secrets are replaced longest first; shorter than ``MIN_SECRET_LENGTH`` characters they
are ignored (they would blank unrelated text).
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any

REDACTED = "***"
MIN_SECRET_LENGTH = 4

_CREDENTIAL_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
_CREDENTIAL_HEADER = re.compile(
    r"^(authorization|proxy-authorization|cookie|set-cookie)$|key|token|secret|auth|password",
    re.IGNORECASE,
)
_URL_USERINFO = re.compile(r"(\b[a-z][a-z0-9+.-]*://)[^/?#@\s\"'<>]+@", re.IGNORECASE)
_QUERY_SECRET = re.compile(
    r"((?:[?&;]|&amp;)(?:api[_-]?key|apikey|key|token|access[_-]?token|auth|password|passwd"
    r"|pwd|secret|client[_-]?secret|signature|sig)=)[^&#\s\"'<>]+",
    re.IGNORECASE,
)
_AUTHORIZATION = re.compile(r"\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}")

_lock = threading.Lock()
_known: set[str] = set()


def add_secrets(values: Iterable[str | None]) -> None:
    """Register ``values`` (API keys, tokens, passwords) for every later redaction in this
    process; ``None`` and values shorter than ``MIN_SECRET_LENGTH`` are skipped."""
    with _lock:
        _known.update(v for v in values if v is not None and len(v) >= MIN_SECRET_LENGTH)


def header_secrets(headers: Mapping[str, str]) -> list[str]:
    """The values of ``headers`` whose names carry credentials (with the bare credential
    of an ``Authorization: Bearer …`` value too)."""
    found: list[str] = []
    for name, value in headers.items():
        if _CREDENTIAL_HEADER.search(str(name)):
            found.append(str(value))
            scheme, _, credential = str(value).partition(" ")
            if credential and scheme.isalpha():
                found.append(credential)
    return found


def environment_secrets(environ: Mapping[str, str] | None = None) -> list[str]:
    """Values of credential-named environment variables that look like keys."""
    environ = os.environ if environ is None else environ
    return [
        value
        for name, value in environ.items()
        if _CREDENTIAL_NAME.search(name) and _looks_like_a_key(value)
    ]


def _looks_like_a_key(value: str) -> bool:
    if len(value) < 8 or any(c.isspace() for c in value):
        return False
    return len(value) >= 20 or any(c.isdigit() for c in value)


def redact_text(text: str) -> str:
    """``text`` with every secret, URL credential and authorization value replaced."""
    with _lock:
        known = set(_known)
    secrets = sorted(known.union(environment_secrets()), key=len, reverse=True)
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    text = _URL_USERINFO.sub(rf"\1{REDACTED}@", text)
    text = _QUERY_SECRET.sub(rf"\1{REDACTED}", text)
    return _AUTHORIZATION.sub(rf"\1 {REDACTED}", text)


def redact(value: Any) -> Any:
    """A copy of ``value`` (JSON-like data: str, list, tuple, dict) with ``redact_text``
    applied to every string, keys included."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, Mapping):
        return {redact(k): redact(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact(v) for v in value]
    return value
