"""Helpers shared by the dashboard's tests (the fixtures are in conftest.py)."""

from __future__ import annotations

from typing import Any

from django.test import Client

PASSWORD = "a long test passphrase 7"
PROFILE = """\
test_name: order
llm: {model: gpt-4o-mini}
user:
  language: English
  role: a customer who wants to order a pizza
  context: [{personality: impatient}]
  goals: ["I would like to order a pizza"]
chatbot: {is_starter: false, fallback: "Sorry, I did not understand."}
conversation:
  number: 2
  goal_style: {steps: 2}
  interaction_style: [single question]
"""
"""A small valid SENSEI profile for runs the tests launch."""


def client_for(user: Any | None) -> Client:
    """A test client that enforces CSRF, signed in as ``user`` (anonymous for ``None``)."""
    client = Client(enforce_csrf_checks=True)
    if user is not None:
        client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client


def csrf_token(client: Client) -> str:
    """The CSRF token a browser holds, from a page with a form (sign-in or projects)."""
    for page in ("/login/", "/projects/"):
        if "csrftoken" not in client.cookies:
            client.get(page)
    return str(client.cookies["csrftoken"].value)


def csrf_post(client: Client, url: str, data: dict[str, Any] | None = None) -> Any:
    """POST with the CSRF token a browser would send."""
    return client.post(url, data or {}, HTTP_X_CSRFTOKEN=csrf_token(client))


def api(client: Client, method: str, url: str, data: Any = None, token: str | None = None) -> Any:
    """An API request as a browser (session + CSRF header) or, with ``token``, as CI."""
    headers: dict[str, str] = {}
    if token is not None:
        headers["Authorization"] = f"Token {token}"
    elif method != "get":
        headers["X-CSRFToken"] = csrf_token(client)
    call = getattr(client, method)
    if method == "get":
        return call(url, data or {}, headers=headers)
    return call(
        url, data if data is not None else {}, content_type="application/json", headers=headers
    )
