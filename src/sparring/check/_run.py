"""Driving a rule set over a conversation set: ``check`` and its async core ``check_async``.

Offline, every rule is evaluated in the calling thread (the sandbox is pure Python; threads
would only add switching). With a model configured, the conversations of a rule are
evaluated in a pool of ``model.concurrency`` threads at once, and every model call they make
runs on this driver's event loop (``FunctionContext.wait``), so many calls are in flight
together within the provider's own bound instead of one blocking call after another. Rules
are checked one after another, in file order, so progress and reports keep that order.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

from sparring.check._engine import Runner, rule_result
from sparring.check._flaky import repeat_figures
from sparring.check._names import indexed_scalars, undefined_names
from sparring.check._rules import Rule, RuleSet, known_functions
from sparring.check._safety import DEFAULT_LIMITS, Limits
from sparring.check._tuples import run_tuples
from sparring.check._verdicts import CheckReport, RuleResult
from sparring.connectors import ChatbotInfo
from sparring.conversations import ConversationRecord
from sparring.errors import ConfigError
from sparring.jobs import run_blocking
from sparring.types import TextModel

T = TypeVar("T")


async def check_async(
    rule_set: RuleSet,
    records: Sequence[ConversationRecord],
    *,
    model: TextModel | None = None,
    limits: Limits = DEFAULT_LIMITS,
    source: str | None = None,
    progress: Callable[[RuleResult], None] | None = None,
    chatbot: ChatbotInfo | None = None,
    defined: frozenset[str] | None = None,
    stop: Callable[[], bool] | None = None,
) -> CheckReport:
    """Check every active rule of ``rule_set`` on ``records``; see ``check``. Once
    ``stop()`` is true no further rule is checked (the report holds those checked)."""
    started = time.perf_counter()
    known_functions()
    loop = asyncio.get_running_loop()
    runner = Runner(records, model=model, limits=limits, wait=_waiter(loop), chatbot=chatbot)
    warnings = check_names(rule_set, runner, defined)
    report = CheckReport(
        created_at=datetime.now(UTC),
        rule_files=list(rule_set.files),
        ruleset=rule_set.digest,
        source=source,
        conversations=runner.ids,
        model=model.name if model is not None else None,
        warnings=warnings,
    )
    workers = model.concurrency if model is not None else 0
    pool = concurrent.futures.ThreadPoolExecutor(workers, "sparring-check") if workers else None
    try:
        for rule in rule_set.active:
            if stop is not None and stop():
                break
            rule_started = time.perf_counter()
            result = await _run_rule(runner, rule, pool)
            result.duration = time.perf_counter() - rule_started
            report.results.append(result)
            if progress is not None:
                progress(result)
    finally:
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
    report.generic = runner.run_generic()
    report.repeats = repeat_figures([*report.results, *report.generic], runner.records)
    report.duration = time.perf_counter() - started
    return report


async def _run_rule(
    runner: Runner, rule: Rule, pool: concurrent.futures.Executor | None
) -> RuleResult:
    """One rule: its conversations in ``pool`` at once (single rules), or the whole rule in
    one pool thread (global and metamorphic rules); inline without a pool."""
    loop = asyncio.get_running_loop()
    if rule.kind == "single":
        indices = range(len(runner.records))
        if pool is None:
            verdicts = [runner.single(rule, i) for i in indices]
        else:
            calls = [loop.run_in_executor(pool, runner.single, rule, i) for i in indices]
            verdicts = list(await asyncio.gather(*calls))
        result = rule_result(rule)
        for verdict in verdicts:
            result.verdicts.append(verdict)
            result.counts.add(verdict.status)
        return result
    whole = runner.run_global if rule.kind == "global" else _tuples_of(runner)
    if pool is None:
        return whole(rule)
    return await loop.run_in_executor(pool, whole, rule)


def check_names(rule_set: RuleSet, runner: Runner, defined: frozenset[str] | None) -> list[str]:
    """Raise ``ConfigError`` for misplaced names; return a warning per name no conversation
    of this check defines (see ``_names``), saying "no profile defines it" (with the closest
    name the profiles define) where ``defined`` lacks it too.

    A name no profile defines makes the rules reading it *not applicable*, as SENSEI-check
    counts them (a SENSEI rule for an output whose profile line was commented out), never an
    error that stops the check; ``sparring validate RULES PROFILES`` reports it as an error.
    """
    if not runner.records:
        return []
    known = runner.namespaces.known_names()
    structural, undefined = undefined_names(rule_set.active, known)
    if structural:
        raise ConfigError(structural)
    if defined is not None:
        _, typos = undefined_names(rule_set.active, defined | known, "no profile defines it")
        undefined = {**undefined, **typos}
    return [
        f"{problems[0]}: the rules reading it are not applicable on this run"
        for problems in undefined.values()
    ] + indexed_scalars(rule_set.active, runner.records)


def _tuples_of(runner: Runner) -> Callable[[Rule], RuleResult]:
    return lambda rule: run_tuples(runner, rule)


def _waiter(loop: asyncio.AbstractEventLoop) -> Callable[[Awaitable[Any]], Any]:
    """``wait(coroutine)`` for pool threads: run it on ``loop`` and block for its result."""

    def wait(awaitable: Awaitable[T]) -> T:
        return asyncio.run_coroutine_threadsafe(_as_coroutine(awaitable), loop).result()

    return wait


async def _as_coroutine(awaitable: Awaitable[T]) -> T:
    return await awaitable


def check(
    rule_set: RuleSet,
    records: Sequence[ConversationRecord],
    *,
    model: TextModel | None = None,
    limits: Limits = DEFAULT_LIMITS,
    source: str | None = None,
    progress: Callable[[RuleResult], None] | None = None,
    chatbot: ChatbotInfo | None = None,
    defined: frozenset[str] | None = None,
) -> CheckReport:
    """Check every active rule of ``rule_set`` on ``records`` (SENSEI-check's semantics).

    ``model`` serves model-backed functions (``None``: offline strategies, else
    ``unscored``); with one, each rule's conversations are checked concurrently within
    ``model.concurrency``; ``chatbot`` is chatbot.yaml's ``info``, which rules read as
    ``chatbot`` (``run_chatbot_info`` reads it from a run directory). A variable that no
    conversation of ``records`` defines makes the rules reading it not applicable there (a
    warning in ``report.warnings``); ``defined`` (the names the run's profiles define,
    ``_names.profile_names``) turns a name outside it into an error. Raises
    ``ConfigError`` before evaluating anything for those, and for a conversation's
    variable read as a plain name in a rule over several conversations. ``progress`` is
    called after each rule. The
    synchronous face of ``check_async``; usable inside a running event loop too (it then
    runs in a helper thread).
    """
    return run_blocking(
        check_async(
            rule_set,
            records,
            model=model,
            limits=limits,
            source=source,
            progress=progress,
            chatbot=chatbot,
            defined=defined,
        )
    )
