"""The one atomic write: readers see the old file or the whole new one, never half.

Every file sparring writes in place of another goes through ``atomic_write`` (or
``atomic_copy`` for a large file copied from elsewhere): run records and result files
(``RunStore``), the model cache, the weakness planner's record, the dashboard's key
file, cached Rasa models. ``tests/jobs/test_architecture.py`` finds no other rename over a
file in ``src``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from sparring._redact import redact_text

TEMP_SUFFIX = ".tmp"
"""Suffix of the temporary files an atomic write leaves behind if it is killed."""


def atomic_write(
    path: Path,
    data: str | bytes,
    *,
    durable: bool = True,
    redact: bool = True,
    mode: int | None = None,
) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the whole new one.

    The bytes go to a hidden temporary file in the same folder (``.<name>.<random>.tmp``),
    then ``os.replace`` renames it over ``path``. A process killed before the rename
    leaves only the temporary file, which ``remove_temp_files`` (``RunStore.open``)
    removes. With ``durable`` the file and its folder are also fsynced, so the write
    survives a power loss too (costs milliseconds per file). Missing parent folders are
    created. Text passes through the one redaction pass (``sparring._redact``) unless
    ``redact`` is false (a key file that *is* the secret): no secret is ever written by
    accident. ``mode`` sets the file's permission bits (e.g. ``0o600``; the temporary
    file is created private). Raises ``OSError`` on I/O failure (the temporary is
    removed)."""
    if isinstance(data, str):
        payload = (redact_text(data) if redact else data).encode("utf-8")
    else:
        payload = data
    _replace(path, lambda handle: handle.write(payload), durable=durable, mode=mode)


def atomic_copy(source: Path, target: Path, *, durable: bool = False) -> None:
    """Copy the file ``source`` to ``target`` atomically (streamed, never held in memory:
    a trained model of hundreds of megabytes), as ``atomic_write`` does."""
    with source.open("rb") as origin:
        _replace(target, lambda handle: shutil.copyfileobj(origin, handle), durable=durable)


def _replace(
    path: Path, fill: Callable[[BinaryIO], object], *, durable: bool, mode: int | None = None
) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMP_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            fill(handle)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp_name, mode)
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    if durable:
        _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory handles
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def remove_temp_files(folder: Path) -> list[Path]:
    """Delete the leftovers of interrupted atomic writes in ``folder``; return them."""
    removed = []
    for leftover in folder.glob(f".*{TEMP_SUFFIX}"):
        with contextlib.suppress(FileNotFoundError):
            leftover.unlink()
            removed.append(leftover)
    return removed
