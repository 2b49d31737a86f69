"""Quotas: what one project's jobs may take of a shared server.

The operator sets server-wide maximums (environment, ``SERVER_LIMITS``); a project's owner
may set lower ones (``Project.max_*``; empty: the server's, never above it):

- **conversations per run** — counted at launch, before any work, from the profiles a run
  names (``sparring.profiles.planned_count``, times ``repeat``);
- **concurrency** — a job's ``concurrency`` setting;
- **run time** — seconds a job may run; past it the worker stops the job (what finished
  is kept, the run is resumable) and says why;
- **stored size** — megabytes the project's run folders may hold: a launch is refused when
  they are full, and a job that fills them is stopped; the same megabytes bound its files'
  versions in the database (``file_problem``: a save past them is refused).

``launch_problems`` checks a launch; ``overrun`` tells the worker, while a job runs, that
it must stop.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings as django_settings

from sparring.errors import Problem
from sparring.web.models import Project

SERVER_LIMITS = {
    "conversations": ("SPARRING_WEB_MAX_CONVERSATIONS", 1000),
    "concurrency": ("SPARRING_WEB_MAX_CONCURRENCY", 8),
    "run_seconds": ("SPARRING_WEB_MAX_RUN_SECONDS", 6 * 3600),
    "stored_mb": ("SPARRING_WEB_MAX_STORED_MB", 2048),
}
"""Each limit: the environment variable of its server-wide maximum and its default."""

QUOTA_FIELDS = {
    "max_conversations": ("conversations", "conversations a run may plan"),
    "max_concurrency": ("concurrency", "conversations at once"),
    "max_run_seconds": ("run_seconds", "seconds a job may run"),
    "max_stored_mb": ("stored_mb", "megabytes the project's runs may hold"),
}
"""Each ``Project`` quota field: the ``Limits`` field it sets and what it limits."""


@dataclass(frozen=True)
class Limits:
    """A project's limits: conversations a run may plan, conversations at once, seconds a
    job may run, megabytes its runs may hold."""

    conversations: int
    concurrency: int
    run_seconds: int
    stored_mb: int


def server_limits(environ: Mapping[str, str] | None = None) -> Limits:
    """The operator's maximums (``SERVER_LIMITS``); a value that is not a positive whole
    number keeps the default."""
    environ = os.environ if environ is None else environ
    values: dict[str, int] = {}
    for name, (variable, default) in SERVER_LIMITS.items():
        text = environ.get(variable, "").strip()
        values[name] = int(text) if text.isdigit() and int(text) > 0 else default
    return Limits(**values)


def project_limits(project: Project) -> Limits:
    """``project``'s limits: its owner's, capped by the server's."""
    server = server_limits()
    own = {limit: getattr(project, name) for name, (limit, _) in QUOTA_FIELDS.items()}
    return Limits(**{k: min(v or getattr(server, k), getattr(server, k)) for k, v in own.items()})


def quota_problem(name: str, value: object) -> str | None:
    """Why an owner may not set the quota field ``name`` (``QUOTA_FIELDS``) to ``value``
    (``None``: they may; ``None`` as the value means the server's maximum): a whole number
    from 1 to the server's maximum."""
    if name not in QUOTA_FIELDS:
        return "not a quota"
    if value is None:
        return None
    most = getattr(server_limits(), QUOTA_FIELDS[name][0])
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
        return f"a whole number from 1 to {most:,} (this server's maximum), or empty"
    return None


def stored_bytes(project: Project) -> int:
    """Bytes the project's run folders hold (``RUNS_DIR/<project>``), links not followed."""
    total = 0
    for folder, _dirs, files in os.walk(Path(django_settings.RUNS_DIR) / str(project.pk)):
        for name in files:
            try:
                total += os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                continue
    return total


def stored_file_bytes(project: Project) -> int:
    """Bytes the project's files hold in the database, every version counted."""
    from django.db.models import Sum
    from django.db.models.functions import Length

    from sparring.web.models import FileVersion

    found = FileVersion.objects.filter(file__project=project).aggregate(size=Sum(Length("content")))
    return int(found["size"] or 0)


def file_problem(project: Project, adding: int) -> str | None:
    """Why ``project`` may not store a new file version of ``adding`` bytes (``None``: it
    may): its files' versions would pass its stored-size quota, which a user saving a
    large file again and again would otherwise fill the server's database with."""
    limit = project_limits(project).stored_mb * 1024 * 1024
    used = stored_file_bytes(project)
    if used + adding <= limit:
        return None
    return (
        f"the project's files hold {used / 2**20:,.1f} MB with every version, its quota is "
        f"{limit / 2**20:,.0f} MB: delete files first"
    )


def planned_conversations(typed: Any) -> int:
    """The conversations a job's typed settings plan at least: each profile named by its
    ``profiles`` setting counted (``planned_count``), times ``repeat``; 0 for a job that
    names no profiles (``explore``'s ``profiles`` is a switch, not paths). Profiles that do
    not load count 0 (the job reports them)."""
    from sparring.errors import UserInputError
    from sparring.profiles import load_profile, planned_count, profile_files

    paths = getattr(typed, "profiles", None)
    if not isinstance(paths, list | tuple) or not paths:
        return 0
    total = 0
    for path in profile_files(paths):
        try:
            total += planned_count(load_profile(path))
        except UserInputError:
            continue
    return total * max(1, int(getattr(typed, "repeat", 1) or 1))


def launch_problems(project: Project, typed: Any) -> list[Problem]:
    """What the project's limits refuse in a launch with ``typed`` settings (checked
    before any work): too many conversations, too much concurrency, runs already full."""
    limits = project_limits(project)
    problems: list[Problem] = []
    concurrency = getattr(typed, "concurrency", None)
    if isinstance(concurrency, int) and concurrency > limits.concurrency:
        message = f"at most {limits.concurrency} at once in this project (quota)"
        problems.append(Problem("", None, "settings.concurrency", message))
    planned = planned_conversations(typed)
    if planned > limits.conversations:
        message = (
            f"plans {planned:,} conversations; at most {limits.conversations:,} per run in "
            "this project (quota): give fewer conversations, values or repeats"
        )
        problems.append(Problem("", None, "settings.profiles", message))
    used = stored_bytes(project)
    if used >= limits.stored_mb * 1024 * 1024:
        message = (
            f"the project's runs hold {used / 2**20:,.0f} MB, its quota is "
            f"{limits.stored_mb:,} MB: delete runs first"
        )
        problems.append(Problem("", None, "", message))
    return problems


class Overrun:
    """Tells the worker when a running job passed its project's run time or stored size.
    ``check()`` costs a folder walk at most every ``every`` seconds."""

    def __init__(self, project: Project, every: float = 10.0) -> None:
        self._project = project
        self._limits = project_limits(project)
        self._started = time.monotonic()
        self._every = every
        self._last = 0.0

    def seconds_left(self) -> float:
        """Seconds until the run-time quota ends the job (0 once it has)."""
        return max(0.0, self._started + self._limits.run_seconds - time.monotonic())

    def check(self) -> str | None:
        """Why the job must stop now (``None``: it may go on)."""
        now = time.monotonic()
        if now - self._started > self._limits.run_seconds:
            return f"stopped: it ran past the project's {self._limits.run_seconds:,} s (quota)"
        if now - self._last < self._every:
            return None
        self._last = now
        if stored_bytes(self._project) > self._limits.stored_mb * 1024 * 1024:
            return f"stopped: the project's runs passed {self._limits.stored_mb:,} MB (quota)"
        return None
