"""The lease of a delivery (``sparring.distributed._heartbeat.DeliveryLease``): renewed by
the chunk's own event loop, so a loop that stops turning lets it run out and the
coordinator sends the delivery again; held under a one-shot lease until a pool process
takes it. A frozen worker is tried on real processes in
``tests/integration/test_distributed_faults.py``."""

from __future__ import annotations

import asyncio
import time

import pytest

pytest.importorskip("celery")

import redis

from sparring.distributed._heartbeat import DeliveryLease
from sparring.distributed._state import RunState, node_key

SECONDS = 0.6


def _lease(client: redis.Redis, run: str) -> tuple[RunState, DeliveryLease]:
    state = RunState(client, run)
    state.open_session("s1")
    lease = DeliveryLease(state, "s1-c0", "t1", SECONDS)
    lease.take()
    return state, lease


def test_a_turning_event_loop_keeps_its_delivery(client: redis.Redis) -> None:
    state, lease = _lease(client, "turning")

    async def work() -> list[tuple[str, str]]:
        await asyncio.sleep(4 * SECONDS)  # conversations awaiting the bot
        return state.lost()

    assert asyncio.run(lease.renewing(work())) == []
    assert state.holders() == {("s1-c0", "t1"): lease.lease}


def test_a_blocked_event_loop_loses_its_delivery(client: redis.Redis) -> None:
    """A call that blocks the loop (never awaiting) stops the renewals: the lease runs out
    and the coordinator's ``lost()`` hands the delivery back."""
    state, lease = _lease(client, "blocked")

    async def work() -> list[tuple[str, str]]:
        await asyncio.sleep(0)
        time.sleep(3 * SECONDS)  # the loop does not turn
        return state.lost()

    assert asyncio.run(lease.renewing(work())) == [("s1-c0", "t1")]
    assert not client.exists(node_key(lease.lease))


def test_a_thread_renews_a_blocking_mutant(client: redis.Redis) -> None:
    """A mutant's build and serve steps block: its lease is renewed by a thread."""
    state, lease = _lease(client, "mutant")
    with lease.renewed_by_thread():
        time.sleep(4 * SECONDS)
        assert state.lost() == []
    time.sleep(2 * SECONDS)  # the block ended: no more renewals
    assert state.lost() == [("s1-c0", "t1")]
