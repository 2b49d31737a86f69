"""The files of a mutate job, shipped to its workers by content digest.

A mutant's worker needs the project, the profiles and rules (the job's snapshot of them,
which judged the original), ``chatbot.yaml`` and the Rasa helper. The coordinator
publishes each file's content in the run's Redis under its SHA-256 digest
(``sparring:blob:<digest>``, ``_content``: stored once whatever the number of mutants
or sessions) and, per setting, a **manifest** — ``{"folder": bool, "files": {relative
path: digest}}`` — itself a blob; a mutant message names the manifest's digest per
setting (``files``). The worker rebuilds each file or folder under its own temporary
folder, at the coordinator's absolute path below it (so ``<project>/../chatbot.yaml``
and a ``chatbot.yaml``'s relative paths mean what they meant there), checking every
digest, caching contents (``SPARRING_WORKER_CACHE``).

**Code never comes from Redis.** A file that Python imports or a shell runs
(``CODE_SUFFIXES``: a python connector's target, a Rasa helper, custom actions) is not
published: the worker takes a file with the same digest from under its own roots
(``--allow-root``; any path there, not the coordinator's), or refuses naming the file
and digest. Shipped files are written without an execute bit.

Errors: ``Refused`` naming the setting and the file (a relative path that leaves its
folder, content missing from Redis or not matching its digest, code with no twin under
the roots); ``UserInputError`` on the coordinator for a file Redis cannot hold.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

import redis

from sparring._files import read_user_bytes
from sparring.distributed._content import BLOB_EXPIRY, blob_key, digest_of, fetch
from sparring.distributed._policy import Refused
from sparring.errors import ConfigError, UserInputError

CODE_SUFFIXES = frozenset({".py", ".pyc", ".pyo", ".pyd", ".pth", ".so", ".sh", ".bash"})
"""Files a worker takes only from its own roots, never from Redis."""
MAX_FILE_BYTES = 512 * 1024 * 1024
"""Redis's largest string."""
MAX_CODE_BYTES = 64 * 1024 * 1024
"""Bytes read at most from one code file under a worker's roots: a larger file, a link to
a device or a FIFO there is not indexed (read with ``sparring._files.read_user_bytes``)."""
_SKIPPED = ("__pycache__",)


def is_code(name: str) -> bool:
    """Whether a file named ``name`` is code (``CODE_SUFFIXES``, case-insensitive)."""
    return PurePosixPath(name).suffix.lower() in CODE_SUFFIXES


def _files_of(path: Path) -> dict[str, Path]:
    """The files of ``path`` (a file: itself under its name; a folder: every file below
    it, hidden ones and ``__pycache__`` left out), by POSIX relative path."""
    if path.is_file():
        return {path.name: path}
    found: dict[str, Path] = {}
    for item in sorted(path.rglob("*")):
        relative = item.relative_to(path)
        hidden = any(p.startswith(".") or p in _SKIPPED for p in relative.parts)
        if item.is_file() and not hidden:
            found[relative.as_posix()] = item
    return found


def ship(client: redis.Redis, sources: Mapping[str, Path]) -> dict[str, str]:
    """Publish the files of each setting's ``sources`` path (a file or a folder) and its
    manifest; return ``{setting: manifest digest}``. Code files (``is_code``) are in the
    manifest by digest but not published. Raises ``UserInputError`` for a missing path
    or a file over 512 MB."""
    shipped: dict[str, str] = {}
    for key, path in sources.items():
        if not path.exists():
            raise UserInputError(f"settings.{key}: {path} does not exist")
        files: dict[str, str] = {}
        for relative, file in _files_of(path).items():
            if file.stat().st_size > MAX_FILE_BYTES:
                raise UserInputError(f"settings.{key}: {file} is over 512 MB (Redis's limit)")
            content = read_user_bytes(file, MAX_FILE_BYTES)
            files[relative] = digest_of(content)
            if not is_code(relative):
                _publish_once(client, files[relative], content)
        manifest = {"folder": path.is_dir(), "files": files}
        encoded = json.dumps(manifest, sort_keys=True, separators=(",", ":")).encode()
        shipped[key] = digest_of(encoded)
        _publish_once(client, shipped[key], encoded)
    return shipped


def _publish_once(client: redis.Redis, digest: str, content: bytes) -> None:
    """Store ``content`` under ``digest`` unless it is there (then renew its expiry)."""
    if not client.expire(blob_key(digest), BLOB_EXPIRY):
        client.set(blob_key(digest), content, ex=BLOB_EXPIRY)


def _relative(key: str, name: str) -> PurePosixPath:
    """``name`` as a path that stays in its folder, or ``Refused``."""
    relative = PurePosixPath(name)
    bad = not name or "\\" in name or "\0" in name or relative.is_absolute()
    if bad or any(part in ("", ".", "..") for part in name.split("/")):
        raise Refused(f"settings.{key}: the manifest names {name!r}, which leaves its folder")
    return relative


def local_path(folder: Path, path: Path, key: str) -> Path:
    """Where the coordinator's absolute ``path`` is rebuilt under ``folder``."""
    if not path.is_absolute() or ".." in path.parts:
        raise Refused(f"settings.{key}: {path} is not an absolute path without '..'")
    return folder.joinpath(*path.parts[1:])


def rebuild(client: redis.Redis, key: str, digest: str, target: Path, code: CodeIndex) -> None:
    """Rebuild at ``target`` the file or folder whose manifest has ``digest`` (see the
    module docstring). Raises ``Refused``."""
    try:
        manifest = json.loads(fetch(client, digest, key))
        folder, files = bool(manifest["folder"]), dict(manifest["files"])
    except (ValueError, KeyError, TypeError) as exc:
        raise Refused(f"settings.{key}: its manifest is not one ({exc})") from None
    if not folder and len(files) != 1:
        raise Refused(f"settings.{key}: a file's manifest names {len(files)} files")
    for name, file_digest in files.items():
        destination = target / _relative(key, name) if folder else target
        if is_code(name):
            content = code.content(file_digest, f"{key} ({name})")
        else:
            content = fetch(client, str(file_digest), f"{key} ({name})")
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_bytes(content)
        destination.chmod(0o644)


class CodeIndex:
    """The code files under a worker's ``roots``, by SHA-256 digest: found by walking
    the roots once, when the first code file is asked for (files with ``CODE_SUFFIXES``
    only; hidden folders and ``__pycache__`` skipped)."""

    def __init__(self, roots: tuple[Path, ...]) -> None:
        self.roots = roots
        self._by_digest: dict[str, Path] | None = None

    def _index(self) -> dict[str, Path]:
        if self._by_digest is None:
            self._by_digest = {}
            for root in self.roots:
                for base, folders, names in os.walk(root):
                    folders[:] = [f for f in folders if not f.startswith(".") and f not in _SKIPPED]
                    for name in names:
                        if is_code(name):
                            path = Path(base) / name
                            try:  # a link to /dev/zero, a FIFO or a huge file is no code
                                content = read_user_bytes(path, MAX_CODE_BYTES)
                            except ConfigError:
                                continue
                            self._by_digest.setdefault(digest_of(content), path)
        return self._by_digest

    def content(self, digest: str, what: str) -> bytes:
        """The content of this worker's code file with ``digest``, checked again as it
        is read; ``Refused`` naming ``what`` when no file under the roots has it."""
        path = self._index().get(digest)
        if path is not None:
            try:
                content = read_user_bytes(path, MAX_CODE_BYTES)
            except ConfigError:
                content = b""
            if digest_of(content) == digest:
                return content
        roots = ", ".join(str(r) for r in self.roots)
        raise Refused(
            f"settings.{what}: code (digest {digest[:16]}…) that this worker takes only from "
            f"its own files, and no file under its roots ({roots}) has that content; put the "
            "coordinator's version of the bot's code under a --allow-root folder"
        )
