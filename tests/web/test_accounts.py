"""Sign-in: rate limited per name and address without telling which names exist; every
sign-in, failure and sign-out lands in the append-only audit log; sign-up is off unless
the operator opens it."""

from __future__ import annotations

from typing import Any

import pytest
from web_helpers import PASSWORD, client_for, csrf_post

from sparring.web.models import AuditEvent


def _try(name: str, password: str) -> Any:
    return csrf_post(client_for(None), "/login/", {"username": name, "password": password})


def test_sign_in_works_and_is_audited(make_user: Any) -> None:
    make_user("maria")
    response = _try("maria", PASSWORD)
    assert response.status_code == 302 and response["Location"] == "/projects/"
    assert AuditEvent.objects.filter(action="login", actor_name="maria").exists()


def test_failures_lock_a_name_without_revealing_whether_it_exists(make_user: Any) -> None:
    make_user("maria")
    real = [_try("maria", "wrong password") for _ in range(5)]
    ghost = [_try("nobody-here", "wrong password") for _ in range(5)]
    # the same answer for a wrong password and for a name that does not exist
    assert [r.status_code for r in real] == [r.status_code for r in ghost]
    assert [r.status_code for r in real] == [200, 200, 200, 200, 429]
    assert [_strip(r) for r in real] == [_strip(r) for r in ghost]
    # then locked for both, even with the right password for the real one
    locked_real, locked_ghost = _try("maria", PASSWORD), _try("nobody-here", PASSWORD)
    assert locked_real.status_code == locked_ghost.status_code == 429
    assert _strip(locked_real) == _strip(locked_ghost)
    assert AuditEvent.objects.filter(action="login_failed").count() >= 10
    assert not AuditEvent.objects.filter(action="login", actor_name="maria").exists()


def _strip(response: Any) -> str:
    """The page without the per-request CSRF token and the name typed back."""
    text = response.content.decode()
    text = text.replace("maria", "NAME").replace("nobody-here", "NAME")
    import re

    return re.sub(r'value="[A-Za-z0-9]{64}"', 'value="TOKEN"', text)


def test_the_audit_log_is_append_only(make_user: Any) -> None:
    make_user("maria")
    _try("maria", "wrong password")
    event = AuditEvent.objects.get(action="login_failed")
    assert event.detail == {"username": "maria"}
    event.action = "login"
    with pytest.raises(PermissionError):
        event.save()
    with pytest.raises(PermissionError):
        event.delete()
    with pytest.raises(PermissionError):
        AuditEvent.objects.all().delete()
    with pytest.raises(PermissionError):
        AuditEvent.objects.update(action="x")
    assert AuditEvent.objects.get(pk=event.pk).action == "login_failed"


def test_sign_up_is_closed_by_default(db: None) -> None:
    assert client_for(None).get("/signup/").status_code == 404
    response = csrf_post(
        client_for(None),
        "/signup/",
        {"username": "eve", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 404


def test_sign_up_when_opened(settings: Any, db: None) -> None:
    settings.SIGNUP_OPEN = True
    response = csrf_post(
        client_for(None),
        "/signup/",
        {"username": "eve", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 302


def test_a_post_without_the_csrf_token_is_refused(make_user: Any) -> None:
    make_user("maria")
    browser = client_for(None)
    response = browser.post("/login/", {"username": "maria", "password": PASSWORD})
    assert response.status_code == 403


def test_session_and_csrf_cookies_are_http_only(make_user: Any) -> None:
    make_user("maria")
    browser = client_for(None)
    csrf_post(browser, "/login/", {"username": "maria", "password": PASSWORD})
    assert browser.cookies["sessionid"]["httponly"]
    assert browser.cookies["csrftoken"]["httponly"]


def test_pages_carry_a_strict_content_security_policy(db: None) -> None:
    policy = client_for(None).get("/login/")["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    assert "frame-ancestors 'none'" in policy
