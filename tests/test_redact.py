"""The one redaction pass (``sparring._redact``): what it removes and what it keeps."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sparring import _redact
from sparring._redact import add_secrets, counting, header_secrets, redact, redact_text


def test_url_credentials_and_authorization_values_are_removed() -> None:
    text = (
        "POST http://bot:pa55word@host:8080/chat?lang=en&api_key=abc123xyz&token=t0k "
        "Authorization: Bearer eyJhbGciOi.payload.sig and &amp;key=k3y in HTML"
    )
    assert redact_text(text) == (
        "POST http://***@host:8080/chat?lang=en&api_key=***&token=*** "
        "Authorization: Bearer *** and &amp;key=*** in HTML"
    )


def test_credential_named_environment_values_are_removed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-key-0001")
    monkeypatch.setenv("SOME_TOKEN", "false")  # not key-like: kept
    monkeypatch.setenv("HOME_DIR", "/home/x-2026")  # not a credential name: kept
    assert redact_text("401: sk-env-key-0001 false /home/x-2026") == "401: *** false /home/x-2026"


def test_registered_and_header_secrets_are_removed_in_nested_data() -> None:
    add_secrets(header_secrets({"X-Api-Key": "hdr-secret-42", "Accept": "application/json"}))
    add_secrets(header_secrets({"Authorization": "Basic dXNlcjpwYXNz"}))
    data = {"raw": ["hdr-secret-42", {"k": "dXNlcjpwYXNz"}], "accept": "application/json"}
    assert redact(data) == {"raw": ["***", {"k": "***"}], "accept": "application/json"}


_PIECES = [
    "http", "HTTPS", "git+ssh", "://", "u:p", "@", "=", "&amp;", "amp;", "?", "&", ";", "api_key",
    "KEY", "client-secret", "Token", "Bearer", "Basic", " ", "\n", "x", "_", "é", "\u212a",
    "\u017f", "abcdefgh12", "dXNlcjpwYXNz", ".", "-", "/", "#", '"', "<", "9",
    "&amp;client_secret=", ";ACCESS-TOKEN=", "?sig=", "Bearer a1b2c3d4e5", "Basic dXNlcjpwYXNz",
    "ftp://u:p@", "Token  0123456789abcdefXYZ",
]  # fmt: skip


def _whole_text_passes(text: str) -> tuple[str, Counter[str]]:
    """The shapes' regular expressions run over the whole text, as before the anchors."""
    with counting() as counts:
        text, n = _redact._URL_USERINFO.subn(r"\1***@", text)
        counts["url_userinfo"] += n
        text, n = _redact._QUERY_SECRET.subn(r"\1***", text)
        counts["query"] += n
        text = _redact._AUTHORIZATION.sub(_redact._authorization, text)
    return text, +counts


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40))
def test_the_anchored_passes_replace_what_the_whole_text_passes_replace(pieces: list[str]) -> None:
    """The shapes are tried only near ``://``, ``=`` and the schemes' names (a 64 KB
    reply's records and report were scanned whole three times): same text, same counts."""
    text = "".join(pieces)
    with counting() as counts:
        redacted = _redact._redact_shapes(text)
    assert (redacted, +counts) == _whole_text_passes(text)


def test_a_credential_after_a_long_run_of_scheme_characters_is_removed() -> None:
    scheme = "a" * 70_000
    text = f"see {scheme}://user:pass@host and x{scheme}-http://u:p@h"
    assert redact_text(text) == f"see {scheme}://***@host and x{scheme}-http://***@h"
