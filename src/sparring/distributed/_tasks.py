"""What a worker does with a chunk: run the planned conversations it names, send their
records back.

A chunk message carries the run's key, the coordinator's session (epoch), the chunk's
name, the conversation ids, the run's stored settings and K — never a secret: provider
keys and chatbot tokens come from the worker's own environment when ``chatbot.yaml``'s
``${VAR}`` references are resolved here. The worker reads the profiles and
``chatbot.yaml`` at the paths the settings name (a checkout of the test project at the
same path); it needs no run directory.
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
from pathlib import Path
from typing import Any

import redis

from sparring.distributed._cluster import Cluster
from sparring.distributed._state import RunState, connect
from sparring.jobs import run_blocking
from sparring.simulate import ConversationSpec, SimulateSettings, planned_specs, run_planned

logger = logging.getLogger(__name__)

CONVERSATIONS_VARIABLE = "SPARRING_WORKER_CONVERSATIONS"
"""Conversations one worker process runs at once (set by ``sparring worker``)."""

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


def simulate_chunk(payload: dict[str, Any]) -> str:
    """Run one chunk (see the module docstring) and push its outcome to the run's
    results; return what happened (``done``, ``failed``, ``error``, ``stale``,
    ``duplicate``). A chunk of an older coordinator session, or one that finished
    already, is skipped; one delivered more than K times is reported ``failed``."""
    state = RunState(_client(), payload["run"])
    chunk, epoch = str(payload["chunk"]), int(payload["epoch"])
    base = {"chunk": chunk, "epoch": epoch, "ids": payload["ids"]}
    if state.epoch() != epoch:
        return "stale"
    if state.is_done(chunk):
        return "duplicate"
    attempt = state.attempt(chunk)
    if attempt > int(payload["max_attempts"]):
        error = f"delivered {attempt} times; its worker was lost on each of the first {attempt - 1}"
        state.push_result({**base, "attempt": attempt, "status": "failed", "error": error})
        state.mark_done(chunk)
        return "failed"
    re_executed: list[str] = []

    def before_each(spec: ConversationSpec) -> bool:
        if state.epoch() != epoch:
            return False
        if state.started(spec.id) > 1:
            re_executed.append(spec.id)
        return True

    try:
        settings = _settings(payload["settings"])
        records = run_planned(
            settings,
            payload["ids"],
            specs=_planned(settings),
            limiter=state.limiter,
            before_each=before_each,
        )
    except Exception as exc:
        logger.exception("chunk %s failed", chunk)
        error = f"{type(exc).__name__}: {exc}"
        state.push_result({**base, "attempt": attempt, "status": "error", "error": error})
        return "error"
    state.push_result(
        {
            **base,
            "attempt": attempt,
            "status": "done",
            "records": [r.model_dump(mode="json") for r in records],
            "re_executed": re_executed,
        }
    )
    state.mark_done(chunk)
    return "done"


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


def mutate_one(payload: dict[str, Any]) -> str:
    """Build, run and judge one mutant (``sparring mutate --broker``) in a temporary
    folder and push its ``MutantResult`` to the run's results; return what happened
    (``done``, ``failed``, ``error``, ``stale``). The mutant's own run folder stays here
    and is removed; only its result travels back."""
    from sparring.mutation import MutateSettings, run_one_mutant

    state = RunState(_client(), payload["run"])
    mutant, epoch = str(payload["mutant"]), int(payload["epoch"])
    base = {"mutant": mutant, "epoch": epoch}
    if state.epoch() != epoch:
        return "stale"
    attempt = state.attempt(mutant)
    if attempt > int(payload["max_attempts"]):
        error = f"delivered {attempt} times; its worker was lost on each of the first {attempt - 1}"
        state.push_result({**base, "attempt": attempt, "status": "failed", "error": error})
        return "failed"
    try:
        settings = MutateSettings.model_validate(payload["settings"])
        with tempfile.TemporaryDirectory(prefix="sparring-mutant-") as folder:
            result = run_blocking(
                run_one_mutant(settings, mutant, list(payload["false_positives"]), Path(folder))
            )
    except Exception as exc:
        logger.exception("mutant %s failed", mutant)
        error = f"{type(exc).__name__}: {exc}"
        state.push_result({**base, "attempt": attempt, "status": "error", "error": error})
        return "error"
    body = result.model_dump(mode="json")
    state.push_result({**base, "attempt": attempt, "status": "done", "result": body})
    return "done"
