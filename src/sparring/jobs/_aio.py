"""The one sync wrapper over an async job, and bounded gathering."""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Awaitable, Coroutine, Iterable
from typing import Any, TypeVar

T = TypeVar("T")


def run_blocking(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` to completion from synchronous code — the one sync wrapper every
    job offers beside its async core. Inside a running event loop it runs in a helper
    thread with its own loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _run_in_new_loop(coroutine)
    with concurrent.futures.ThreadPoolExecutor(1) as helper:
        return helper.submit(_run_in_new_loop, coroutine).result()


def _run_in_new_loop(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` without its SIGINT handler, whose installation on Python 3.11 formats
    the main task's repr — every argument of the job, 0.2 s for 1,000 records (Ctrl-C still
    raises ``KeyboardInterrupt``)."""
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(coroutine)
    finally:
        try:
            pending = asyncio.all_tasks(loop)
            for task in pending:
                task.cancel()
            if pending:
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            loop.close()


async def gather_bounded(calls: Iterable[Awaitable[T]], limit: int) -> list[T]:
    """Await ``calls`` with at most ``limit`` (at least 1) running at once; the results in
    the order of ``calls``. The first exception propagates, as with ``asyncio.gather``."""
    gate = asyncio.Semaphore(max(1, limit))

    async def run(call: Awaitable[T]) -> T:
        async with gate:
            return await call

    return list(await asyncio.gather(*(run(c) for c in calls)))
