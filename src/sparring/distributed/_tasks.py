"""What a worker does with a message: check it, run the planned conversations of a chunk
(or one mutant), send the outcome back.

A message (``_messages``) carries the run's key, the coordinator's session, the chunk's
name and delivery token, the conversation ids, the run's stored settings and K — never a
secret: provider keys and chatbot tokens come from the worker's own environment
when ``chatbot.yaml``'s ``${VAR}`` references are resolved here. Before anything runs the
worker parses the message and its settings and refuses it (``refused``, with the reason,
in the run's results and the worker's log) when the settings name what its operator did
not allow, or when its code or the files differ from the coordinator's (``_policy``).
The worker reads the profiles and ``chatbot.yaml`` at the paths the settings name; it
needs no run directory.
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import redis
from pydantic import ValidationError

from sparring.distributed._cluster import Cluster
from sparring.distributed._messages import ChunkMessage, MutantMessage
from sparring.distributed._policy import Refused, WorkerPolicy, check_identity
from sparring.distributed._state import RunState, connect
from sparring.jobs import run_blocking
from sparring.simulate import ConversationSpec, SimulateSettings, planned_specs, run_planned

logger = logging.getLogger(__name__)

CONVERSATIONS_VARIABLE = "SPARRING_WORKER_CONVERSATIONS"
"""Conversations one worker process runs at once (set by ``sparring worker``)."""

S = TypeVar("S")
_local = threading.local()
_plans: dict[str, list[ConversationSpec]] = {}
_PLANS_KEPT = 4


def _client() -> redis.Redis:
    """This process's Redis client (made after the pool forked)."""
    client: redis.Redis | None = getattr(_local, "client", None)
    if client is None or getattr(_local, "pid", None) != os.getpid():
        client = connect(Cluster.from_env().redis)
        _local.client, _local.pid = client, os.getpid()
    return client


def _refused(kind: str, exc: Exception) -> str:
    """Log why a message is refused; the reason (one line)."""
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        more = exc.error_count() - 1
        reason = f"{where}: {first['msg']}" + (f" (and {more} more)" if more else "")
    else:
        reason = str(exc)
    logger.error("refused a %s message: %s", kind, reason)
    return reason


def _vet(
    state: RunState,
    message: ChunkMessage | MutantMessage,
    parse: Callable[[dict[str, Any]], S],
    delivery: tuple[str, str],
    base: dict[str, Any],
) -> S | None:
    """The message's settings, parsed and allowed by this worker (``_policy``); ``None``
    when refused — the refusal is logged and pushed to the run's results."""
    try:
        settings = parse(message.settings)
        WorkerPolicy.from_env().check(settings)
        check_identity(message.version, message.code, message.files, settings)
    except (ValidationError, Refused) as exc:
        kind = "chunk" if isinstance(message, ChunkMessage) else "mutant"
        error = "refused by the worker: " + _refused(kind, exc)
        state.push_result({**base, "status": "refused", "error": error})
        state.let_go(*delivery)
        return None
    return settings


def simulate_chunk(payload: Any) -> str:
    """Run one chunk (see the module docstring) and push its outcome to the run's
    results; return what happened (``done``, ``failed``, ``error``, ``refused``,
    ``stale``, ``duplicate``). A delivery that does not own its chunk (sent again since,
    or of an older coordinator session) and a chunk that finished already are skipped;
    a chunk started more than K times is reported ``failed``."""
    try:
        message = ChunkMessage.model_validate(payload)
    except ValidationError as exc:
        _refused("chunk", exc)
        return "refused"
    chunk, token = message.chunk, message.token
    base = {"chunk": chunk, "session": message.session, "token": token, "ids": message.ids}
    state = RunState(_client(), message.run)
    settings = _vet(state, message, _settings, (chunk, token), base)
    if settings is None:
        return "refused"
    if not state.owns(chunk, token) or state.is_done(chunk):
        state.let_go(chunk, token)
        return "stale" if not state.owns(chunk, token) else "duplicate"
    attempt = state.attempt(chunk)
    if attempt > message.max_attempts:
        error = f"started {attempt} times; its worker was lost on each of the first {attempt - 1}"
        state.push_result({**base, "attempt": attempt, "status": "failed", "error": error})
        state.mark_done(chunk)
        state.let_go(chunk, token)
        return "failed"
    re_executed: list[str] = []
    stopped: list[str] = []

    def before_each(spec: ConversationSpec) -> bool:
        if not state.owns(chunk, token):
            stopped.append(spec.id)
            return False
        if state.started(spec.id) > 1:
            re_executed.append(spec.id)
        return True

    try:
        records = run_planned(
            settings,
            message.ids,
            specs=_planned(settings),
            limiter=state.limiter,
            before_each=before_each,
        )
    except Exception as exc:
        logger.exception("chunk %s failed", chunk)
        error = f"{type(exc).__name__}: {exc}"
        state.push_result({**base, "attempt": attempt, "status": "error", "error": error})
        state.let_go(chunk, token)
        return "error"
    state.push_result(
        {
            **base,
            "attempt": attempt,
            "status": "stopped" if stopped else "done",
            "records": [r.model_dump(mode="json") for r in records],
            "re_executed": re_executed,
        }
    )
    if not stopped:
        state.mark_done(chunk)
    state.let_go(chunk, token)
    return "stopped" if stopped else "done"


def _settings(stored: dict[str, Any]) -> SimulateSettings:
    """The run's settings with this worker's concurrency and no probe."""
    settings = SimulateSettings.model_validate(stored)
    concurrency = int(os.environ.get(CONVERSATIONS_VARIABLE) or settings.concurrency)
    return settings.model_copy(update={"concurrency": concurrency, "probe": False})


def _planned(settings: SimulateSettings) -> list[ConversationSpec]:
    """The run's planned specs, planned once per process and settings."""
    key = settings.model_copy(update={"concurrency": 1}).model_dump_json()
    specs = _plans.get(key)
    if specs is None:
        specs = run_blocking(planned_specs(settings))
        if len(_plans) >= _PLANS_KEPT:
            _plans.pop(next(iter(_plans)))
        _plans[key] = specs
    return specs


def mutate_one(payload: Any) -> str:
    """Build, run and judge one mutant (``sparring mutate --broker``) in a temporary
    folder and push its ``MutantResult`` to the run's results; return what happened
    (``done``, ``failed``, ``error``, ``refused``, ``stale``). The mutant's own run folder
    stays here and is removed; only its result travels back. Checked as a chunk is."""
    from sparring.mutation import MutateSettings, run_one_mutant

    try:
        message = MutantMessage.model_validate(payload)
    except ValidationError as exc:
        _refused("mutant", exc)
        return "refused"
    name, token = f"{message.session}/{message.mutant}", message.token
    base = {"mutant": message.mutant, "session": message.session, "token": token}
    state = RunState(_client(), message.run)
    settings = _vet(state, message, MutateSettings.model_validate, (name, token), base)
    if settings is None:
        return "refused"
    if not state.owns(name, token):
        state.let_go(name, token)
        return "stale"
    attempt = state.attempt(name)
    if attempt > message.max_attempts:
        error = f"started {attempt} times; its worker was lost on each of the first {attempt - 1}"
        state.push_result({**base, "attempt": attempt, "status": "failed", "error": error})
        state.let_go(name, token)
        return "failed"
    try:
        with tempfile.TemporaryDirectory(prefix="sparring-mutant-") as folder:
            result = run_blocking(
                run_one_mutant(settings, message.mutant, message.false_positives, Path(folder))
            )
    except Exception as exc:
        logger.exception("mutant %s failed", message.mutant)
        error = f"{type(exc).__name__}: {exc}"
        state.push_result({**base, "attempt": attempt, "status": "error", "error": error})
        state.let_go(name, token)
        return "error"
    body = result.model_dump(mode="json")
    state.push_result({**base, "attempt": attempt, "status": "done", "result": body})
    state.let_go(name, token)
    return "done"
