"""The dashboard's configuration, read from the environment, and the production gate.

Every setting is an environment variable (docs/web.md, "Settings for production"):

- ``SPARRING_WEB_DATA`` — the data folder (default: the user data folder of ``platformdirs``,
  e.g. ``~/.local/share/sparring``): the SQLite database, run directories, and, on loopback
  only, the generated ``secret_key`` and ``fernet_keys`` files (mode 0600).
- ``SPARRING_WEB_SECRET_KEY`` — Django's ``SECRET_KEY`` (at least 50 characters, 5 distinct).
- ``SPARRING_WEB_FERNET_KEYS`` — comma-separated Fernet keys, newest first (MultiFernet):
  secrets are encrypted with the first and read with any.
- ``SPARRING_WEB_ALLOWED_HOSTS`` — comma-separated host names the server answers to.
- ``SPARRING_WEB_DEBUG`` — ``1`` turns Django's debug pages on (loopback only; off by default).
- ``SPARRING_WEB_SIGNUP`` — ``1`` lets anyone create an account (off by default).
- ``SPARRING_WEB_HTTPS`` — ``0`` when the server is reached over plain HTTP behind no proxy
  (secure cookies and HSTS off); on by default in production.
- ``SPARRING_WEB_SSRF_ALLOW`` — comma-separated networks (``10.0.0.0/8``) or host names the
  server may call although they are loopback, link-local or private (``sparring._ssrf``).
- ``SPARRING_DATABASE_URL`` — a database URL (``postgresql://…``) instead of SQLite.
- ``SPARRING_WEB_PROJECT_CREATORS`` — who may create projects: ``everyone`` (default) or
  ``staff`` (staff accounts and superusers only; the others work in projects they are
  invited to).
- ``SPARRING_WEB_EMAIL_URL`` — where invitations are mailed: ``smtp://user:pass@host:25``,
  ``smtp+tls://…:587`` (STARTTLS) or ``smtps://…:465``; unset: Django's console backend
  (the mail is printed on the server's standard output). ``SPARRING_WEB_EMAIL_FROM`` — the
  sender (default ``sparring@localhost``).

Loopback (``127.0.0.1``, ``::1``, ``localhost``) runs with zero set-up. Any other host needs
production settings; ``production_problems`` says which are missing.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from sparring._atomic import atomic_write
from sparring.errors import Problem, UserInputError

ENV_DATA = "SPARRING_WEB_DATA"
ENV_SECRET_KEY = "SPARRING_WEB_SECRET_KEY"
ENV_FERNET_KEYS = "SPARRING_WEB_FERNET_KEYS"
ENV_ALLOWED_HOSTS = "SPARRING_WEB_ALLOWED_HOSTS"
ENV_DEBUG = "SPARRING_WEB_DEBUG"
ENV_SIGNUP = "SPARRING_WEB_SIGNUP"
ENV_HTTPS = "SPARRING_WEB_HTTPS"
ENV_SSRF_ALLOW = "SPARRING_WEB_SSRF_ALLOW"
ENV_DATABASE_URL = "SPARRING_DATABASE_URL"
ENV_PROJECT_CREATORS = "SPARRING_WEB_PROJECT_CREATORS"
ENV_EMAIL_URL = "SPARRING_WEB_EMAIL_URL"
ENV_EMAIL_FROM = "SPARRING_WEB_EMAIL_FROM"
ENV_MODE = "SPARRING_WEB_MODE"
"""Set by ``sparring web`` for the settings module: ``loopback`` or ``production``."""

MIN_SECRET_KEY_LENGTH = 50
MIN_SECRET_KEY_CHARACTERS = 5
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


class ProjectCreators(StrEnum):
    """Who may create projects (``SPARRING_WEB_PROJECT_CREATORS``)."""

    EVERYONE = "everyone"
    STAFF = "staff"


def email_settings(url: str | None) -> dict[str, Any]:
    """Django's e-mail settings from ``SPARRING_WEB_EMAIL_URL`` (``None``: the console
    backend). Raises ``UserInputError`` naming the variable for a URL it cannot read."""
    if not url:
        return {"EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend"}
    parts = urlsplit(url)
    schemes = {
        "smtp": (25, False, False),
        "smtp+tls": (587, True, False),
        "smtps": (465, False, True),
    }
    if parts.scheme not in schemes or not parts.hostname:
        raise UserInputError(
            Problem("", None, ENV_EMAIL_URL, "smtp://, smtp+tls:// or smtps://user:pass@host:port")
        )
    port, tls, ssl = schemes[parts.scheme]
    return {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": parts.hostname,
        "EMAIL_PORT": parts.port or port,
        "EMAIL_HOST_USER": unquote(parts.username or ""),
        "EMAIL_HOST_PASSWORD": unquote(parts.password or ""),
        "EMAIL_USE_TLS": tls,
        "EMAIL_USE_SSL": ssl,
    }


@dataclass(frozen=True)
class WebConfig:
    """The dashboard's settings as read from the environment (see the module docstring)."""

    data_dir: Path
    production: bool
    secret_key: str | None
    fernet_keys: list[str] = field(default_factory=list)
    allowed_hosts: list[str] = field(default_factory=list)
    debug: bool = False
    signup: bool = False
    https: bool = True
    ssrf_allow: list[str] = field(default_factory=list)
    database_url: str | None = None
    project_creators: ProjectCreators = ProjectCreators.EVERYONE
    email_url: str | None = None
    email_from: str = "sparring@localhost"


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address) is this machine only."""
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _flag(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    return default if value is None else value.strip().lower() in {"1", "true", "yes", "on"}


def _words(name: str) -> list[str]:
    return [w.strip() for w in os.environ.get(name, "").split(",") if w.strip()]


def default_data_dir() -> Path:
    """``SPARRING_WEB_DATA`` or the user data folder ``platformdirs`` names for sparring."""
    if configured := os.environ.get(ENV_DATA):
        return Path(configured)
    import platformdirs

    return Path(platformdirs.user_data_dir("sparring", appauthor=False))


def read_config(*, production: bool | None = None) -> WebConfig:
    """The configuration from the environment. ``production`` defaults to what
    ``sparring web`` decided (``SPARRING_WEB_MODE``), else production (the safe side)."""
    if production is None:
        production = os.environ.get(ENV_MODE, "production") != "loopback"
    return WebConfig(
        data_dir=default_data_dir(),
        production=production,
        secret_key=os.environ.get(ENV_SECRET_KEY) or None,
        fernet_keys=_words(ENV_FERNET_KEYS),
        allowed_hosts=_words(ENV_ALLOWED_HOSTS),
        debug=_flag(ENV_DEBUG, False) and not production,
        signup=_flag(ENV_SIGNUP, False),
        https=_flag(ENV_HTTPS, production),
        ssrf_allow=_words(ENV_SSRF_ALLOW),
        database_url=os.environ.get(ENV_DATABASE_URL) or None,
        project_creators=_creators(),
        email_url=os.environ.get(ENV_EMAIL_URL) or None,
        email_from=os.environ.get(ENV_EMAIL_FROM) or "sparring@localhost",
    )


def _creators() -> ProjectCreators:
    value = os.environ.get(ENV_PROJECT_CREATORS, "").strip().lower() or "everyone"
    try:
        return ProjectCreators(value)
    except ValueError:
        choices = ", ".join(c.value for c in ProjectCreators)
        raise UserInputError(
            Problem("", None, ENV_PROJECT_CREATORS, f"{value!r} is not one of {choices}")
        ) from None


def weak_secret_key(key: str | None) -> str | None:
    """Why ``key`` is not a production ``SECRET_KEY`` (``None``: it is one)."""
    if not key:
        return f"{ENV_SECRET_KEY} is not set"
    if key.startswith("django-insecure"):
        return f"{ENV_SECRET_KEY} is Django's insecure default"
    if len(key) < MIN_SECRET_KEY_LENGTH or len(set(key)) < MIN_SECRET_KEY_CHARACTERS:
        return (
            f"{ENV_SECRET_KEY} is too short or too plain (at least {MIN_SECRET_KEY_LENGTH} "
            f"characters, {MIN_SECRET_KEY_CHARACTERS} different)"
        )
    return None


def production_problems(config: WebConfig) -> list[Problem]:
    """What keeps ``config`` from serving anything but loopback: a weak or missing secret
    key, no Fernet keys or one that is not a Fernet key, no allowed hosts or a wildcard
    among them, debug on."""
    messages: list[str] = []
    if (weak := weak_secret_key(config.secret_key)) is not None:
        messages.append(weak)
    if not config.fernet_keys:
        messages.append(
            f"{ENV_FERNET_KEYS} is not set (generate one: python -c "
            '"from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())")'
        )
    messages += [
        f"{ENV_FERNET_KEYS}: key {i} is not a Fernet key (32 url-safe base64-encoded bytes)"
        for i, key in enumerate(config.fernet_keys, start=1)
        if not _is_fernet_key(key)
    ]
    if not config.allowed_hosts:
        messages.append(f"{ENV_ALLOWED_HOSTS} is not set (the host names clients use)")
    wildcards = [h for h in config.allowed_hosts if h == "*" or "*" in h or h == "."]
    if wildcards:
        messages.append(
            f"{ENV_ALLOWED_HOSTS} holds a wildcard ({', '.join(wildcards)}): name the hosts "
            "clients use (a wildcard lets any Host header through: poisoned links)"
        )
    if _flag(ENV_DEBUG, False):
        messages.append(f"{ENV_DEBUG} is on: debug pages leak settings and code")
    return [Problem("", None, "web", m) for m in messages]


def _is_fernet_key(key: str) -> bool:
    """Whether ``key`` is a usable Fernet key (``cryptography`` decides)."""
    from cryptography.fernet import Fernet

    try:
        Fernet(key.encode())
    except (ValueError, TypeError):
        return False
    return True


def require_production(config: WebConfig, host: str) -> None:
    """Raise ``UserInputError`` (exit 2) listing ``production_problems`` when serving on
    ``host`` needs production settings that are missing."""
    problems = production_problems(config)
    if problems:
        head = Problem(
            "", None, "--host", f"{host} is not loopback: production settings are required"
        )
        raise UserInputError([head, *problems])


def check_host(host: str) -> None:
    """Check, before serving on ``host``, that it is loopback or the production settings
    are complete; raise ``UserInputError`` (exit 2) listing what is missing otherwise."""
    if not is_loopback(host):
        require_production(read_config(production=True), host)


def _kept_secret(path: Path, make: str) -> str:
    """The secret kept in ``path`` (created with ``make`` and mode 0600 when missing)."""
    if path.exists():
        return path.read_text(encoding="utf-8").strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(make)
    return make


def loopback_secret_key(config: WebConfig) -> str:
    """The ``SECRET_KEY`` on loopback: the configured one, else one generated once and kept
    in the data folder."""
    return config.secret_key or _kept_secret(
        config.data_dir / "secret_key", secrets.token_urlsafe(64)
    )


def loopback_fernet_keys(config: WebConfig) -> list[str]:
    """The Fernet keys on loopback: the configured ones, else one generated once and kept in
    the data folder (``fernet_keys``, one a line, newest first)."""
    if config.fernet_keys:
        return config.fernet_keys
    from cryptography.fernet import Fernet

    text = _kept_secret(config.data_dir / "fernet_keys", Fernet.generate_key().decode())
    return [line.strip() for line in text.splitlines() if line.strip()]


def add_loopback_fernet_key(config: WebConfig) -> None:
    """Put a new Fernet key first in the data folder's ``fernet_keys`` (the older ones stay,
    so rows not yet rotated can still be read)."""
    from cryptography.fernet import Fernet

    older = loopback_fernet_keys(config)
    keys = "\n".join([Fernet.generate_key().decode(), *older]) + "\n"
    # the file is the secret: written as it is (not redacted), private
    atomic_write(config.data_dir / "fernet_keys", keys, redact=False, mode=0o600)
