"""What every job shares: typed settings and one way to run an async job from sync code.

A job (``simulate``, ``check``, ``import-sensei``; next ``explore``, ``evaluate``, …) is a
library function that takes its settings — a Pydantic model derived from ``JobSettings`` —
and a run directory, writes through ``sparring.conversations.RunStore`` and returns a typed
result. The settings are stored in the run's manifest (``RunManifest.settings``) and read
back typed on resume. The CLI and the dashboard only build settings and call the job::

    from sparring.simulate import SimulateSettings, simulate_job
    result = simulate_job(SimulateSettings(profiles=["examples/alice/profiles"],
                                           chatbot="examples/alice/chatbot.yaml"), "runs/a")
    print(result.summary.conversations, result.store.path)

See docs/architecture.md, "Adding a job".
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Awaitable, Coroutine, Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar, Self, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from sparring.errors import ConfigError, Problem, UserInputError, validation_problems

T = TypeVar("T")


class JobSettings(BaseModel):
    """Base of every job's settings: unknown keys are errors, values are validated.

    ``job`` (a class attribute) is the job's name as stored in the manifest.
    """

    model_config = ConfigDict(extra="forbid")
    job: ClassVar[str] = ""

    @classmethod
    def from_manifest(cls, settings: dict[str, Any], manifest: Path) -> Self:
        """The settings stored in a run's manifest, typed. Raises ``ConfigError`` naming
        ``manifest`` and the ``settings.<key>`` that does not validate."""
        try:
            return cls.model_validate(settings)
        except ValidationError as exc:
            problems = validation_problems(exc, str(manifest), prefix=("settings",))
            raise ConfigError(problems) from None

    def differences(self, stored: Self, ignore: Iterable[str] = ()) -> list[str]:
        """The settings that differ from ``stored`` (a run's, read with ``from_manifest``),
        as ``name: stored → now``, apart from those in ``ignore`` (e.g. ``concurrency``,
        which changes how a run goes, not what it holds). What a job compares before it
        resumes a run, so a rerun with other settings never mixes two runs in one."""
        skipped = set(ignore)
        return [
            f"{name}: {getattr(stored, name)!r} → {getattr(self, name)!r}"
            for name in type(self).model_fields
            if name not in skipped and getattr(stored, name) != getattr(self, name)
        ]


def check_output_paths(
    *,
    files: Mapping[str, Path | None] | None = None,
    folders: Mapping[str, Path | None] | None = None,
) -> None:
    """Check, before any work, that every output can be written where the user said.

    ``files`` and ``folders`` map the option (``--junit``, ``--out``) to its path (``None``:
    not given). A file may not be a folder, a folder may not be a file, and none of their
    parent folders may be a file (missing ones are created when written). Raises
    ``UserInputError`` naming each option and path (the CLI exits 2).
    """
    problems: list[Problem] = []
    for option, path in (files or {}).items():
        if path is not None and path.is_dir():
            problems.append(Problem(str(path), None, option, "is a folder; give a file name"))
        elif path is not None and (blocking := _file_in_the_way(path.parent)) is not None:
            message = f"cannot write here: {blocking} is a file, not a folder"
            problems.append(Problem(str(path), None, option, message))
    for option, path in (folders or {}).items():
        if path is not None and (blocking := _file_in_the_way(path)) is not None:
            message = f"cannot be a folder: {blocking} is a file"
            problems.append(Problem(str(path), None, option, message))
    if problems:
        raise UserInputError(problems)


def _file_in_the_way(folder: Path) -> Path | None:
    """The first of ``folder`` and its parents that exists and is not a folder."""
    return next((p for p in (folder, *folder.parents) if p.exists() and not p.is_dir()), None)


def new_run_dir(root: Path = Path("runs")) -> Path:
    """A fresh run directory name under ``root``: the current UTC time, ``YYYYmmdd-HHMMSS``."""
    return root / datetime.now(UTC).strftime("%Y%m%d-%H%M%S")


def run_blocking(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` to completion from synchronous code — the one sync wrapper every
    job offers beside its async core. Inside a running event loop it runs in a helper
    thread with its own loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _run_in_new_loop(coroutine)
    with concurrent.futures.ThreadPoolExecutor(1) as helper:
        return helper.submit(_run_in_new_loop, coroutine).result()


def _run_in_new_loop(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` without its SIGINT handler, whose installation on Python 3.11 formats
    the main task's repr — every argument of the job, 0.2 s for 1,000 records (Ctrl-C still
    raises ``KeyboardInterrupt``)."""
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(coroutine)
    finally:
        try:
            pending = asyncio.all_tasks(loop)
            for task in pending:
                task.cancel()
            if pending:
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            loop.close()


async def gather_bounded(calls: Iterable[Awaitable[T]], limit: int) -> list[T]:
    """Await ``calls`` with at most ``limit`` (at least 1) running at once; the results in
    the order of ``calls``. The first exception propagates, as with ``asyncio.gather``."""
    gate = asyncio.Semaphore(max(1, limit))

    async def run(call: Awaitable[T]) -> T:
        async with gate:
            return await call

    return list(await asyncio.gather(*(run(c) for c in calls)))
