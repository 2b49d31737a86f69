"""Building a mutant into a chatbot sparring can talk to.

A ``MutantBuilder`` turns a project folder (the original, or a copy with a mutant's files
written over it) into a ``BuiltBot``: the path of a ``chatbot.yaml`` pointing at the bot,
and an async ``close()`` that stops whatever serves it. A build that fails because of the
mutant (training fails, the server never starts, the chatbot.yaml no longer loads) raises
``BuildFailed``: that mutant is *stillborn*.

Builders per kind of project:

- ``rasa``: ``RasaBuilder`` (``_build_rasa``): train with the project's Rasa environment and
  model cache, serve on free ports.
- ``aiml``, ``prompt`` and other in-process bots: ``CopyBuilder``, the copy's own
  ``chatbot.yaml`` as is (a ``python`` connector whose target is ``file.py:Class`` loads
  the copy's file, so each mutant gets its own module reading its own mutated files; a
  prompt mutant's chatbot.yaml carries the mutated prompt).
- ``taskyto`` (and any kind given ``--serve-command``): ``ServeCommandBuilder``
  (``_build_command``), the command run on a free port (``taskyto-serve`` by default).
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import threading
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import yaml

from sparring._yaml import load_yaml_with_lines
from sparring.connectors import load_chatbot_config
from sparring.errors import SparringError, UserInputError

logger = logging.getLogger(__name__)

SKIPPED = ("models", ".rasa", "__pycache__", ".git", "results", ".pytest_cache")
"""Folders never copied with a project (trained models, caches, VCS)."""


class BuildFailed(Exception):
    """The mutant could not be built or served; ``reason`` says why (log paths included)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


Closer = Callable[[], Awaitable[None]]


@dataclass
class BuiltBot:
    """A served bot: ``chatbot`` is the ``chatbot.yaml`` pointing at it; ``close()`` stops
    its servers (idempotent, never raises). ``timings`` are seconds per build step
    (``train``, ``serve``…), ``notes`` what the builder wants reported (``model reused``)."""

    chatbot: Path
    closers: list[Closer] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    async def close(self) -> None:
        while self.closers:
            closer = self.closers.pop()
            try:
                await closer()
            except Exception:  # closing must never fail a run
                logger.warning("stopping a mutant's bot failed", exc_info=True)


class MutantBuilder(Protocol):
    """Builds a project folder into a served bot. ``workers`` is how many builds the
    machine runs well at once (the default pool size)."""

    workers: int

    async def build(self, project: Path, work: Path) -> BuiltBot:
        """Build ``project`` (a folder this build owns); ``work`` is a folder for logs and
        generated files. Raises ``BuildFailed``; cleans up after itself when it raises
        or is cancelled."""
        ...


def copy_project(source: Path, files: Mapping[str, str], target: Path) -> Path:
    """Copy ``source`` to ``target`` (without ``SKIPPED`` folders) and write ``files``
    (relative path → text) over it; return ``target``. The copy is private like the run's
    records (``make_private``): it holds the user's ``chatbot.yaml``, keys included."""
    if target.exists():
        shutil.rmtree(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(*SKIPPED), symlinks=True)
    for relative, text in files.items():
        path = target / relative
        if not path.resolve().is_relative_to(target.resolve()):
            raise ValueError(f"a mutant may only write inside the project: {relative}")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    make_private(target)
    return target


def make_private(folder: Path) -> None:
    """Give ``folder`` and everything in it to its owner only: folders ``0o700``, files
    their owner's bits (``0o600``, ``0o700`` for a script), as the run's records
    (written ``0o600`` by ``sparring._atomic``). Symbolic links are left as they are."""
    folder.chmod(0o700)
    for root, folders, names in os.walk(folder):
        for name in folders:
            path = Path(root, name)
            if not path.is_symlink():
                path.chmod(0o700)
        for name in names:
            path = Path(root, name)
            if not path.is_symlink():
                path.chmod((path.stat().st_mode & 0o700) | 0o600)


class CopyBuilder:
    """In-process bots (``aiml``, ``prompt``, any ``python`` connector): the copy's own
    ``chatbot.yaml`` (``chatbot``, relative to the project). Nothing to start or stop."""

    def __init__(self, chatbot: str = "chatbot.yaml", workers: int = 4) -> None:
        self.chatbot = chatbot
        self.workers = workers

    async def build(self, project: Path, work: Path) -> BuiltBot:
        path = project / self.chatbot
        if not path.is_file():
            raise BuildFailed(f"no {self.chatbot} in the project")
        try:
            config = load_chatbot_config(path)
        except SparringError as exc:
            raise BuildFailed(f"{self.chatbot} does not load: {exc}") from exc
        target = getattr(config.params, "target", "")
        if config.connector == "python" and ".py:" not in str(target):
            raise UserInputError(
                f"{path}: mutate needs a `file.py:Name` target for the python connector (a "
                f"module target is imported once and shared by every mutant), not {target!r}"
            )
        return BuiltBot(path)


_reserved: set[int] = set()
_ports_lock = threading.Lock()


def reserve_ports(count: int) -> list[int]:
    """``count`` TCP ports free on 127.0.0.1 and not handed to another build."""
    ports: list[int] = []
    with _ports_lock:
        while len(ports) < count:
            with socket.socket() as probe:
                probe.bind(("127.0.0.1", 0))
                port = int(probe.getsockname()[1])
            if port not in _reserved:
                _reserved.add(port)
                ports.append(port)
    return ports


def release_ports(ports: list[int]) -> None:
    with _ports_lock:
        _reserved.difference_update(ports)


def write_chatbot(template: Path, url: str, target: Path) -> None:
    """``template`` with ``params.url`` set to ``url``, written to ``target``."""
    data = load_yaml_with_lines(template)[0] or {}
    data.setdefault("params", {})["url"] = url
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
