"""``gather_bounded``: at most ``limit`` calls at once, results in order, errors raised."""

from __future__ import annotations

import asyncio

import pytest

from sparring.jobs import gather_bounded


async def test_at_most_limit_calls_run_at_once_and_results_keep_their_order() -> None:
    running, most = 0, 0

    async def call(n: int) -> int:
        nonlocal running, most
        running += 1
        most = max(most, running)
        await asyncio.sleep(0.01 * (5 - n % 5))  # later calls finish first
        running -= 1
        return n * n

    assert await gather_bounded((call(n) for n in range(12)), 3) == [n * n for n in range(12)]
    assert most == 3
    assert await gather_bounded([call(1)], 0) == [1]  # a limit below 1 still runs


async def test_the_first_error_propagates() -> None:
    async def fails() -> int:
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        await gather_bounded([fails()], 2)
