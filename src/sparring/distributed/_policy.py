"""What a worker agrees to run: its operator's allow-list, and the same code and files as
the coordinator.

Whoever can write to the broker can send a worker a message (docs/distributed.md, "Trust
model"). A worker therefore takes nothing it executes from a message: the settings a
message carries are parsed (``SimulateSettings``, ``MutateSettings``) and refused, with
the key that is not allowed, when they name

- a file or folder (profiles, personas, rules, ``chatbot.yaml``, the project, the Rasa
  helper) outside the worker's roots (``sparring worker --allow-root``, default the folder
  it was started in): a ``chatbot.yaml``'s Python target or a Rasa helper is code, so only
  files the operator put under a root are read;
- a serve command that is not one the operator allowed (``--allow-serve-command``);
- a model base URL the operator did not allow (``--allow-model-base-url``): the worker's
  provider key goes where that URL points.

A message also names the sparring version and a digest of sparring's code; a worker
whose own differ refuses it (``check_sender``). The files a job needs come by digest
(``_content``, ``_bundle``): a worker reads no file of the project at the path a message
names, except its own code, under its roots.
"""

from __future__ import annotations

import hashlib
import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import sparring

ROOTS_VARIABLE = "SPARRING_WORKER_ROOTS"
SERVE_COMMANDS_VARIABLE = "SPARRING_WORKER_SERVE_COMMANDS"
BASE_URLS_VARIABLE = "SPARRING_WORKER_MODEL_BASE_URLS"
PATH_KEYS = ("chatbot", "profiles", "personas", "rules", "rasa_helper", "project")
"""The settings that name files or folders."""


class Refused(Exception):
    """A message this worker will not run; the text names the setting and why."""


@dataclass(frozen=True)
class WorkerPolicy:
    """A worker's allow-list: ``roots`` (resolved folders) that named files must be in,
    ``serve_commands`` allowed (argument lists), ``model_base_urls`` allowed."""

    roots: tuple[Path, ...]
    serve_commands: tuple[tuple[str, ...], ...] = ()
    model_base_urls: tuple[str, ...] = field(default=())

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> WorkerPolicy:
        """The policy ``sparring worker`` put in the environment of its pool processes:
        ``SPARRING_WORKER_ROOTS`` (``os.pathsep``-separated; default the current folder),
        ``SPARRING_WORKER_SERVE_COMMANDS`` (one command a line, split as a shell would),
        ``SPARRING_WORKER_MODEL_BASE_URLS`` (one a line)."""
        env = os.environ if env is None else env
        roots = [r for r in (env.get(ROOTS_VARIABLE) or "").split(os.pathsep) if r]
        commands = (env.get(SERVE_COMMANDS_VARIABLE) or "").splitlines()
        urls = (env.get(BASE_URLS_VARIABLE) or "").split()
        return cls(
            roots=tuple(Path(r).resolve() for r in roots or [os.getcwd()]),
            serve_commands=tuple(tuple(shlex.split(c)) for c in commands if c.strip()),
            model_base_urls=tuple(urls),
        )

    def check(self, settings: Any, paths: tuple[str, ...] = PATH_KEYS) -> None:
        """Raise ``Refused`` naming the first setting of ``settings`` (a job's parsed
        settings) this worker does not allow; of the path settings, only those of
        ``paths`` are checked (the ones this worker reads: a simulate chunk reads none of
        its own unless its chatbot is code, ``_tasks``)."""
        for key, path in _paths(settings, paths):
            real = path.resolve()
            if not any(real.is_relative_to(root) for root in self.roots):
                allowed = ", ".join(str(r) for r in self.roots)
                raise Refused(
                    f"settings.{key}: {path} is outside this worker's roots ({allowed}); "
                    "start the worker with --allow-root FOLDER"
                )
        command = getattr(settings, "serve_command", None)
        if command is not None and tuple(command) not in self.serve_commands:
            raise Refused(
                f"settings.serve_command: {shlex.join(command)!r} is not a serve command this "
                "worker allows (sparring worker --allow-serve-command)"
            )
        url = getattr(settings, "model_base_url", None)
        if url is not None and url not in self.model_base_urls:
            raise Refused(
                f"settings.model_base_url: {url!r} is not a model base URL this worker allows "
                "(sparring worker --allow-model-base-url)"
            )


def _paths(settings: Any, keys: tuple[str, ...]) -> list[tuple[str, Path]]:
    """(``key`` or ``key[i]``, path) of every path ``settings`` names under ``keys``."""
    found: list[tuple[str, Path]] = []
    for key in keys:
        value = getattr(settings, key, None)
        if isinstance(value, Path):
            found.append((key, value))
        elif isinstance(value, list):
            found += [(f"{key}[{i}]", p) for i, p in enumerate(value) if isinstance(p, Path)]
    return found


@cache
def code_digest() -> str:
    """SHA-256 (16 hex digits) of sparring's own Python files, names and contents: two
    checkouts that differ by one line differ here."""
    package = Path(sparring.__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(str(path.relative_to(package)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def check_sender(version: str, code: str) -> None:
    """Raise ``Refused`` when this worker's sparring version or code differ from the
    coordinator's (``version``, ``code``: a message's sender)."""
    if version != sparring.__version__:
        raise Refused(
            f"the coordinator runs sparring {version}, this worker {sparring.__version__}"
        )
    if code != code_digest():
        raise Refused(
            f"sparring's code differs: the coordinator's digest is {code}, this worker's "
            f"{code_digest()} (install the same sparring on both)"
        )
