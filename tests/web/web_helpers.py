"""Helpers shared by the dashboard's tests (the fixtures are in conftest.py)."""

from __future__ import annotations

from typing import Any

from django.test import Client

PASSWORD = "a long test passphrase 7"


def client_for(user: Any | None) -> Client:
    """A test client that enforces CSRF, signed in as ``user`` (anonymous for ``None``)."""
    client = Client(enforce_csrf_checks=True)
    if user is not None:
        client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client


def csrf_post(client: Client, url: str, data: dict[str, Any] | None = None) -> Any:
    """POST with the CSRF token a browser would send (read from a GET of the login page)."""
    client.get("/login/")
    token = client.cookies["csrftoken"].value
    return client.post(url, data or {}, HTTP_X_CSRFTOKEN=token)
