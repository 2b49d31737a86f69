"""Personas: reusable personality traits added to a profile's context.

A persona file has SENSEI's personality format (a ``context:`` list of instructions for
the simulated user; ``name`` and ``description`` are optional)::

    name: impatient
    description: A hurried user who gets annoyed by slow or vague answers.
    context:
      - "You are in a hurry and say so; vague or long-winded answers annoy you."

A profile refers to one with ``context: [{personality: REF}]``. ``REF`` is resolved, in
order, as:

1. a file path relative to the profile (``.yml``/``.yaml`` may be left out);
2. ``personalities/<stem>.yml`` in the profile's folder or the folder above (SENSEI
   1.1.5's project layout, where ``REF`` is a bare name such as ``formal-user``);
3. a persona of sparring's library, by name: ``formal``, ``formal-user`` and
   ``personalities/formal-user.yml`` all name ``formal``.

Profiles come from anywhere, so a file reference stays inside the profile's project
(``project_root``: the profile's folder and the one above it): an absolute path, a
``..`` or a symbolic link leading elsewhere is refused without reading the file (issue 26:
a profile could read any file and show its key names; issue 36: through a link).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sparring._yaml import load_yaml_with_lines, validation_problems
from sparring.errors import ConfigError

_SUFFIXES = (".yml", ".yaml")


class Persona(BaseModel):
    """A persona file: instructions (``context``) describing how the user behaves."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str | None = None
    description: str | None = None
    context: list[str] = Field(min_length=1)


@dataclass(frozen=True)
class ResolvedPersona:
    """A persona reference resolved to its file: ``source`` is the file path, or
    ``library:<name>`` for a persona shipped with sparring."""

    reference: str
    name: str
    source: str
    persona: Persona


def library_names() -> list[str]:
    """Names of the personas shipped with sparring (``conversational``, ``curious``, …)."""
    folder = resources.files("sparring.profiles") / "personas"
    return sorted(
        entry.name.rsplit(".", 1)[0] for entry in folder.iterdir() if entry.name.endswith(_SUFFIXES)
    )


def library_key(reference: str) -> str:
    """The library name a reference points at: ``personalities/formal-user.yml`` → ``formal``."""
    stem = reference.strip().replace("\\", "/").rsplit("/", 1)[-1]
    for suffix in _SUFFIXES:
        stem = stem.removesuffix(suffix)
    stem = stem.lower().strip()
    for tail in ("-user", "_user", " user"):
        stem = stem.removesuffix(tail)
    return stem


def read_persona(path: Path) -> Persona:
    """Read and check one persona file. Raises ``ConfigError`` with located problems."""
    data, lines = load_yaml_with_lines(path)
    try:
        return Persona.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(validation_problems(path, exc, lines)) from exc


def resolve_persona(reference: str, base_dir: Path | None) -> ResolvedPersona:
    """Resolve ``reference`` (see module docstring) from a profile in ``base_dir``.

    Raises ``ConfigError`` when the persona file is malformed and ``LookupError`` (with
    the names tried and the library's names) when nothing matches or the reference
    leads outside the profile's project.
    """
    outside = outside_project(Path(reference.strip()).expanduser(), base_dir)
    if outside is not None:
        raise LookupError(f"persona '{reference}': {outside}")
    for path in _candidate_files(reference, base_dir):
        if base_dir is not None and path.is_file():
            outside = outside_project(path.absolute(), base_dir)
            if outside is not None:
                raise LookupError(f"persona '{reference}' ({path}): {outside}")
        if path.is_file():
            persona = read_persona(path)
            return ResolvedPersona(reference, persona.name or path.stem, str(path), persona)
    key = library_key(reference)
    if key in library_names():
        entry = resources.files("sparring.profiles") / "personas" / f"{key}.yml"
        with resources.as_file(entry) as path:
            persona = read_persona(path)
        return ResolvedPersona(reference, key, f"library:{key}", persona)
    raise LookupError(
        f"persona '{reference}' not found: no such file beside the profile and no "
        f"library persona '{key}' (library: {', '.join(library_names())})"
    )


def project_root(base_dir: Path) -> Path:
    """The folder a profile in ``base_dir`` may include files from: the one above it."""
    return base_dir.resolve().parent


def outside_project(reference: Path, base_dir: Path | None) -> str | None:
    """Why ``reference`` (a path written in a profile in ``base_dir``) may not be read,
    or ``None`` when it stays inside ``project_root(base_dir)``. Nothing is read."""
    if base_dir is None:
        if not reference.is_absolute() and ".." not in reference.parts:
            return None
        return "a profile built in memory may not include files by path"
    root = project_root(base_dir)
    try:  # symbolic links followed: a link inside the folder may lead anywhere
        if (base_dir / reference).resolve().is_relative_to(root):
            return None
    except (OSError, RuntimeError):  # a link loop (RuntimeError before 3.13)
        return "refused: a symbolic-link loop"
    return (
        f"refused: it leads outside the profile's project folder {root}; a profile may "
        "include files only from its own folder and the one above"
    )


def _candidate_files(reference: str, base_dir: Path | None) -> list[Path]:
    written = Path(reference.strip()).expanduser()
    roots = [base_dir] if base_dir is not None else []
    if written.is_absolute():
        roots = [Path("/")]
    candidates: list[Path] = []
    for root in roots:
        direct = root / written
        candidates.append(direct)
        if direct.suffix not in _SUFFIXES:
            candidates += [direct.with_name(direct.name + s) for s in _SUFFIXES]
    if base_dir is not None and not written.is_absolute():
        stem = library_stem(written)
        for folder in (base_dir / "personalities", base_dir.parent / "personalities"):
            candidates += [folder / f"{stem}{s}" for s in _SUFFIXES]
    return candidates


def library_stem(path: Path) -> str:
    """``personalities/formal-user.yml`` → ``formal-user``."""
    name = path.name
    for suffix in _SUFFIXES:
        name = name.removesuffix(suffix)
    return name
