"""What a worker does with a message: check it, run the planned conversations of a chunk
(or one mutant), send the outcome back.

A chunk message (``_messages``) carries the run's key, the coordinator's session, the
chunk's name and delivery token, the planned conversations (their specs), the run's
stored settings, K and the digest of the chatbot's configuration — never a secret. The
worker needs no copy of the project: it takes the configuration from its cache or the
run's Redis by digest (``_content``) and fills its ``${NAME}`` references from its own
environment; nothing it reads from the message runs as code — a chatbot whose connector
runs code (``python``) is read from the worker's own files at the path the settings name,
under its roots, and must have the coordinator's digest. A mutant message carries the
settings and the digests of the manifests of the files they name; its worker rebuilds
them in a temporary folder from the run's Redis, code from its own roots (``_bundle``).
Before anything runs the worker parses the message and refuses it (``refused``, with the
reason, in the run's results and the worker's log) when it comes from other code, names
what its operator did not allow, or content it cannot get (``_policy``, ``_content``).
"""

from __future__ import annotations

import functools
import logging
import os
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import redis
from pydantic import ValidationError

from sparring._policy import ExecutionPolicy, scoped
from sparring.connectors import ChatbotConfig, get_connector, load_chatbot_config
from sparring.distributed._bundle import CodeIndex, local_path, manifest, rebuild_files
from sparring.distributed._cluster import Cluster
from sparring.distributed._code import code_files
from sparring.distributed._content import (
    chatbot_content,
    chatbot_from,
    digest_of,
    fetch,
    specs_from,
)
from sparring.distributed._heartbeat import DeliveryLease
from sparring.distributed._messages import ChunkMessage, MutantMessage
from sparring.distributed._policy import Refused, WorkerPolicy, check_sender
from sparring.distributed._state import RunState, connect
from sparring.errors import ConfigError
from sparring.jobs import run_blocking
from sparring.simulate import ConversationSpec, SimulateSettings, run_planned_async

logger = logging.getLogger(__name__)

CONVERSATIONS_VARIABLE = "SPARRING_WORKER_CONVERSATIONS"
"""Conversations one worker process runs at once (set by ``sparring worker``)."""

TEMP_PREFIX = "sparring-mutant-"
S = TypeVar("S")
_local = threading.local()


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
    prepare: Callable[[], S],
    delivery: tuple[str, str],
    base: dict[str, Any],
) -> S | None:
    """What ``prepare()`` makes of the message (its settings parsed and allowed by this
    worker, ``_policy``); ``None`` when refused — the refusal is logged and pushed to the
    run's results."""
    try:
        return prepare()
    except (ValidationError, Refused, ConfigError) as exc:
        kind = "chunk" if isinstance(message, ChunkMessage) else "mutant"
        error = "refused by the worker: " + _refused(kind, exc)
        state.push_result({**base, "status": "refused", "error": error})
        state.let_go(*delivery)
        return None


@dataclass(frozen=True)
class _Chunk:
    settings: SimulateSettings
    chatbot: ChatbotConfig
    specs: list[ConversationSpec]
    policy: ExecutionPolicy


def _prepare_chunk(client: redis.Redis, message: ChunkMessage) -> _Chunk:
    """A chunk message made ready to run: same code as the coordinator, settings parsed
    and allowed, the chatbot's configuration fetched by digest (or, for a connector that
    runs code, read from this worker's own files and checked against the digest), the
    specs parsed. Raises ``Refused``, ``ValidationError`` or ``ConfigError``."""
    check_sender(message.version, message.code)
    settings = _settings(message.settings)
    policy = WorkerPolicy.from_env()
    digest = message.files.get("chatbot")
    if digest is None:
        raise Refused("files.chatbot: the message names no chatbot configuration")
    config = chatbot_from(fetch(client, digest, "chatbot"), settings.chatbot)
    runs_code = get_connector(config.connector).runs_code
    if runs_code:  # code is never taken from a message: the worker's own file, same digest
        policy.check(settings, paths=("chatbot",))
        config = load_chatbot_config(settings.chatbot)
        if digest_of(chatbot_content(config)) != digest:
            raise Refused(
                f"settings.chatbot ({settings.chatbot}): its {config.connector} connector runs "
                "code, read from this worker's copy, which differs from the coordinator's"
            )
    else:
        policy.check(settings, paths=())
    specs = specs_from(message.specs)
    if [spec.id for spec in specs] != message.ids:
        raise Refused("specs: the planned conversations do not match the chunk's ids")
    return _Chunk(settings, config, specs, ExecutionPolicy(run_code=runs_code, roots=policy.roots))


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
    prepare = functools.partial(_prepare_chunk, state.client, message)
    ready = _vet(state, message, prepare, (chunk, token), base)
    if ready is None:
        return "refused"
    if not state.owns(chunk, token):
        state.let_go(chunk, token)
        return "stale"
    if state.is_done(chunk):  # an earlier delivery finished it: say so, or it looks lost
        state.push_result({**base, "status": "duplicate"})
        state.let_go(chunk, token)
        return "duplicate"
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

    lease = DeliveryLease(state, chunk, token, Cluster.from_env().lease_seconds)
    lease.take()
    try:
        with scoped(ready.policy):
            work = run_planned_async(
                ready.settings,
                message.ids,
                specs=ready.specs,
                config=ready.chatbot,
                limiter=state.limiter,
                before_each=before_each,
            )
            records = run_blocking(lease.renewing(work))
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


def mutate_one(payload: Any) -> str:
    """Build, run and judge one mutant (``sparring mutate --broker``) in a temporary
    folder and push its ``MutantResult`` to the run's results; return what happened
    (``done``, ``failed``, ``error``, ``refused``, ``stale``, ``duplicate``: an earlier
    delivery, taken for lost, finished it). The job's files are rebuilt
    in that folder from the run's Redis by digest, code from this worker's own files
    (``_bundle``); the mutant's run folder stays here and is removed, only its result
    travels back. Checked as a chunk is."""
    try:
        message = MutantMessage.model_validate(payload)
    except ValidationError as exc:
        _refused("mutant", exc)
        return "refused"
    name, token = f"{message.session}/{message.mutant}", message.token
    base = {"mutant": message.mutant, "session": message.session, "token": token}
    state = RunState(_client(), message.run)
    # held under this process's lease from the start: rebuilding the project from Redis
    # took longer than the one-shot lease of the received message on a loaded machine
    lease = DeliveryLease(state, name, token, Cluster.from_env().lease_seconds)
    lease.take()
    with lease.renewed_by_thread(), tempfile.TemporaryDirectory(prefix=TEMP_PREFIX) as folder:
        prepare = functools.partial(_prepare_mutant, state.client, message, Path(folder))
        settings = _vet(state, message, prepare, (name, token), base)
        if settings is None:
            return "refused"
        if not state.owns(name, token):
            state.let_go(name, token)
            return "stale"
        if state.is_done(name):  # an earlier delivery, taken for lost, finished it
            state.let_go(name, token)
            return "duplicate"
        return _run_mutant(state, message, settings, Path(folder) / "run", base)


def _run_mutant(
    state: RunState, message: MutantMessage, settings: Any, out: Path, base: dict[str, Any]
) -> str:
    """Run the owned delivery of a mutant (held under its lease by the caller); push and
    return the outcome."""
    from sparring.mutation import run_one_mutant
    from sparring.runner import RUNNER

    name, token = f"{message.session}/{message.mutant}", message.token
    attempt = state.attempt(name)
    if attempt > message.max_attempts:
        error = f"started {attempt} times; its worker was lost on each of the first {attempt - 1}"
        state.push_result({**base, "attempt": attempt, "status": "failed", "error": error})
        state.let_go(name, token)
        return "failed"
    try:  # under the lease mutate_one took, renewed by its thread
        fps = message.false_positives
        mutant = run_one_mutant(settings, message.mutant, fps, out, RUNNER)
        result = run_blocking(mutant)
    except Exception as exc:
        logger.exception("mutant %s failed", message.mutant)
        error = f"{type(exc).__name__}: {exc}"
        state.push_result({**base, "attempt": attempt, "status": "error", "error": error})
        state.let_go(name, token)
        return "error"
    body = result.model_dump(mode="json")
    state.push_result({**base, "attempt": attempt, "status": "done", "result": body})
    state.mark_done(name)
    state.let_go(name, token)
    return "done"


def _prepare_mutant(client: redis.Redis, message: MutantMessage, folder: Path) -> Any:
    """A mutant message's settings, parsed and allowed by this worker, with every file
    they name rebuilt under ``folder`` (``_bundle``: code from this worker's roots, as
    ``_code`` decides on these settings and files) and the paths pointing there.
    Raises ``Refused`` or ``ValidationError``."""
    from sparring.mutation import MutateSettings

    settings = MutateSettings.model_validate(message.settings)
    check_sender(message.version, message.code)
    policy = WorkerPolicy.from_env()
    policy.check(settings, paths=())  # files come by digest: only commands and URLs
    sources: dict[str, Path] = {"project": settings.project}
    sources |= {f"profiles[{i}]": p for i, p in enumerate(settings.profiles)}
    sources |= {f"rules[{i}]": p for i, p in enumerate(settings.rules)}
    sources |= {k: p for k in ("chatbot", "rasa_helper") if (p := getattr(settings, k))}
    missing = sorted(set(sources) - set(message.files))
    if missing:
        raise Refused(f"files.{missing[0]}: the message carries no content for it")
    unknown = sorted(set(message.files) - set(sources))
    if unknown:
        raise Refused(f"files.{unknown[0]}: names no file of the settings")
    targets = {k: local_path(folder / "files", p, k) for k, p in sources.items()}
    manifests = {k: manifest(client, k, message.files[k]) for k in sources}
    rebuild_files(
        client,
        manifests,
        targets,
        sources,
        lambda listings, local: code_files(settings, listings, local),
        CodeIndex.for_roots(policy.roots),
    )
    update: dict[str, Any] = {
        "project": targets["project"],
        "profiles": [targets[f"profiles[{i}]"] for i in range(len(settings.profiles))],
        "rules": [targets[f"rules[{i}]"] for i in range(len(settings.rules))],
        **{k: targets.get(k) for k in ("chatbot", "rasa_helper")},
    }
    return settings.model_copy(update=update)
