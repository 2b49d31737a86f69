"""Which files of a mutate job are code: decided on the job's typed settings and on the
parsed files that name code, never on a file's name.

A mutant's worker takes code only from its own roots (``_bundle``); everything else comes
from the run's Redis. A file is **code** when the job uses it as code:

- the Rasa helper (``rasa_helper``): the builder imports it, whatever its name;
- a Rasa project (``kind: rasa``): the action server runs with the project on
  ``sys.path``, so every file of the project Python can import
  (``importlib.machinery.all_suffixes``) is code;
- a chatbot whose connector runs code (``connector: python``, read with
  ``sparring.connectors.load_chatbot_config`` from ``settings.chatbot`` or, for a bot
  served in-process, ``<project>/chatbot.yaml``): its ``file.py`` target, and every file
  Python can import from the folder its ``path`` puts on ``sys.path`` (else the
  configuration's own folder);
- a file a serve command names (``serve_command`` with ``{project}`` filled in, an
  argument or the value after ``=``): the command may run it (``sh {project}/serve.txt``);
- a rules file's ``functions:`` and a profile's ``data: {file: …}`` generator, read from
  the parsed YAML: Python files imported as rule functions or generators.

So a file named ``notes.py`` in an AIML project whose chatbot imports nothing from its
folder is data, and ``serve.txt`` that the serve command runs is code. The coordinator
decides with this module which files not to publish; the worker decides again, on the
settings and files it received, which files it takes from its roots: a forged message
that names code under a data name (a manifest listing a python target as data, its
content published in Redis) is refused because the worker has no file with that content.
"""

from __future__ import annotations

import importlib.machinery
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from sparring._yaml import load_yaml_with_lines
from sparring.connectors import UnknownConnector, get_connector, load_chatbot_config
from sparring.errors import ConfigError

IMPORTABLE = frozenset(importlib.machinery.all_suffixes())
"""Suffixes of the files Python imports from a folder on ``sys.path``."""


@dataclass(frozen=True)
class Listing:
    """The files of one path setting as the coordinator has them: ``path`` (absolute,
    the coordinator's), a folder or a file, and the relative POSIX names of its files."""

    path: Path
    folder: bool
    names: tuple[str, ...]

    def absolute(self, name: str) -> Path:
        """Where file ``name`` of this setting is at the coordinator."""
        return self.path / PurePosixPath(name) if self.folder else self.path


Where = tuple[str, str]
"""A file of the job: (setting key, relative name in its manifest)."""
Reader = Callable[[str, str], Path | None]
"""Where a data file of the job can be read here (``None``: it cannot)."""


def code_files(settings: Any, listings: Mapping[str, Listing], local: Reader) -> dict[Where, str]:
    """The files of ``listings`` that ``settings`` (a ``MutateSettings``) use as code,
    each with why (see the module docstring). ``local(key, name)`` is where a data file
    that may name code (``chatbot.yaml``, rules, profiles) can be read and parsed here: the
    coordinator's own file, or the worker's copy rebuilt from Redis. A configuration that
    cannot be parsed names no code (the job reports it when it loads it)."""
    files = _Files(listings)
    code: dict[Where, str] = {}
    if "rasa_helper" in listings:
        code |= dict.fromkeys(files.under(listings["rasa_helper"].path), "the Rasa helper")
    if settings.kind == "rasa":
        why = "importable by the Rasa action server (the project is on its sys.path)"
        code |= dict.fromkeys(files.importable(settings.project), why)
    code |= _serve_command(settings, files)
    for key, name in _chatbot_files(settings, files):
        if (key, name) not in code:
            at = listings[key].absolute(name)
            code |= _connector_code(at, local(key, name), files)
    for key, listing in listings.items():
        if not key.startswith(("rules[", "profiles[")):
            continue
        for name in listing.names:
            if (key, name) in code or not name.endswith((".yaml", ".yml")):
                continue
            named = _named_code(key, listing.absolute(name), local(key, name))
            code |= {w: why for p, why in named for w in files.under(p)}
    return code


class _Files:
    """The job's files by their absolute path at the coordinator."""

    def __init__(self, listings: Mapping[str, Listing]) -> None:
        self.by_path: dict[Path, Where] = {}
        for key, listing in listings.items():
            for name in listing.names:
                self.by_path.setdefault(_normal(listing.absolute(name)), (key, name))

    def under(self, path: Path) -> list[Where]:
        """The job's files at ``path`` or below it."""
        base = _normal(path)
        return [w for p, w in self.by_path.items() if p == base or base in p.parents]

    def importable(self, folder: Path) -> list[Where]:
        """The job's files below ``folder`` that Python imports with it on ``sys.path``."""
        return [
            self.by_path[p]
            for p in self.by_path
            if p.suffix in IMPORTABLE and _normal(folder) in p.parents
        ]


def _normal(path: Path) -> Path:
    """``path`` made absolute with ``..`` folded, lexically (the coordinator's layout)."""
    return Path(os.path.normpath(path))


def _serve_command(settings: Any, files: _Files) -> dict[Where, str]:
    command = settings.serve_command or []
    code: dict[Where, str] = {}
    for argument in command:
        filled = str(argument).replace("{project}", str(settings.project))
        for value in {filled, filled.partition("=")[2]}:
            if value.startswith("/"):
                path = _normal(Path(value))
                if path in files.by_path:
                    code[files.by_path[path]] = f"named by the serve command ({argument})"
    return code


def _chatbot_files(settings: Any, files: _Files) -> list[Where]:
    """The job's files that are its chatbot's configuration."""
    candidates = [settings.chatbot, settings.project / "chatbot.yaml"]
    found = [files.by_path.get(_normal(p)) for p in candidates if p is not None]
    return [w for w in found if w is not None]


def _connector_code(at: Path, path: Path | None, files: _Files) -> dict[Where, str]:
    """The files a chatbot configuration (at ``at`` on the coordinator, read here from
    ``path``) imports when its connector runs code: its ``file.py`` target and what Python
    imports from the folder it puts on ``sys.path``."""
    if path is None:
        return {}
    try:
        config = load_chatbot_config(path)
        runs_code = get_connector(config.connector).runs_code
    except (ConfigError, UnknownConnector, OSError):
        return {}
    if not runs_code:
        return {}
    base = at.parent
    folder = base / str(getattr(config.params, "path", None) or ".")
    why = f"imported by the {config.connector} connector of {path.name}"
    code = dict.fromkeys(files.importable(folder), why)
    module = str(getattr(config.params, "target", "")).partition(":")[0]
    if module.endswith(".py"):
        code |= dict.fromkeys(files.under(folder / module), why)
    return code


def _named_code(key: str, at: Path, path: Path | None) -> list[tuple[Path, str]]:
    """The files (at the coordinator) a rules file's ``functions:`` or a profile's
    ``data: {file: …}`` generators name."""
    if path is None:
        return []
    try:
        data, _ = load_yaml_with_lines(path)
    except (ConfigError, OSError):
        return []
    if key.startswith("rules[") and isinstance(data, dict):
        names = data.get("functions") or []
        listed = [names] if isinstance(names, str) else names
        return [(at.parent / str(n), "a rules file's functions:") for n in _strings(listed)]
    found = []
    for item in _mappings(data):
        if isinstance(item.get("file"), str):
            for folder in [at.parent, *at.parent.parents]:
                found.append((folder / item["file"], "a profile's data generator"))
    return found


def _strings(values: Any) -> Iterable[str]:
    return [v for v in values if isinstance(v, str)] if isinstance(values, list) else []


def _mappings(data: Any) -> Iterable[dict[str, Any]]:
    """Every mapping in ``data``, nested ones included."""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            yield item
            stack += list(item.values())
        elif isinstance(item, list):
            stack += item
