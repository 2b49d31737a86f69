"""``sparring web``: configure Django, migrate, create the first owner, serve with waitress.

Django is imported here and below only — ``import sparring.cli`` never imports it.
"""

from __future__ import annotations

import errno
import os
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from sparring.errors import UserInputError
from sparring.web._config import (
    ENV_MODE,
    add_loopback_fernet_key,
    is_loopback,
    read_config,
    require_production,
)

SETTINGS_MODULE = "sparring.web._settings"
OWNER_NAME = "owner"
DEFAULT_PORT = 8000
PORTS_TRIED = 20
MAX_REQUEST_BYTES = 32 * 1024 * 1024
"""The largest request body the server reads (a project imported whole: 20 MB of files)."""
"""Ports tried from ``DEFAULT_PORT`` on when no ``--port`` is given."""


def configure(*, loopback: bool) -> None:
    """Point Django at the dashboard's settings and set it up (once per process).
    ``loopback``: zero set-up settings; otherwise production settings are read."""
    import django

    os.environ[ENV_MODE] = "loopback" if loopback else "production"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", SETTINGS_MODULE)
    django.setup()


def prepare(out: TextIO) -> None:
    """Create the data folder, apply migrations, collect nothing (static files are served
    from the package by WhiteNoise)."""
    from django.conf import settings
    from django.core.management import call_command

    settings.DATA_DIR.mkdir(parents=True, exist_ok=True)
    settings.RUNS_DIR.mkdir(parents=True, exist_ok=True)
    call_command("migrate", interactive=False, verbosity=0, stdout=out)


def first_owner_link(base_url: str) -> str | None:
    """Create the first owner when there is no user yet; while that user has no password,
    the one-time sign-in link (a new one each start). ``None`` once a password is set."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.tokens import default_token_generator
    from django.urls import reverse
    from django.utils.encoding import force_bytes
    from django.utils.http import urlsafe_base64_encode

    User = get_user_model()
    if not User.objects.exists():
        User.objects.create_superuser(OWNER_NAME, email="", password=None)
    owner = User.objects.filter(is_superuser=True).order_by("pk").first()
    if owner is None or owner.has_usable_password():
        return None
    uid = urlsafe_base64_encode(force_bytes(owner.pk))
    token = default_token_generator.make_token(owner)
    return base_url.rstrip("/") + reverse("link-login", args=[uid, token])


def guard_network(host: str | None = None) -> None:
    """Install the SSRF guard for every chatbot this process calls (``sparring._ssrf``),
    with the operator's allow-list (``SPARRING_WEB_SSRF_ALLOW``) — and, for a server
    listening on ``host``, local mode while it has one account (``_local``: loopback and
    private addresses allowed) —, and the dashboard's execution policy
    (``sparring._policy``: nothing that runs the user's code). Every process that runs the
    dashboard's jobs calls it (the server here; a distributed worker at its start, with no
    ``host``: never local)."""
    from django.conf import settings

    from sparring import _policy
    from sparring._ssrf import NetworkPolicy, install_policy
    from sparring.web import _local
    from sparring.web._files import DASHBOARD_POLICY

    if host is None:
        install_policy(NetworkPolicy.from_entries(settings.SSRF_ALLOW))
    else:
        _local.install(host)
    _policy.install_policy(DASHBOARD_POLICY)


def wsgi_application() -> Callable[..., Any]:
    """Django's WSGI application (after ``configure``)."""
    from django.core.wsgi import get_wsgi_application

    return get_wsgi_application()


def _listen(host: str, port: int) -> list[socket.socket]:
    """A socket bound to ``port`` on every address ``host`` names (not yet listening).
    Raises ``OSError`` (every socket closed) when one cannot be bound."""
    bound: list[socket.socket] = []
    try:
        for family, kind, proto, _, address in socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        ):
            sock = socket.socket(family, kind, proto)
            bound.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
    except OSError:
        for sock in bound:
            sock.close()
        raise
    return bound


def bind(host: str, port: int | None) -> list[socket.socket]:
    """Sockets bound to ``host:port`` now, before anything is printed. ``port`` ``None``:
    ``DEFAULT_PORT``, or the next free port after it when it is taken. Raises
    ``UserInputError`` (one line, exit 2) when the port asked for is taken or may not be
    used."""
    wanted = DEFAULT_PORT if port is None else port
    for candidate in range(wanted, wanted + (PORTS_TRIED if port is None else 1)):
        try:
            return _listen(host, candidate)
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                raise UserInputError(
                    f"cannot serve on {host}:{candidate}: {exc.strerror}"
                ) from None
    if port is None:
        last = wanted + PORTS_TRIED - 1
        raise UserInputError(f"ports {wanted}-{last} on {host} are all taken: pick one with --port")
    raise UserInputError(
        f"port {port} on {host} is taken (another sparring web?): pick another with --port, "
        "or leave --port out to take the next free one"
    )


def serve(host: str, port: int | None, *, open_browser: bool, out: TextIO = sys.stdout) -> None:
    """Serve the dashboard on ``host:port`` until interrupted (``port`` ``None``: 8000 or
    the next free port, said so). Raises ``UserInputError`` (exit 2) when ``host`` is not
    loopback and production settings are missing, or the port is taken — before anything
    is printed, so no sign-in link is shown for a server that is not there."""
    loopback = is_loopback(host)
    if not loopback:
        require_production(read_config(production=True), host)
    configure(loopback=loopback)
    sockets = bind(host, port)
    bound = int(sockets[0].getsockname()[1])
    prepare(out)
    guard_network(host)
    shown_host = f"[{host}]" if ":" in host else host
    base_url = f"http://{shown_host}:{bound}/"
    link = first_owner_link(base_url)
    if port is None and bound != DEFAULT_PORT:
        print(f"port {DEFAULT_PORT} is taken: serving on {bound}", file=out)
    print(f"sparring dashboard on {base_url}", file=out)
    if link is not None:
        print(f"sign in once with: {link}", file=out)
    from sparring.web._local import current_facts

    if current_facts().local:
        print(
            "local mode: loopback, one account — chatbots on loopback and private "
            "addresses may be tested (a second account turns the SSRF guard back on)",
            file=out,
        )
    out.flush()
    if open_browser:
        import webbrowser

        webbrowser.open(link or base_url)
    from sparring.web._run_page import preload
    from sparring.web._worker import start_worker

    start_worker()
    preload()  # the report's sections imported before the first run page
    import waitress

    waitress.serve(
        wsgi_application(),
        sockets=sockets,
        threads=8,
        ident="sparring",
        max_request_body_size=MAX_REQUEST_BYTES,
    )


def check_deploy(out: TextIO = sys.stdout) -> None:
    """Django's deployment checks on the production settings (``manage.py check --deploy``).
    Raises ``UserInputError`` with every problem when they are missing or a check fails."""
    require_production(read_config(production=True), "production")
    configure(loopback=False)
    from django.core.management import call_command
    from django.core.management.base import SystemCheckError

    try:
        call_command("check", deploy=True, fail_level="WARNING", stdout=out)
    except SystemCheckError as exc:
        raise UserInputError(str(exc)) from None


def rotate_keys(out: TextIO = sys.stdout) -> int:
    """Re-encrypt every stored secret with the newest Fernet key; the number of rows.

    With ``SPARRING_WEB_FERNET_KEYS`` set (production), the operator has put the new key
    first; otherwise (loopback) a new key is generated and put first in the data folder's
    ``fernet_keys``. Either way the older keys stay readable until every row is rewritten."""
    config = read_config(production=True)
    loopback = not config.fernet_keys
    if loopback:
        add_loopback_fernet_key(read_config(production=False))
    configure(loopback=loopback)
    prepare(out)
    from sparring.web._audit import record
    from sparring.web._secrets import rotate_keys as rotate

    count = rotate()
    record("keys_rotated", rows=count)
    return count


def import_runs(paths: list[Path], project_id: int, out: TextIO = sys.stdout) -> int:
    """Import CLI run directories into project ``project_id`` (the operator, on the server);
    the number imported. Raises ``UserInputError`` for an unknown project or a folder that
    is not a run (checked for every path before the database is touched)."""
    from sparring.conversations import RunStore

    for path in paths:
        RunStore.open(path.resolve(), clean=False)  # a located error for a folder that is no run
    configure(loopback=not read_config(production=True).fernet_keys)
    prepare(out)
    from sparring.web._imports import import_run
    from sparring.web.models import Project

    project = Project.objects.filter(pk=project_id).first()
    if project is None:
        raise UserInputError(f"no project with id {project_id}")
    from sparring.web._run_page import warm

    for path in paths:
        run = import_run(path, project)
        warm(run)  # its page is ready on the first visit
        print(f"imported {path} as run {run.pk} ({run.job})", file=out)
    return len(paths)
