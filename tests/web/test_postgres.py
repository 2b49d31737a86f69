"""The dashboard on PostgreSQL (``SPARRING_DATABASE_URL=postgresql://…``, the scaled
database): the web app's migrations and a representative slice of its tests — projects
created, runs launched through the form and the API, a check applied to a run through the
in-process worker (a real job), the permission layer and its access matrix — run against a
PostgreSQL server, in a pytest process of their own (Django's settings are set once per
process; this one is on SQLite).

The server is ``SPARRING_TEST_POSTGRES_URL`` (a role that may create databases; pytest-django
creates and drops ``test_<name>``); ``.ci/run`` starts a Debian ``postgresql`` cluster on
loopback and sets it. Skips cleanly where it is unset, the server does not answer, or
psycopg is not installed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SERVER = os.environ.get("SPARRING_TEST_POSTGRES_URL", "")
REPO = Path(__file__).resolve().parents[2]
SLICE = [
    "tests/web/test_postgres.py::test_this_process_runs_on_postgresql",
    "tests/web/test_permissions.py",
    "tests/web/test_applied.py",
    "tests/web/test_pages.py::test_the_launch_form_is_generated_from_the_jobs_settings_and_starts_a_run",
    "tests/web/test_api_access.py",
]


@pytest.mark.django_db
def test_this_process_runs_on_postgresql() -> None:
    """In the slice's process: the database is PostgreSQL and every migration applied."""
    if not os.environ.get("SPARRING_TEST_DATABASE_URL"):
        pytest.skip("runs inside test_the_dashboard_runs_on_postgresql's process")
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    connection.ensure_connection()
    assert connection.vendor == "postgresql"
    executor = MigrationExecutor(connection)
    assert not executor.migration_plan(executor.loader.graph.leaf_nodes())  # all applied


def test_the_dashboard_runs_on_postgresql() -> None:
    if not SERVER:
        pytest.skip("set SPARRING_TEST_POSTGRES_URL (.ci/run starts a PostgreSQL cluster)")
    psycopg = pytest.importorskip("psycopg")
    try:
        psycopg.connect(SERVER, connect_timeout=5).close()
    except psycopg.OperationalError as exc:
        pytest.skip(f"PostgreSQL at SPARRING_TEST_POSTGRES_URL does not answer: {exc}")
    # a fresh process: not this one's Django settings (pytest-django would load them
    # before the slice's conftest points them at PostgreSQL)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "SPARRING_WEB"))}
    env["SPARRING_TEST_DATABASE_URL"] = SERVER
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", *SLICE]
    done = subprocess.run(
        command, cwd=REPO, env=env, capture_output=True, text=True, timeout=1800, check=False
    )
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "passed" in summary and "skipped" not in summary, summary  # every test ran
