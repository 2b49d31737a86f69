"""Every process a mutation job starts, so that none outlives it.

Builders start servers (Rasa, its action server) and trainings in their own process
groups and ``track`` them here; closing a built bot ``untrack``s them. Three layers make
sure nothing is left running:

1. each builder stops what it started in ``try``/``finally`` (also on cancellation);
2. ``terminating_signals()`` turns SIGTERM and SIGHUP into ``KeyboardInterrupt`` while a job
   runs, so the event loop's tasks are cancelled and their ``finally`` blocks run;
3. an ``atexit`` hook kills every group still tracked (SIGTERM, then SIGKILL).

Only SIGKILL of the job itself defeats all three (a killed parent cannot clean up).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from sparring._policy import current_policy

GRACE = 10.0
"""Seconds a process group gets to exit after SIGTERM before SIGKILL."""

_groups: dict[int, str] = {}
_lock = threading.Lock()
_hooked = False


def track(pid: int, what: str) -> None:
    """Remember the process group led by ``pid`` (``what``: for messages)."""
    global _hooked
    with _lock:
        _groups[pid] = what
        if not _hooked:
            atexit.register(kill_all)
            _hooked = True


def untrack(pid: int) -> None:
    with _lock:
        _groups.pop(pid, None)


def tracked() -> dict[int, str]:
    """The process groups still tracked: leader pid → what it is."""
    with _lock:
        return dict(_groups)


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, exited but not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return True
    return state not in ("Z", "X")


def kill_group(pid: int, grace: float = GRACE) -> None:
    """SIGTERM the group led by ``pid``, SIGKILL what is left after ``grace`` seconds (or
    once the leader is gone: stragglers); untrack it. Never raises, never reaps (the
    process's owner does). Blocking: call it from a thread in async code."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    untrack(pid)


def kill_all(grace: float = 3.0) -> None:
    """Kill every tracked process group (the ``atexit`` hook)."""
    for pid in tracked():
        kill_group(pid, grace)


async def stop(process: asyncio.subprocess.Process, grace: float = GRACE) -> None:
    """Stop a process ``spawn`` started: SIGTERM its group, SIGKILL after ``grace``
    seconds, reap it, untrack it. Never raises; finishes even when cancelled."""

    async def stopping() -> None:
        await asyncio.to_thread(kill_group, process.pid, grace)
        with contextlib.suppress(Exception):
            await process.wait()

    try:
        await asyncio.shield(stopping())
    finally:
        untrack(process.pid)


async def spawn(
    command: Sequence[str], *, cwd: Path, env: Mapping[str, str], log: Path, what: str
) -> asyncio.subprocess.Process:
    """Start ``command`` in a new process group, output to ``log``, tracked. Raises
    ``ConfigError`` when the execution policy in force refuses code (a process of the
    user's choosing runs outside every guard of this one)."""
    current_policy().require_code(f"running {what}", "", None, "command")
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        process = await asyncio.create_subprocess_exec(
            *command, cwd=cwd, env=dict(env), stdout=out, stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    track(process.pid, what)
    return process


async def run_to_end(
    command: Sequence[str], *, cwd: Path, env: Mapping[str, str], log: Path, what: str,
    timeout: float,
) -> int:  # fmt: skip
    """Run ``command`` (as ``spawn``) to its end and return its exit code; on timeout or
    cancellation its whole group is killed (``TimeoutError`` / ``CancelledError`` re-raised)."""
    process = await spawn(command, cwd=cwd, env=env, log=log, what=what)
    try:
        return await asyncio.wait_for(process.wait(), timeout)
    finally:
        await stop(process, 3.0)


@contextlib.contextmanager
def terminating_signals() -> Iterator[None]:
    """Within the block (main thread only; elsewhere a no-op), SIGTERM and SIGHUP raise
    ``KeyboardInterrupt`` like Ctrl-C, so a job's cleanup runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(signal.Signals(signum).name)

    previous = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
