"""Calling an in-process Python bot so that nothing it does can take the job with it.

- A synchronous call runs in its own **daemon** thread (not the event loop's default
  executor): when it never returns, the caller's timeout still fires (``timed_reply``),
  the frozen thread is left behind, and neither the end of the run nor Ctrl-C waits for
  it (``asyncio.run`` joins the default executor's threads, which is how one frozen bot
  used to stall a job for good).
- ``SystemExit``, ``KeyboardInterrupt`` and any other exception raised by the bot become
  ``ChatbotCrash`` (asyncio's cancellation passes through untouched).
- ``os._exit`` called from inside a bot call raises instead of ending the process: the
  first Python connector created installs a guard (``guard_process_exit``) that checks a
  context variable set only while a bot call runs; every other caller gets the real
  ``os._exit``.

What stays out of reach in process: an ``async`` bot that blocks the event loop with
synchronous work, and a bot that kills its own process with a signal.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import os
import threading
from collections.abc import Callable
from typing import Any, NoReturn

from sparring.errors import ChatbotCrash

_IN_BOT: contextvars.ContextVar[bool] = contextvars.ContextVar("sparring_in_bot", default=False)
_REAL_EXIT = os._exit
_GUARD_LOCK = threading.Lock()


class _BotCalledExit(BaseException):
    """Raised in place of ``os._exit(status)`` inside a bot call."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def _guarded_exit(status: int) -> NoReturn:
    if _IN_BOT.get():
        raise _BotCalledExit(status)
    _REAL_EXIT(status)


def guard_process_exit() -> None:
    """Replace ``os._exit`` with a version that raises inside bot calls (idempotent)."""
    with _GUARD_LOCK:
        if os._exit is not _guarded_exit:
            os._exit = _guarded_exit


class _Escaped(Exception):
    """Carries a bot's ``BaseException`` from its thread to the loop (a future must not
    hold ``SystemExit`` or ``KeyboardInterrupt``: asyncio re-raises those on the loop)."""

    def __init__(self, original: BaseException) -> None:
        super().__init__(repr(original))
        self.original = original


def _crash(exc: BaseException, name: str) -> ChatbotCrash:
    if isinstance(exc, _BotCalledExit):
        return ChatbotCrash(f"{name} called os._exit({exc.status})")
    if isinstance(exc, SystemExit):
        return ChatbotCrash(f"{name} raised SystemExit({exc.code!r})")
    return ChatbotCrash(f"{name} raised {type(exc).__name__}: {exc}")


async def call_bot(function: Callable[..., Any], *args: Any, name: str) -> Any:
    """``function(*args)``'s result (awaited when it is awaitable); a coroutine function
    runs on the loop, anything else in a fresh daemon thread. Raises ``ChatbotCrash``
    naming ``name`` for whatever the bot raises, ``SystemExit`` and ``os._exit`` included;
    ``asyncio.CancelledError`` propagates."""
    token = _IN_BOT.set(True)
    try:
        if inspect.iscoroutinefunction(function):
            return await function(*args)
        answer = await _in_daemon_thread(function, args)
        return await answer if inspect.isawaitable(answer) else answer
    except asyncio.CancelledError:
        raise
    except ChatbotCrash:
        raise
    except _Escaped as exc:
        raise _crash(exc.original, name) from exc.original
    except BaseException as exc:  # the bot's SystemExit and KeyboardInterrupt too
        raise _crash(exc, name) from exc
    finally:
        _IN_BOT.reset(token)


def _in_daemon_thread(function: Callable[..., Any], args: tuple[Any, ...]) -> asyncio.Future[Any]:
    """A future of ``function(*args)`` run in a new daemon thread."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(value: Any, error: BaseException | None) -> None:
        if future.done():  # the caller gave up (timeout, Ctrl-C)
            return
        if error is not None:
            future.set_exception(error if isinstance(error, Exception) else _Escaped(error))
        else:
            future.set_result(value)

    def run() -> None:
        _IN_BOT.set(True)
        value: Any = None
        error: BaseException | None = None
        try:
            value = function(*args)
        except BaseException as exc:
            error = exc
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
            loop.call_soon_threadsafe(settle, value, error)

    threading.Thread(target=run, name="sparring-python-bot", daemon=True).start()
    return future
