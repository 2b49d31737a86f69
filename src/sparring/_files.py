"""Reading a user's files and folders without trusting what they are (issue 36, defect 2).

A path a user gives (a profile, ``chatbot.yaml``, a file under ``--source``, ``--docs``
or ``--project``) may be a symbolic link to ``/dev/zero`` (``stat()`` says 0 bytes, a read
never ends), a FIFO (``open()`` waits for a writer for ever), a socket or a device. So:

- ``read_user_bytes(path, limit)`` / ``read_user_text(path, limit)`` open without
  blocking (``O_NONBLOCK``), refuse anything but a regular file (``fstat`` of the opened
  descriptor, so a link is judged by what it points to), and read at most ``limit``
  bytes whatever ``stat()`` said; ``ConfigError`` naming the file otherwise. Under an
  execution policy that confines paths (``sparring._policy``, the dashboard's jobs) the
  file opened must lie inside its roots — judged on the open descriptor, so a link
  swapped in after a check is caught — and not be a hard link; sparring's own packaged
  data is read anywhere.
- ``confine(path, root)`` is ``path`` resolved (links followed) when it stays inside
  ``root`` resolved; ``ConfigError`` when it leads out. The dashboard's execution policy
  and every folder walk call it.
- ``user_files(root, suffixes)`` walks a folder (links to folders not followed), keeps the
  files with one of ``suffixes`` and refuses, with the file named, one that is not a
  regular file or resolves outside ``root``.

All errors are ``ConfigError`` (a ``UserInputError``: exit code 2) with the file's path.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path

from sparring._policy import current_policy, resolved_inside
from sparring.errors import ConfigError, Problem

__all__ = [
    "MAX_USER_FILE_BYTES",
    "confine",
    "read_user_bytes",
    "read_user_text",
    "user_files",
]

MAX_USER_FILE_BYTES = 8 * 1024 * 1024
"""Bytes read at most from one user file when the caller names no limit of its own."""
_CHUNK = 1024 * 1024
_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


def _refuse(path: Path | str, message: str) -> ConfigError:
    return ConfigError(Problem(str(path), None, "", message))


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def read_user_bytes(path: Path | str, limit: int = MAX_USER_FILE_BYTES) -> bytes:
    """The bytes of the regular file ``path``: at most ``limit`` bytes are read, whatever
    ``stat()`` says. Raises ``ConfigError`` naming the file when it is missing, unreadable,
    a FIFO, device, socket or folder (a link is judged by its target), longer than
    ``limit`` bytes, or — under an execution policy that confines paths — outside its
    roots or a hard link (``_check_confined``). Never blocks on a FIFO."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise _refuse(path, f"cannot read file: {_reason(exc)}") from exc
    try:
        status = os.fstat(fd)
        mode = status.st_mode
        if not stat.S_ISREG(mode):
            raise _refuse(path, f"is {_kind(mode)}; expected a regular file")
        _check_confined(fd, path, status.st_nlink)
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(_CHUNK, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise _refuse(path, f"cannot read file: {_reason(exc)}") from exc
    finally:
        os.close(fd)
    if size > limit:
        raise _refuse(path, f"file is larger than {limit:,} bytes, the limit for this file")
    return b"".join(chunks)


_PACKAGE = Path(__file__).resolve().parent
"""sparring's own folder: its packaged data (built-in suites, personas) is read anywhere."""


def _check_confined(fd: int, path: Path | str, links: int) -> None:
    """Refuse the opened file ``fd`` when the execution policy in force confines paths
    (``sparring._policy``) and the file is not inside its roots — judged on the file
    opened, not on the name (a link swapped in after a check is caught) — or, inside
    them, is a hard link (another name of a file that may lie anywhere). sparring's own
    packaged files are always read."""
    roots = current_policy().roots
    if roots is None:
        return
    try:
        opened = Path(os.readlink(f"/proc/self/fd/{fd}"))
    except OSError:  # no /proc: the name, resolved now
        opened = Path(path).resolve()
    if opened == _PACKAGE or _PACKAGE in opened.parents:
        return
    if not any(root == opened or root in opened.parents for root in roots):
        raise _refuse(path, f"{str(path)!r} is outside the project's files: refused here")
    if links > 1:
        raise _refuse(path, "is a hard link (a file with other names): refused here")


def read_user_text(
    path: Path | str, limit: int = MAX_USER_FILE_BYTES, *, errors: str = "strict"
) -> str:
    """``read_user_bytes`` decoded as UTF-8 (``errors`` as for ``bytes.decode``); with
    ``errors="strict"`` a file that is not UTF-8 raises ``ConfigError`` with the byte."""
    data = read_user_bytes(path, limit)
    try:
        return data.decode("utf-8", errors=errors)
    except UnicodeDecodeError as exc:
        raise _refuse(path, f"cannot read file: not UTF-8 text (byte {exc.start})") from exc


def _reason(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "symbolic-link loop"
    if exc.errno == errno.EISDIR:
        return "is a folder; expected a file"
    return exc.strerror or str(exc)


def confine(path: Path | str, root: Path | str) -> Path:
    """``path`` resolved (symbolic links followed; relative to the working folder) when it
    is ``root`` resolved or inside it; raises ``ConfigError`` naming ``path`` when it leads
    outside ``root`` (or is a symbolic-link loop)."""
    try:
        resolved = resolved_inside(path, root)
    except (OSError, RuntimeError) as exc:  # RuntimeError: a link loop before 3.13
        raise _refuse(path, "cannot resolve the path: symbolic-link loop") from exc
    if resolved is None:
        base, to = Path(root).resolve(), Path(path).resolve()
        raise _refuse(path, f"leads outside {str(base)!r} (to {str(to)!r}); refused")
    return resolved


def user_files(
    root: Path | str,
    suffixes: Iterable[str] | None = None,
    skip: Callable[[str], bool] | None = None,
) -> list[Path]:
    """The files under the folder ``root`` whose name ends with one of ``suffixes``
    (case-insensitive; every file with ``None``), sorted, as paths under ``root``. Links
    to folders are not followed, nor folders whose name ``skip`` is true for; a kept
    file that is not a regular file (a FIFO, device, socket, or a link to one) or that
    resolves outside ``root`` raises ``ConfigError`` naming it."""
    base = Path(root)
    wanted = tuple(s.lower() for s in suffixes) if suffixes is not None else None
    found: list[Path] = []
    for folder, dirs, names in os.walk(base, followlinks=False):
        if skip is not None:
            dirs[:] = [d for d in dirs if not skip(d)]
        for name in names:
            if wanted is not None and not name.lower().endswith(wanted):
                continue
            path = Path(folder) / name
            try:
                mode = path.stat().st_mode
            except OSError as exc:
                raise _refuse(path, f"cannot read file: {_reason(exc)}") from exc
            if not stat.S_ISREG(mode):
                raise _refuse(path, f"is {_kind(mode)}; expected a regular file")
            confine(path, base)
            found.append(path)
    return sorted(found)
