"""Retries with backoff on transient failures, timeouts, the concurrency bound."""

from __future__ import annotations

import asyncio
import time

import pytest

from sparring.errors import ModelError
from sparring.llm import Completion, CompletionRequest, Model, TransientModelError

HI = [{"role": "user", "content": "hi"}]


class Flaky:
    """Fails ``failures`` times with ``error``, then answers."""

    offline = True

    def __init__(self, failures: int, error: Exception | None = None) -> None:
        self.failures = failures
        self.error = error or TransientModelError("429 rate limited")
        self.calls = 0
        self.call_times: list[float] = []

    async def complete(self, request: CompletionRequest) -> Completion:
        self.calls += 1
        self.call_times.append(time.perf_counter())
        if self.calls <= self.failures:
            raise self.error
        return Completion(text=f"ok after {self.calls}", model="flaky")


async def test_transient_failures_are_retried_with_growing_waits() -> None:
    provider = Flaky(failures=3)
    model = Model(provider, name="flaky", retries=3, backoff=0.02)
    gen = await model.generate(HI, module="test")
    assert gen.text == "ok after 4"
    gaps = [b - a for a, b in zip(provider.call_times, provider.call_times[1:], strict=False)]
    assert all(gap >= 0.02 for gap in gaps)
    assert gaps[2] >= 0.08  # 0.02 * 2**2: exponential


async def test_gives_up_after_the_retries() -> None:
    provider = Flaky(failures=10)
    model = Model(provider, name="flaky", retries=2, backoff=0.001)
    with pytest.raises(ModelError, match="gave up after 3 attempts: 429 rate limited"):
        await model.generate(HI, module="test")
    assert provider.calls == 3


@pytest.mark.parametrize("error", [ModelError("401 bad key"), ValueError("bug")])
async def test_permanent_failures_are_not_retried(error: Exception) -> None:
    provider = Flaky(failures=1, error=error)
    model = Model(provider, name="flaky", retries=3, backoff=0.001)
    with pytest.raises(type(error)):
        await model.generate(HI, module="test")
    assert provider.calls == 1


async def test_connection_errors_are_transient() -> None:
    provider = Flaky(failures=1, error=ConnectionResetError("reset"))
    model = Model(provider, name="flaky", retries=1, backoff=0.001)
    assert (await model.generate(HI, module="test")).text == "ok after 2"


class Slow:
    offline = True

    def __init__(self, delays: list[float]) -> None:
        self.delays = delays
        self.calls = 0

    async def complete(self, request: CompletionRequest) -> Completion:
        delay = self.delays[min(self.calls, len(self.delays) - 1)]
        self.calls += 1
        await asyncio.sleep(delay)
        return Completion(text="late", model="slow")


async def test_a_timeout_is_retried_then_reported() -> None:
    recovers = Slow([1.0, 0.0])
    model = Model(recovers, name="slow", timeout=0.05, retries=1, backoff=0.001)
    assert (await model.generate(HI, module="test")).text == "late"
    assert recovers.calls == 2
    stuck = Model(Slow([1.0]), name="stuck", timeout=0.05, retries=1, backoff=0.001)
    with pytest.raises(ModelError, match="gave up after 2 attempts: timed out"):
        await stuck.generate(HI, module="test")


class Counting:
    offline = True

    def __init__(self) -> None:
        self.in_flight = 0
        self.peak = 0

    async def complete(self, request: CompletionRequest) -> Completion:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        await asyncio.sleep(0.02)
        self.in_flight -= 1
        return Completion(text=request.messages[-1]["content"], model="counting")


async def test_concurrency_limit_bounds_in_flight_calls() -> None:
    provider = Counting()
    model = Model(provider, name="counting", concurrency=3)
    calls = [
        model.generate([{"role": "user", "content": str(i)}], module="test") for i in range(12)
    ]
    gens = await asyncio.gather(*calls)
    assert [g.text for g in gens] == [str(i) for i in range(12)]
    assert provider.peak == 3


async def test_models_sharing_a_limit_key_share_the_bound() -> None:
    provider = Counting()
    first = Model(provider, name="a", concurrency=2, limit_key="shared-endpoint")
    second = Model(provider, name="b", concurrency=2, limit_key="shared-endpoint")
    await asyncio.gather(*(m.generate(HI, module="test") for m in [first, second] * 4))
    assert provider.peak == 2


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="concurrency"):
        Model(Counting(), name="x", concurrency=0)
    with pytest.raises(ValueError, match="retries"):
        Model(Counting(), name="x", retries=-1)
