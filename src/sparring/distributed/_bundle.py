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
digest, caching contents (``SPARRING_WORKER_CACHE``). A project is shipped without the
folders a mutant's build never copies (``sparring.mutation.PROJECT_FOLDERS_SKIPPED``:
trained ``models/``, which every Rasa mutant retrains, caches, VCS).

**Code never comes from Redis.** Which files are code is decided on the job's typed
settings and parsed files (``_code.code_files``: the Rasa helper, what a python
connector or the Rasa action server imports, what a serve command names, rule
functions, generators), by the coordinator (it does not publish them) and again by the
worker (it takes them only from its own roots, ``--allow-root``, by digest; any path
there, not the coordinator's), never on a file's name. Shipped files are written without
an execute bit.

Errors: ``Refused`` naming the setting and the file (a relative path that leaves its
folder, content missing from Redis or not matching its digest, code with no twin under
the roots); ``UserInputError`` on the coordinator for a file Redis cannot hold.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import redis

from sparring._files import read_user_bytes
from sparring.distributed._code import Listing, Reader, Where
from sparring.distributed._content import BLOB_EXPIRY, blob_key, digest_of, fetch
from sparring.distributed._policy import Refused
from sparring.errors import ConfigError, UserInputError

MAX_FILE_BYTES = 512 * 1024 * 1024
"""Redis's largest string."""
MAX_CODE_BYTES = 64 * 1024 * 1024
"""Bytes read at most from one file under a worker's roots: a larger file, a link to a
device or a FIFO there is not indexed (read with ``sparring._files.read_user_bytes``)."""
_SKIPPED = ("__pycache__",)

CodeOf = Callable[[Mapping[str, Listing], Reader], Collection[Where]]
"""The files of the listed settings that the job uses as code (``_code.code_files``)."""


def _files_of(path: Path, skipped: Collection[str] = ()) -> dict[str, Path]:
    """The files of ``path`` (a file: itself under its name; a folder: every file below
    it, hidden ones, ``__pycache__`` and folders named in ``skipped`` left out), by POSIX
    relative path."""
    if path.is_file():
        return {path.name: path}
    found: dict[str, Path] = {}
    left_out = (*_SKIPPED, *skipped)
    for item in sorted(path.rglob("*")):
        relative = item.relative_to(path)
        hidden = any(p.startswith(".") or p in left_out for p in relative.parts)
        if item.is_file() and not hidden:
            found[relative.as_posix()] = item
    return found


def ship(
    client: redis.Redis,
    sources: Mapping[str, Path],
    code_of: CodeOf,
    skipped: Mapping[str, Collection[str]] | None = None,
) -> dict[str, str]:
    """Publish the files of each setting's ``sources`` path (a file or a folder; without
    the folders ``skipped`` names for it) and its manifest; return ``{setting: manifest
    digest}``. The files ``code_of`` says are code are in the manifest by digest but not
    published. Raises ``UserInputError`` for a missing path or a file over 512 MB."""
    found: dict[str, dict[str, Path]] = {}
    for key, path in sources.items():
        if not path.exists():
            raise UserInputError(f"settings.{key}: {path} does not exist")
        found[key] = _files_of(path, (skipped or {}).get(key, ()))
    listings = {k: Listing(p, p.is_dir(), tuple(found[k])) for k, p in sources.items()}
    code = set(code_of(listings, lambda key, name: found[key].get(name)))
    shipped: dict[str, str] = {}
    for key, path in sources.items():
        files: dict[str, str] = {}
        for relative, file in found[key].items():
            if file.stat().st_size > MAX_FILE_BYTES:
                raise UserInputError(f"settings.{key}: {file} is over 512 MB (Redis's limit)")
            content = read_user_bytes(file, MAX_FILE_BYTES)
            files[relative] = digest_of(content)
            if (key, relative) not in code:
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


@dataclass(frozen=True)
class Manifest:
    """A setting's manifest: a folder or a file, and its files' digests by name."""

    folder: bool
    files: dict[str, str]


def manifest(client: redis.Redis, key: str, digest: str) -> Manifest:
    """The manifest with ``digest`` (fetched by digest, checked). Raises ``Refused``."""
    try:
        raw = json.loads(fetch(client, digest, key))
        found = Manifest(bool(raw["folder"]), {str(k): str(v) for k, v in raw["files"].items()})
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise Refused(f"settings.{key}: its manifest is not one ({exc})") from None
    if not found.folder and len(found.files) != 1:
        raise Refused(f"settings.{key}: a file's manifest names {len(found.files)} files")
    for name in found.files:
        _relative(key, name)
    return found


def rebuild_files(
    client: redis.Redis,
    manifests: Mapping[str, Manifest],
    targets: Mapping[str, Path],
    sources: Mapping[str, Path],
    code_of: CodeOf,
    code: CodeIndex,
) -> None:
    """Rebuild at ``targets[key]`` the file or folder of each setting whose manifest is
    ``manifests[key]`` (``sources[key]``: where it was at the coordinator): first the
    data files ``code_of`` asks to read, then every file — those it says are code from
    this worker's roots by digest (``code``), the others from Redis by digest. Raises
    ``Refused``."""

    def destination(key: str, name: str) -> Path:
        folder = manifests[key].folder
        return targets[key] / _relative(key, name) if folder else targets[key]

    def write(key: str, name: str, content: bytes) -> Path:
        path = destination(key, name)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
            path.chmod(0o644)
        except OSError as exc:
            raise Refused(f"settings.{key}: cannot rebuild it here: {exc}") from None
        return path

    def data(key: str, name: str) -> Path | None:
        digest = manifests[key].files.get(name)
        if digest is None:
            return None
        return write(key, name, fetch(client, digest, f"{key} ({name})"))

    listings = {k: Listing(sources[k], m.folder, tuple(m.files)) for k, m in manifests.items()}
    used_as_code = set(code_of(listings, data))
    for key, found in manifests.items():
        for name, digest in found.files.items():
            what = f"{key} ({name})"
            if (key, name) in used_as_code:
                write(key, name, code.content(digest, what))
            else:
                write(key, name, fetch(client, digest, what))


class CodeIndex:
    """The files under a worker's ``roots``, by SHA-256 digest (hidden folders and
    ``__pycache__`` skipped): where a mutant's code is taken from.

    Built once per process and kept (``for_roots``). A look-up that misses, or finds a
    file whose content no longer has the digest, walks the roots again reading only the
    files' sizes and modification times, and hashes only the files that are new or
    changed since; a look-up that hits reads that one file (its digest checked again).
    So the roots are read whole once per worker process, not once per mutant."""

    def __init__(self, roots: tuple[Path, ...]) -> None:
        self.roots = roots
        self._seen: dict[Path, tuple[int, int, str]] = {}
        self._by_digest: dict[str, Path] | None = None
        self.hashed = 0
        """Files read and hashed so far (the cost the index saves)."""

    @classmethod
    def for_roots(cls, roots: tuple[Path, ...]) -> CodeIndex:
        """This process's index of ``roots`` (made on first use, then kept)."""
        index = _INDEXES.get(roots)
        if index is None:
            index = _INDEXES[roots] = cls(roots)
        return index

    def _refresh(self) -> dict[str, Path]:
        seen: dict[Path, tuple[int, int, str]] = {}
        for path in self._files():
            try:
                stat = path.stat()
            except OSError:
                continue
            known = self._seen.get(path)
            if known is not None and known[:2] == (stat.st_mtime_ns, stat.st_size):
                seen[path] = known
                continue
            content = _read_code(path)
            if content is None:
                continue
            self.hashed += 1
            seen[path] = (stat.st_mtime_ns, stat.st_size, digest_of(content))
        self._seen = seen
        by_digest: dict[str, Path] = {}
        for path, (_, _, digest) in seen.items():
            by_digest.setdefault(digest, path)
        self._by_digest = by_digest
        return by_digest

    def _files(self) -> list[Path]:
        """Every file under the roots (hidden folders and ``__pycache__`` skipped): a
        file a setting uses as code may have any name."""
        found = []
        for root in self.roots:
            for base, folders, names in os.walk(root):
                folders[:] = sorted(
                    f for f in folders if not f.startswith(".") and f not in _SKIPPED
                )
                found += [Path(base) / name for name in sorted(names)]
        return found

    def content(self, digest: str, what: str) -> bytes:
        """The content of this worker's file with ``digest``, checked again as it is
        read; ``Refused`` naming ``what`` when no file under the roots has it."""
        fresh = self._by_digest is None
        index = self._refresh() if self._by_digest is None else self._by_digest
        while True:
            path = index.get(digest)
            content = _read_code(path) if path is not None else None
            if content is not None and digest_of(content) == digest:
                return content
            if fresh:
                break
            index, fresh = self._refresh(), True
        roots = ", ".join(str(r) for r in self.roots)
        raise Refused(
            f"settings.{what}: code (digest {digest[:16]}…) that this worker takes only from "
            f"its own files, and no file under its roots ({roots}) has that content; put the "
            "coordinator's version of the bot's code under a --allow-root folder"
        )


def _read_code(path: Path) -> bytes | None:
    """The content of a file under a worker's roots; ``None`` for a link to
    ``/dev/zero``, a FIFO or a file over ``MAX_CODE_BYTES``: no code."""
    try:
        return read_user_bytes(path, MAX_CODE_BYTES)
    except ConfigError:
        return None


_INDEXES: dict[tuple[Path, ...], CodeIndex] = {}
