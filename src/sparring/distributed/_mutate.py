"""``sparring mutate --broker``: one mutant per task on the workers.

The original runs here first (the job's run directory is this machine's); each mutant is
then a task: the worker rebuilds it from its id, builds and serves it on its own free
ports, simulates, checks and tears it down, and sends its ``MutantResult`` back; this
process adds it to ``mutation.json`` as it arrives. Workers need no copy of the project:
the project, the job's snapshot of its profiles and rules, ``chatbot.yaml`` and the Rasa
helper are published in the run's Redis by digest once per session (``_bundle``; code
excepted: each worker takes it from its own roots by digest). A mutant whose worker is
lost K times is recorded as ``error`` with the reason; the job goes on.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from celery import Celery

from sparring.distributed._app import MUTATE_ONE, make_app
from sparring.distributed._bundle import ship
from sparring.distributed._cluster import Cluster
from sparring.distributed._code import code_files
from sparring.distributed._coordinator import SENDS_PER_ATTEMPT, _redis_broker
from sparring.distributed._messages import MutantMessage, new_token, sender
from sparring.distributed._state import RunState, connect, run_key
from sparring.mutation import (
    PROJECT_FOLDERS_SKIPPED,
    Mutant,
    MutantResult,
    MutateSettings,
)

POLL_SECONDS = 1.0


class RemoteMutants:
    """The ``run_one`` of a mutate job whose mutants run on a cluster: each call sends
    one task and waits for its result, sending it again (with a fresh delivery token)
    after an ``error``, a refusal or a lost worker (its lease ran out) until it was sent
    K times — a lost delivery counting only if a worker had started it (a reserved one
    lost behind a busy pool process does not), at most ``SENDS_PER_ATTEMPT`` × K sends.
    A ``done`` of any sending of this session answers the mutant (its worker may have
    been taken for lost only because its renewal came late).
    A new session of the run's state (``_state``): tasks of earlier sessions
    are skipped by the workers."""

    def __init__(
        self, app: Celery, cluster: Cluster, state: RunState, out: Path | None = None
    ) -> None:
        self.app = app
        self.cluster = cluster
        self.state = state
        self.out = out
        self._files: dict[str, str] | None = None
        self._broker = _redis_broker(cluster, state)
        self._unheld: dict[str, float] = {}
        self.session = new_token()
        state.open_session(self.session)
        self._waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._tokens: dict[str, str] = {}
        self._poller: asyncio.Task[None] | None = None

    async def __call__(
        self, settings: MutateSettings, mutant: Mutant, false_positives: list[str]
    ) -> MutantResult:
        sent_settings = explicit(settings)
        fields = {
            "run": self.state.key,
            "session": self.session,
            "mutant": mutant.id,
            "settings": sent_settings.model_dump(mode="json"),
            "false_positives": false_positives,
            "max_attempts": self.cluster.max_attempts,
            **sender(),
        }
        sent, limit = 0, self.cluster.max_attempts
        while True:
            sent += 1
            outcome = await self._send(fields)
            if outcome.get("status") == "done":
                result = MutantResult.model_validate(outcome["result"])
                return result.model_copy(
                    update={"run": None, "notes": [*result.notes, _ran_on(outcome, sent)]}
                )
            if outcome.get("status") == "failed" or sent >= SENDS_PER_ATTEMPT * limit:
                break
            counted = sent  # a lost delivery counts only if a worker had started it
            if outcome.get("status") == "lost":
                name = f"{self.session}/{mutant.id}"
                counted = await asyncio.to_thread(self.state.attempts, name)
            if counted >= limit:
                break
        return _error(mutant, str(outcome.get("error") or "no result came back"))

    async def _send(self, fields: dict[str, Any]) -> dict[str, Any]:
        mutant = str(fields["mutant"])
        token = self._tokens[mutant] = new_token()
        if self._files is None:  # once per session, again after the state was lost
            settings = MutateSettings.model_validate(fields["settings"])
            self._files = await asyncio.to_thread(
                ship,
                self.state.client,
                self._sources(settings),
                lambda listings, local: code_files(settings, listings, local),
                {"project": PROJECT_FOLDERS_SKIPPED},
            )
        message = MutantMessage(token=token, files=self._files, **fields)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[dict[str, Any]] = loop.create_future()
        self._waiting[mutant] = future

        def send() -> None:
            self.state.own({f"{self.session}/{mutant}": token})
            payload = message.model_dump(mode="json")
            self.app.send_task(MUTATE_ONE, args=[payload], queue=self.cluster.queue)

        await asyncio.to_thread(send)
        if self._poller is None or self._poller.done():
            self._poller = asyncio.create_task(self._poll())
        return await future

    def _answer(self, mutant: str, outcome: dict[str, Any]) -> None:
        future = self._waiting.pop(mutant, None)
        if future is not None and not future.done():
            future.set_result(outcome)

    async def _poll(self) -> None:
        while self._waiting:
            result = await asyncio.to_thread(self.state.pop_result, POLL_SECONDS)
            if result is not None and self._current(result):
                self._answer(str(result.get("mutant")), result)
            for mutant, outcome in await asyncio.to_thread(self._lost, list(self._waiting)):
                self._answer(mutant, outcome)

    def _current(self, result: dict[str, Any]) -> bool:
        """Whether ``result`` answers the mutant's last sending — or is a ``done`` of an
        earlier one of this session: a live worker whose lease renewal came late (its
        pool process's thread starved of the GIL by the mutant's work) had its delivery
        taken for lost and sent again, then finished it; its result is the mutant's."""
        mutant = str(result.get("mutant"))
        if result.get("token") == self._tokens.get(mutant):
            return True
        return result.get("status") == "done" and result.get("session") == self.session

    def _lost(self, waiting: list[str]) -> list[tuple[str, dict[str, Any]]]:
        """The mutants of ``waiting`` whose worker was lost (its lease ran out) or whose
        state was lost (a Redis restarted without persistence), with why: the caller
        sends them again."""
        if self.state.session() is None:
            self.state.open_session(self.session)
            self._files = None  # the published files went with it
            error = "the run's state in Redis was lost"
            return [(mutant, {"status": "lost", "error": error}) for mutant in waiting]
        lost = []
        for name, token in self.state.lost():
            mutant = name.removeprefix(f"{self.session}/")
            if mutant in waiting and self._tokens.get(mutant) == token:
                lost.append((mutant, {"status": "lost", "error": "its worker was lost"}))
        gone = "its worker was lost before it said it had the mutant"
        lost += [(mutant, {"status": "lost", "error": gone}) for mutant in self._vanished(waiting)]
        return lost

    def _vanished(self, waiting: list[str]) -> list[str]:
        """The mutants of ``waiting`` neither queued nor held by a worker for
        ``lease_seconds`` (a Redis broker): taken by a worker lost before it recorded the
        delivery, left unacknowledged until the broker's visibility timeout."""
        if self._broker is None or self._broker.llen(self.cluster.queue):
            self._unheld.clear()
            return []
        held = {name for name, _ in self.state.holders()}
        now, gone = time.monotonic(), []
        for mutant in waiting:
            if f"{self.session}/{mutant}" in held:
                self._unheld.pop(mutant, None)
            elif now - self._unheld.setdefault(mutant, now) > self.cluster.lease_seconds:
                del self._unheld[mutant]
                gone.append(mutant)
        return gone

    def _sources(self, settings: MutateSettings) -> dict[str, Path]:
        """The file or folder each path setting's content is taken from: the job's
        snapshot of its profiles and rules (what judged the original) where it has one."""
        plan = settings.plan(self.out)
        sources = {"project": settings.project}
        sources |= {f"profiles[{i}]": p for i, p in enumerate(plan.profiles)}
        sources |= {f"rules[{i}]": p for i, p in enumerate(plan.rules)}
        for key in ("chatbot", "rasa_helper"):
            path = getattr(settings, key)
            if path is not None:
                sources[key] = path
        return sources


def explicit(settings: MutateSettings) -> MutateSettings:
    """``settings`` naming the files the builder would find beside the project
    (``chatbot.yaml`` for a served bot, the Rasa helper ``rasa_bot.py``), where they
    exist, so that they are shipped too."""
    beside = settings.project.resolve().parent
    served = settings.kind in ("rasa", "taskyto") or settings.serve_command
    update: dict[str, Path] = {}
    if settings.chatbot is None and served and (beside / "chatbot.yaml").is_file():
        update["chatbot"] = beside / "chatbot.yaml"
    if settings.rasa_helper is None and settings.kind == "rasa":
        helper = beside / "rasa_bot.py"
        if helper.is_file():
            update["rasa_helper"] = helper
    return settings.model_copy(update=update)


def _ran_on(outcome: dict[str, Any], sent: int) -> str:
    attempt = int(outcome.get("attempt") or 1)
    return f"ran on a worker (delivery {attempt}, sent {sent} times); its run folder stayed there"


def _error(mutant: Mutant, reason: str) -> MutantResult:
    return MutantResult(
        id=mutant.id,
        operator=mutant.operator,
        location=mutant.location,
        description=mutant.description,
        diff=mutant.diff,
        status="error",
        reason=reason,
    )


def remote_mutants(cluster: Cluster, out: Path) -> RemoteMutants:
    """The ``run_one`` of the mutate job in ``out`` on ``cluster`` (a new session)."""
    state = RunState(connect(cluster.redis), run_key(out, "mutate"))
    return RemoteMutants(make_app(cluster), cluster, state, out)
