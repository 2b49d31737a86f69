"""``sparring web``'s start: the production gate, Django's deployment checks, the first
owner's one-time sign-in link."""

from __future__ import annotations

import ipaddress
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from web_helpers import client_for, csrf_post

from sparring.cli import main
from sparring.web._config import production_problems, read_config, weak_secret_key
from sparring.web._serve import first_owner_link

SRC = Path(__file__).resolve().parents[2] / "src"
GOOD_KEY = "k3y-" + "x1Yz9-QwE_rT5" * 5
FERNET = "q5xH8l3rPa9eQ1l3Sx2K7T0m6b0uYV0cTqS9b6xN1Zs="


def _production_env(tmp_path: Path, **changes: str | None) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "PYTHONPATH": str(SRC),
            "SPARRING_WEB_DATA": str(tmp_path),
            "SPARRING_WEB_SECRET_KEY": GOOD_KEY,
            "SPARRING_WEB_FERNET_KEYS": FERNET,
            "SPARRING_WEB_ALLOWED_HOSTS": "sparring.example.org",
        }
    )
    env.pop("SPARRING_WEB_MODE", None)
    env.pop("DJANGO_SETTINGS_MODULE", None)
    for name, value in changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


@pytest.mark.parametrize(
    ("key", "why"),
    [
        (None, "is not set"),
        ("short-key", "too short"),
        ("django-insecure-" + "a" * 60, "insecure default"),
        ("a" * 80, "too plain"),
    ],
)
def test_a_non_loopback_host_is_refused_without_a_real_secret_key(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    key: str | None,
    why: str,
) -> None:
    monkeypatch.setenv("SPARRING_WEB_FERNET_KEYS", FERNET)
    monkeypatch.setenv("SPARRING_WEB_ALLOWED_HOSTS", "sparring.example.org")
    if key is None:
        monkeypatch.delenv("SPARRING_WEB_SECRET_KEY", raising=False)
    else:
        monkeypatch.setenv("SPARRING_WEB_SECRET_KEY", key)
    monkeypatch.setattr(sys, "argv", ["sparring", "web", "--host", "0.0.0.0", "--no-browser"])
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 2
    assert why in capsys.readouterr().err


def test_production_needs_allowed_hosts_fernet_keys_and_debug_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SPARRING_WEB_SECRET_KEY", GOOD_KEY)
    monkeypatch.delenv("SPARRING_WEB_FERNET_KEYS", raising=False)
    monkeypatch.delenv("SPARRING_WEB_ALLOWED_HOSTS", raising=False)
    monkeypatch.setenv("SPARRING_WEB_DEBUG", "1")
    messages = " ".join(p.message for p in production_problems(read_config(production=True)))
    assert "SPARRING_WEB_FERNET_KEYS" in messages
    assert "SPARRING_WEB_ALLOWED_HOSTS" in messages
    assert "SPARRING_WEB_DEBUG" in messages
    assert weak_secret_key(GOOD_KEY) is None


def test_check_deploy_passes_with_production_settings(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sparring", "web", "check", "--deploy"],
        env=_production_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "deployment checks passed" in done.stdout


def test_check_deploy_fails_on_a_short_secret_key(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sparring", "web", "check", "--deploy"],
        env=_production_env(tmp_path, SPARRING_WEB_SECRET_KEY="too-short"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2
    assert "SPARRING_WEB_SECRET_KEY" in done.stderr


def test_the_first_owner_signs_in_once_with_the_printed_link(db: None) -> None:
    link = first_owner_link("http://127.0.0.1:8000/")
    assert link is not None and link.startswith("http://127.0.0.1:8000/login/link/")
    path = link.removeprefix("http://127.0.0.1:8000")
    browser = client_for(None)
    assert browser.get(path).status_code == 200  # a button: scanners cannot spend it
    signed_in = csrf_post(browser, path)
    assert signed_in.status_code == 302 and signed_in["Location"] == "/account/password/"
    # the same link, a second time, in another browser: spent
    again = client_for(None)
    assert again.get(path).status_code == 410
    assert csrf_post(again, path).status_code == 410


def test_the_server_guards_every_chatbot_call_with_the_operator_allow_list(
    settings: Any,
) -> None:
    from sparring._ssrf import install_policy, installed_policy
    from sparring.web._serve import guard_network

    settings.SSRF_ALLOW = ["10.0.0.0/8", "bot.internal"]
    try:
        guard_network()
        policy = installed_policy()
        assert policy is not None
        assert policy.refusal("bot.internal", []) is not None  # resolves to nothing
        assert policy.refusal("x", [ipaddress.ip_address("10.2.3.4")]) is None
        assert policy.refusal("x", [ipaddress.ip_address("169.254.169.254")]) is not None
    finally:
        install_policy(None)
