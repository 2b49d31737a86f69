"""``Model``: one async call around a provider, with retries, concurrency, cache and budget.

Order of one attempt: budget check → cache lookup → test guard → concurrency slot →
provider call (timeout, retried with exponential backoff on transient failures) → cache
store → budget add. A schema-bound call that does not validate is tried once more with the
validation errors shown to the model, then raises ``ModelError`` with the raw text kept.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import threading
import time
import weakref
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from tenacity import (
    AsyncRetrying,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential_jitter,
)

from sparring.errors import ModelError
from sparring.llm._cache import ResponseCache, cache_key
from sparring.llm._meter import Meter
from sparring.llm._types import (
    Completion,
    CompletionRequest,
    Generation,
    Messages,
    Provider,
    TransientModelError,
    extract_json,
    model_requests_allowed,
    normalize_messages,
)

SCHEMA_ATTEMPTS = 2
"""A schema-bound reply is asked for at most twice (the first try and one correction)."""

_TRANSIENT = (TransientModelError, TimeoutError, ConnectionError)

_SEMAPHORES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]]
_SEMAPHORES = weakref.WeakKeyDictionary()


def _semaphore(key: str, limit: int) -> asyncio.Semaphore:
    """The slot pool of ``key`` in the running loop (created by the first call with ``limit``)."""
    pools = _SEMAPHORES.setdefault(asyncio.get_running_loop(), {})
    if key not in pools:
        pools[key] = asyncio.Semaphore(limit)
    return pools[key]


@functools.lru_cache(maxsize=256)
def _json_schema(schema: type[BaseModel]) -> dict[str, Any]:
    """A schema class's JSON Schema, built once (building it costs ~3 ms per call)."""
    return schema.model_json_schema()


class Model:
    """A configured model: ``await model.generate(messages, schema=...)``.

    ``name`` is the spec it was built from (``gpt-4o-mini``, ``scripted:x.yaml``, …);
    ``concurrency`` bounds in-flight calls per ``limit_key`` (provider + base URL: models
    sharing it share the bound, set by the first call in an event loop); ``retries`` is
    how many times a transient failure (rate limit, timeout, 5xx, connection) is retried,
    waiting ``backoff`` seconds then doubling (with jitter, at most 60 s); ``timeout``
    is seconds per attempt; ``cache_dir`` turns the on-disk response cache on.
    """

    def __init__(
        self,
        provider: Provider,
        *,
        name: str,
        cache_dir: Path | None = None,
        concurrency: int = 8,
        retries: int = 3,
        timeout: float = 60.0,
        backoff: float = 1.0,
        limit_key: str | None = None,
    ) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1 (got {concurrency})")
        if retries < 0:
            raise ValueError(f"retries cannot be negative (got {retries})")
        self.provider = provider
        self.name = name
        self.cache = ResponseCache(cache_dir) if cache_dir is not None else None
        self.concurrency = concurrency
        self.retries = retries
        self.timeout = timeout
        self.backoff = backoff
        self.limit_key = limit_key or f"{name}|{id(provider)}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

    async def generate(
        self,
        messages: Messages,
        schema: type[BaseModel] | None = None,
        *,
        module: str,
        meter: Meter | None = None,
        temperature: float | None = None,
    ) -> Generation:
        """Send ``messages`` and return the reply as a ``Generation``.

        With ``schema`` (a Pydantic model class) the reply is parsed and validated into
        ``Generation.parsed``; an invalid reply is retried once with the errors shown to
        the model. ``module`` names the caller for the cost breakdown; ``meter`` is
        checked before and charged after every attempt.

        Raises ``BudgetExceeded`` when ``meter`` (or a parent) is spent; ``ModelError``
        when requests are disabled (tests), the provider fails after its retries, or the
        reply never validates (``raw`` = the last reply text).
        """
        chat = normalize_messages(messages)
        schema_json = _json_schema(schema) if schema is not None else None
        total: list[Generation] = []
        for attempt in range(1, SCHEMA_ATTEMPTS + 1):
            gen = await self._attempt(chat, schema_json, schema, module, meter, temperature)
            total.append(gen)
            if schema is None:
                return gen
            try:
                parsed = schema.model_validate_json(extract_json(gen.text))
            except ValidationError as exc:
                problem = _describe(exc)
                if attempt == SCHEMA_ATTEMPTS:
                    raise ModelError(
                        f"{self.name}: reply did not validate against {schema.__name__} after "
                        f"{SCHEMA_ATTEMPTS} attempts: {problem}",
                        raw=gen.text,
                    ) from exc
                chat = [*chat, {"role": "assistant", "content": gen.text}, _correction(problem)]
                continue
            return _combine(total, parsed)
        raise AssertionError("unreachable")  # pragma: no cover

    def generate_sync(
        self,
        messages: Messages,
        schema: type[BaseModel] | None = None,
        *,
        module: str,
        meter: Meter | None = None,
        temperature: float | None = None,
    ) -> Generation:
        """``generate`` for callers outside an event loop; see ``generate_sync``."""
        return run_sync(
            self.generate(messages, schema, module=module, meter=meter, temperature=temperature)
        )

    async def _attempt(
        self,
        chat: list[dict[str, str]],
        schema_json: dict[str, Any] | None,
        schema: type[BaseModel] | None,
        module: str,
        meter: Meter | None,
        temperature: float | None,
    ) -> Generation:
        if meter is not None:
            meter.check()
        key = cache_key(self.name, chat, schema_json, temperature)
        stored = self.cache.get(key) if self.cache is not None else None
        started = time.perf_counter()
        if stored is not None:
            completion, cached = stored.model_copy(update={"cost": 0.0}), True
        else:
            request = CompletionRequest(
                messages=chat,
                json_schema=schema_json,
                schema_name=schema.__name__ if schema is not None else "reply",
                temperature=temperature,
                timeout=self.timeout,
            )
            completion, cached = await self._complete(request), False
            if self.cache is not None:
                self.cache.put(key, completion)
        gen = Generation(
            text=completion.text,
            model=completion.model,
            module=module,
            prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens,
            cost=completion.cost,
            latency=time.perf_counter() - started,
            cached=cached,
        )
        if meter is not None:
            meter.add(gen)
        return gen

    async def _complete(self, request: CompletionRequest) -> Completion:
        """One provider call with the guard, a concurrency slot, a timeout and retries."""
        if not getattr(self.provider, "offline", False) and not model_requests_allowed():
            raise ModelError(
                f"real model requests are disabled in tests (SPARRING_ALLOW_MODEL_REQUESTS=0): "
                f"refused to call {self.name!r}; use a scripted model"
            )
        slots = _semaphore(self.limit_key, self.concurrency)
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.retries + 1),
            wait=wait_exponential_jitter(initial=self.backoff, max=60.0, jitter=self.backoff),
            retry=retry_if_exception_type(_TRANSIENT),
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    async with slots:
                        async with asyncio.timeout(self.timeout):
                            return await self.provider.complete(request)
        except _TRANSIENT as exc:
            reason = "timed out" if isinstance(exc, TimeoutError) else str(exc)
            raise ModelError(
                f"{self.name}: gave up after {self.retries + 1} attempts: {reason}"
            ) from exc
        raise AssertionError("unreachable")  # pragma: no cover


def _describe(exc: ValidationError) -> str:
    """Validation errors in one line: ``loc: message; …``."""
    parts = []
    for error in exc.errors(include_url=False):
        loc = ".".join(str(p) for p in error["loc"]) or "(reply)"
        parts.append(f"{loc}: {error['msg']}")
    return "; ".join(parts)


def _correction(problem: str) -> dict[str, str]:
    return {
        "role": "user",
        "content": (
            f"Your reply did not validate: {problem}. Answer again with only a JSON object "
            "that follows the schema."
        ),
    }


def _combine(attempts: list[Generation], parsed: Any) -> Generation:
    """The last attempt's reply with tokens, cost and latency summed over all attempts."""
    last = attempts[-1]
    return last.model_copy(
        update={
            "parsed": parsed,
            "prompt_tokens": sum(g.prompt_tokens for g in attempts),
            "completion_tokens": sum(g.completion_tokens for g in attempts),
            "cost": sum(g.cost for g in attempts),
            "latency": sum(g.latency for g in attempts),
            "cached": all(g.cached for g in attempts),
        }
    )


T = TypeVar("T")

_LOOP: asyncio.AbstractEventLoop | None = None
_LOOP_LOCK = threading.Lock()


def _background_loop() -> asyncio.AbstractEventLoop:
    """One event loop in a daemon thread, shared by every ``generate_sync`` caller, so
    concurrency limits hold across threads and provider clients stay on one loop."""
    global _LOOP
    with _LOOP_LOCK:
        if _LOOP is None:
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="sparring-llm", daemon=True).start()
            _LOOP = loop
        return _LOOP


def run_sync(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine on the shared background loop and wait for its result.

    Raises ``RuntimeError`` when called from a thread that is running an event loop
    (use ``await`` there instead).
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        coroutine.close()
        raise RuntimeError("generate_sync called inside an event loop: await generate() instead")
    future: concurrent.futures.Future[T] = asyncio.run_coroutine_threadsafe(
        coroutine, _background_loop()
    )
    return future.result()


def generate_sync(
    model: Model,
    messages: Messages,
    schema: type[BaseModel] | None = None,
    *,
    module: str,
    meter: Meter | None = None,
    temperature: float | None = None,
) -> Generation:
    """``model.generate(...)`` for callers outside an event loop (e.g. rule functions in a
    worker thread). Same arguments, result and errors; ``RuntimeError`` inside a loop."""
    return model.generate_sync(
        messages, schema, module=module, meter=meter, temperature=temperature
    )
