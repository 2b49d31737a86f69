"""The dashboard's tests: Django set up once with loopback settings and a temporary data
folder; pytest-django gives each test a clean in-memory database (the database of
``SPARRING_TEST_DATABASE_URL`` when set: tests/web/test_postgres.py runs a slice so).
Skips cleanly where the web extra is not installed."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("django")
pytest.importorskip("knox")
pytest.importorskip("axes")
pytest.importorskip("pytest_django")

os.environ["SPARRING_WEB_DATA"] = tempfile.mkdtemp(prefix="sparring-web-test-")
for _name in ("SPARRING_WEB_SECRET_KEY", "SPARRING_WEB_FERNET_KEYS", "SPARRING_DATABASE_URL"):
    os.environ.pop(_name, None)
if os.environ.get("SPARRING_TEST_DATABASE_URL"):  # tests/web/test_postgres.py's slice
    os.environ["SPARRING_DATABASE_URL"] = os.environ["SPARRING_TEST_DATABASE_URL"]

from sparring.jobs import JobEvent, JobStatus  # noqa: E402
from sparring.jobs.events import Finished  # noqa: E402
from sparring.web import configure  # noqa: E402

configure(loopback=True)

from django.conf import settings  # noqa: E402

# a fast hasher: the tests create many users (production keeps Django's PBKDF2)
settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

from django.contrib.auth import get_user_model  # noqa: E402
from web_helpers import PASSWORD  # noqa: E402

from sparring.web._views import create_project  # noqa: E402
from sparring.web.models import Membership, Role  # noqa: E402


@pytest.fixture
def make_user(db: None) -> Callable[[str], Any]:
    def make(name: str) -> Any:
        return get_user_model().objects.create_user(name, password=PASSWORD)

    return make


@pytest.fixture
def world(make_user: Callable[[str], Any]) -> dict[str, Any]:
    """A private project with an owner, an editor, a viewer; a stranger with a project of
    their own; and a public project nobody here is a member of."""
    owner, editor, viewer, stranger = (make_user(n) for n in ("own", "edi", "vie", "str"))
    project = create_project(owner, "pizzeria")
    Membership.objects.create(project=project, user=editor, role=Role.EDITOR)
    Membership.objects.create(project=project, user=viewer, role=Role.VIEWER)
    other = create_project(stranger, "stranger's")
    public = create_project(make_user("pub"), "open", public=True)
    return {
        "owner": owner,
        "editor": editor,
        "viewer": viewer,
        "stranger": stranger,
        "project": project,
        "other": other,
        "public": public,
    }


@pytest.fixture(autouse=True)
def _runs_in_tmp(settings: Any, tmp_path: Any) -> None:
    """Each test's run directories in its own folder."""
    settings.RUNS_DIR = tmp_path / "runs"


class Recorder:
    """An executor that records what it is given (the worker's thread is not started:
    these tests are about who may launch, not about running)."""

    def __init__(self) -> None:
        self.submitted: list[tuple[str, dict[str, Any], Path]] = []

    def submit(self, job: str, settings: dict[str, Any], run_dir: Path) -> str:
        self.submitted.append((job, settings, run_dir))
        return f"h{len(self.submitted)}"

    def stop(self, handle: str) -> None:
        pass

    def resume(self, run_dir: Path) -> str:
        self.submitted.append(("resume", {}, run_dir))
        return f"h{len(self.submitted)}"

    def status(self, handle: str) -> JobStatus | None:
        return JobStatus.FINISHED

    def error(self, handle: str) -> BaseException | None:
        return None

    def watch(self, handle: str, listener: Callable[[JobEvent], None]) -> None:
        listener(Finished(status=JobStatus.FINISHED))  # it ended at once


@pytest.fixture(autouse=True)
def recording_worker(monkeypatch: pytest.MonkeyPatch) -> Iterator[Recorder]:
    """The worker with a recording executor (tests that run jobs replace it)."""
    from sparring.web import _worker

    recorder = Recorder()
    monkeypatch.setattr(_worker, "_worker", _worker.Worker(executor=recorder))
    yield recorder
