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
- **authorization values**: ``Bearer …`` and ``Token …`` followed by a credential-shaped
  token (``credential_shaped``: letters with digits, or 20 and more characters of more
  than one kind, as keys, JWTs and session tokens are), and ``Basic …`` followed by
  base64 of ``user:password`` — never an ordinary word ("Basic analytics", "Token ring").

Only secrets change: known values shorter than ``MIN_SECRET_LENGTH`` characters are
ignored (they would blank ordinary words), and the shapes above match credentials, not
prose. Secrets are replaced longest first. Each replacement is counted by kind
(``known``, ``url_userinfo``, ``query``, ``authorization``) in the ``counting()`` block
around it: the job runner keeps a run's counts in its manifest (``redactions``).

Each shape is a regular expression, but a pass reads the text at C speed and runs the
expression only where a match can begin: near each ``://``, each ``=`` and each ``Bearer``,
``Basic`` or ``Token`` (``_anchored_sub``, the same replacements as the expression's
``sub`` over the whole text, a property test). A run's records and report are megabytes
when a chatbot answers 64 KB replies; the three whole-text scans took about 0.17 s per MB.
"""

from __future__ import annotations

import base64
import binascii
import contextvars
import heapq
import os
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

REDACTED = "***"
MIN_SECRET_LENGTH = 8

_CREDENTIAL_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
_CREDENTIAL_HEADER = re.compile(
    r"^(authorization|proxy-authorization|cookie|set-cookie)$|key|token|secret|auth|password",
    re.IGNORECASE,
)
_URL_HEAD = r"\b[a-z][a-z0-9+.-]*://"
_URL_USERINFO = re.compile(rf"({_URL_HEAD})[^/?#@\s\"'<>]+@", re.IGNORECASE)
_QUERY_HEAD = (
    r"(?:[?&;]|&amp;)(?:api[_-]?key|apikey|key|token|access[_-]?token|auth|password|passwd"
    r"|pwd|secret|client[_-]?secret|signature|sig)="
)
_QUERY_SECRET = re.compile(rf"({_QUERY_HEAD})[^&#\s\"'<>]+", re.IGNORECASE)
_AUTHORIZATION = re.compile(r"\b(Bearer|Basic|Token)(\s+)([A-Za-z0-9._~+/=-]{8,})")

# Each shape's head (its part up to the text every match holds, for _anchored_sub).
_URL_SCHEME = re.compile(_URL_HEAD, re.IGNORECASE)
_SCHEME_RUN = re.compile(r"[a-z0-9+.-]*", re.IGNORECASE)
_QUERY_NAME = re.compile(_QUERY_HEAD, re.IGNORECASE)
_QUERY_HEAD_CHARS = len("&amp;client_secret=")
"""The longest text ``_QUERY_NAME`` matches (case folding maps one character to one)."""
_AUTHORIZATION_SCHEMES = ("Bearer", "Basic", "Token")
_AUTHORIZATION_HEAD = re.compile(r"\b(?:Bearer|Basic|Token)")

_lock = threading.Lock()
_known: set[str] = set()
_counts: contextvars.ContextVar[Counter[str] | None] = contextvars.ContextVar(
    "sparring_redactions", default=None
)


@contextmanager
def counting(start: Mapping[str, int] | None = None) -> Iterator[Counter[str]]:
    """Count every redaction made in this context (tasks and threads started from it
    included) while the block runs, from ``start`` (a resumed run's counts)."""
    counter: Counter[str] = Counter(start or {})
    token = _counts.set(counter)
    try:
        yield counter
    finally:
        _counts.reset(token)


def current_counts() -> dict[str, int]:
    """The redactions counted so far in this context's ``counting()`` block ({} outside)."""
    counter = _counts.get()
    return dict(counter) if counter is not None else {}


def _count(kind: str, n: int) -> None:
    counter = _counts.get()
    if counter is not None and n:
        counter[kind] += n


def credential_shaped(token: str) -> bool:
    """Whether ``token`` looks like a credential rather than a word: at least 8 characters
    with letters and digits, or at least 20 of more than one kind (lower, upper, digit,
    ``-._~+/=``), e.g. ``sk-…``, a JWT, a session id."""
    if len(token) < 8:
        return False
    kinds = [
        any(c.islower() for c in token),
        any(c.isupper() for c in token),
        any(c.isdigit() for c in token),
        any(c in "-._~+/=" for c in token),
    ]
    has_letters = kinds[0] or kinds[1]
    return (has_letters and kinds[2]) or (len(token) >= 20 and sum(kinds) >= 2)


def _basic_credential(token: str) -> bool:
    """Whether ``token`` is base64 of ``user:password`` (HTTP Basic)."""
    try:
        decoded = base64.b64decode(token, validate=True)
    except (binascii.Error, ValueError):
        return False
    return b":" in decoded and all(32 <= b < 127 for b in decoded)


def _authorization(match: re.Match[str]) -> str:
    scheme, space, token = match.group(1), match.group(2), match.group(3)
    secret = _basic_credential(token) if scheme == "Basic" else credential_shaped(token)
    if not secret:
        return match.group(0)
    _count("authorization", 1)
    return f"{scheme}{space}{REDACTED}"


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
    return _redact_shapes(redact_known(text))


def known_values() -> list[str]:
    """Every known secret value (``add_secrets`` and the credential-named environment
    variables), longest first."""
    with _lock:
        known = set(_known)
    return sorted(known.union(environment_secrets()), key=len, reverse=True)


def redact_known(text: str, values: list[str] | None = None) -> str:
    """``text`` with every known secret value replaced (``values``, default
    ``known_values()``), and nothing else: what a connector applies to each reply the
    moment it arrives, so nothing computed from a reply (output data, the user
    simulator's next turn, a rule) holds a part of a secret that the redaction of the
    stored text could no longer recognise."""
    for secret in known_values() if values is None else values:
        if len(secret) >= MIN_SECRET_LENGTH and secret in text:
            _count("known", text.count(secret))
            text = text.replace(secret, REDACTED)
    return text


def _redact_shapes(text: str) -> str:
    """``text`` with URL credentials and authorization values replaced."""
    text, n = _anchored_sub(_URL_USERINFO, _URL_SCHEME, rf"\1{REDACTED}@", text, _url_heads(text))
    _count("url_userinfo", n)
    queries = _query_heads(text)
    text, n = _anchored_sub(_QUERY_SECRET, _QUERY_NAME, rf"\1{REDACTED}", text, queries)
    _count("query", n)
    schemes = heapq.merge(*(_occurrences(text, name) for name in _AUTHORIZATION_SCHEMES))
    return _anchored_sub(_AUTHORIZATION, _AUTHORIZATION_HEAD, _authorization, text, schemes)[0]


def _anchored_sub(
    pattern: re.Pattern[str],
    head: re.Pattern[str],
    repl: str | Callable[[re.Match[str]], str],
    text: str,
    windows: Iterator[tuple[int, int]],
) -> tuple[str, int]:
    """``pattern.subn(repl, text)``, with ``pattern`` tried only where ``head`` (its part up
    to its anchor) matches inside one of ``windows``: ``(lowest, end)`` in increasing order,
    one per anchor, where a head that ends at ``end`` can begin no earlier than ``lowest``
    and no other head ends. What follows a head never depends on where it began, so its
    leftmost start is the start of ``pattern``'s match, if any."""
    parts: list[str] = []
    done = count = 0
    for lowest, end in windows:
        if end <= done:
            continue
        found = head.search(text, max(lowest, done), end)
        match = pattern.match(text, found.start()) if found else None
        if match is None:
            continue
        parts += [text[done : match.start()]]
        parts += [match.expand(repl) if isinstance(repl, str) else repl(match)]
        done, count = match.end(), count + 1
    return ("".join(parts) + text[done:], count) if count else (text, 0)


def _url_heads(text: str) -> Iterator[tuple[int, int]]:
    """``_anchored_sub``'s windows for ``_URL_USERINFO``: the run of scheme characters
    before each ``://``."""
    anchor = text.find("://")
    while anchor != -1:
        yield anchor - _run_before(text, anchor), anchor + 3
        anchor = text.find("://", anchor + 3)


def _run_before(text: str, end: int) -> int:
    """How many scheme characters (``[a-z0-9+.-]``, any case) end at ``end``, read backwards
    in windows that grow, so a run costs its length."""
    width = 64
    while True:
        lowest = max(0, end - width)
        run = _SCHEME_RUN.match(text[lowest:end][::-1])
        length = run.end() if run else 0
        if length < end - lowest or lowest == 0:
            return length
        width *= 4


def _occurrences(text: str, word: str) -> Iterator[tuple[int, int]]:
    """The spans of ``word`` in ``text``, in order (``str.find``: faster than a pattern)."""
    start = text.find(word)
    while start != -1:
        yield start, start + len(word)
        start = text.find(word, start + len(word))


def _query_heads(text: str) -> Iterator[tuple[int, int]]:
    """``_anchored_sub``'s windows for ``_QUERY_SECRET``: the ``_QUERY_HEAD_CHARS``
    characters up to each ``=``, none before the previous ``=``."""
    previous = -1
    anchor = text.find("=")
    while anchor != -1:
        yield max(previous + 1, anchor + 1 - _QUERY_HEAD_CHARS), anchor + 1
        previous, anchor = anchor, text.find("=", anchor + 1)


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
