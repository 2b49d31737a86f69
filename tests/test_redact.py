"""The one redaction pass (``sparring._redact``): what it removes and what it keeps."""

from __future__ import annotations

import pytest

from sparring._redact import add_secrets, header_secrets, redact, redact_text


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
