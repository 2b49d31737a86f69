"""Typed job settings, output-path checks and run directory names."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar, Self

from pydantic import BaseModel, ConfigDict, ValidationError

from sparring.errors import ConfigError, Problem, UserInputError, validation_problems


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

    @classmethod
    def from_values(cls, values: Mapping[str, Any] | BaseModel, source: str = "settings") -> Self:
        """Settings from ``values`` (a mapping from the CLI, a file or a form, or settings
        already typed). Raises ``ConfigError`` naming ``source`` and each key that does not
        validate (exit 2), never a raw ``ValidationError``."""
        if isinstance(values, cls):
            return values
        data = values.model_dump() if isinstance(values, BaseModel) else dict(values)
        try:
            typed = cls.model_validate(data)
        except ValidationError as exc:
            raise ConfigError(validation_problems(exc, source)) from None
        if problems := typed.policy_problems(source):
            raise ConfigError(problems)
        return typed

    CODE_SETTINGS: ClassVar[frozenset[str]] = frozenset({"trust_functions", "serve_command"})
    """Settings that, when set, run the user's code or commands on this machine."""

    def policy_problems(self, source: str = "settings") -> list[Problem]:
        """What the execution policy refuses in these typed settings
        (``sparring._policy``): a code setting that is set, a path the user gave outside
        its roots (resolved, links followed). Empty under the CLI's unrestricted policy."""
        from sparring._policy import current_policy

        policy = current_policy()
        problems: list[Problem] = []
        for name in type(self).model_fields:
            value = getattr(self, name)
            if name in self.CODE_SETTINGS and value:
                found = policy.code_problem(f"the setting {name}", source, None, name)
                problems += [found] if found else []
            given = name in self.model_fields_set  # a default (packaged data) is ours
            for path in _paths_of(value) if given else []:
                found = policy.path_problem(path, source, None, name)
                problems += [found] if found else []
        return problems

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
    """A fresh run directory name under ``root``: the current UTC time, ``YYYYmmdd-HHMMSS``,
    with ``-2``, ``-3``… added when a run of that second already exists there (two jobs
    started in the same second never share a directory)."""
    stem = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    candidate, n = root / stem, 1
    while candidate.exists():
        n += 1
        candidate = root / f"{stem}-{n}"
    return candidate


def _paths_of(value: Any) -> list[Path]:
    """The paths in a setting's value (a path, or a list of them)."""
    if isinstance(value, Path):
        return [value]
    if isinstance(value, list | tuple | set | frozenset):
        return [p for v in value for p in _paths_of(v)]
    return []
