"""Default deny, enumerated: every URL pattern is requested anonymously (GET and a POST
carrying a valid CSRF token) and must be refused — a redirect to a sign-in page, 401, 403,
404 or 405 — except the reviewed allow-list of public pages."""

from __future__ import annotations

import re
from typing import Any

from django.urls import Resolver404, URLResolver, get_resolver, resolve
from web_helpers import client_for, csrf_post

ALLOWED_ANONYMOUS = {
    "login/": "the sign-in page",
    "login/link/<str:uidb64>/<str:token>/": "the one-time link (410 unless the token is valid)",
    "admin/login/": "Django admin's sign-in page",
    "invite/<str:token>/": "an invitation link (410 unless the signed token names a pending one)",
}
"""Patterns an anonymous request may reach, and why (reviewed)."""

_CANDIDATES = ("1", "auth", "x", "json", ".json")
_SIGN_IN = ("/login/", "/admin/login/")


def _walk(patterns: list[Any], prefix: str = "") -> list[str]:
    """Every leaf pattern of the URL configuration, its prefixes joined, as written
    (``admin/^(?P<app_label>auth|sparring_web)/$``)."""
    leaves: list[str] = []
    for entry in patterns:
        text = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            leaves.extend(_walk(entry.url_patterns, text))
        else:
            leaves.append(text)
    return leaves


def _patterns() -> set[str]:
    return set(_walk(get_resolver().url_patterns))


def _concrete(pattern: str) -> str | None:
    """A URL that resolves to ``pattern`` (``None`` when none of the candidates do)."""
    for value in _CANDIDATES:
        url = re.sub(r"\(\?P<format>[^)]*\)", "json", pattern)
        url = re.sub(r"\(\?P<\w+>[^)]*\)", value, url)
        url = re.sub(r"<(?:\w+:)?\w+>", value, url)
        url = url.replace("/?", "/").replace("\\.", ".")
        url = url.replace("^", "").replace("$", "").replace("\\Z", "").replace("\\", "")
        url = "/" + url
        try:
            resolve(url)
        except Resolver404:
            continue
        return url
    return None


def _refused(response: Any) -> bool:
    """Refused: an error status, or redirects that end on a sign-in page."""
    for _hop in range(5):
        if response.status_code not in (301, 302):
            return response.status_code in (401, 403, 404, 405, 410)
        location = str(response["Location"])
        if location.startswith(_SIGN_IN):
            return True
        response = client_for(None).get(location)
    return False


def test_every_url_refuses_anonymous_requests_except_the_allow_list(db: None) -> None:
    templates = _patterns()
    assert len(templates) > 20  # the walk found the project's patterns, admin's included
    unresolvable, open_to_anyone = [], []
    for template in sorted(templates):
        url = _concrete(template)
        if url is None:
            unresolvable.append(template)
            continue
        if template in ALLOWED_ANONYMOUS:
            continue
        for response in (client_for(None).get(url), csrf_post(client_for(None), url)):
            if not _refused(response):
                open_to_anyone.append(
                    (url, response.request["REQUEST_METHOD"], response.status_code)
                )
    assert not open_to_anyone
    assert not unresolvable


def test_the_allow_list_names_only_existing_patterns(db: None) -> None:
    assert set(ALLOWED_ANONYMOUS) <= _patterns()


def test_the_home_page_sends_anonymous_users_to_sign_in(db: None) -> None:
    response = client_for(None).get("/projects/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")
