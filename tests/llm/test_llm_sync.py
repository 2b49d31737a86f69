"""The sync wrapper: same call from a worker thread, refused inside a loop."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest
from pydantic import BaseModel

from sparring.errors import ModelError
from sparring.llm import Meter, ScriptedModel, generate_sync

HI = [{"role": "user", "content": "hi"}]


class Flag(BaseModel):
    ok: bool


def test_generate_sync_from_worker_threads_shares_meter_and_validates() -> None:
    model = ScriptedModel(lambda messages: '{"ok": true}', cost_per_call=0.5)
    meter = Meter()
    with ThreadPoolExecutor(max_workers=4) as pool:
        gens = list(
            pool.map(
                lambda _: generate_sync(model, HI, schema=Flag, meter=meter, module="test"),
                range(8),
            )
        )
    assert all(g.parsed == Flag(ok=True) for g in gens)
    assert meter.usage["test"].calls == 8
    assert meter.spent == pytest.approx(4.0)


def test_generate_sync_raises_the_same_errors() -> None:
    model = ScriptedModel(["nope", "still nope"])
    with pytest.raises(ModelError) as caught:
        model.generate_sync(HI, schema=Flag, module="test")
    assert caught.value.raw == "still nope"


async def test_generate_sync_inside_a_loop_is_refused() -> None:
    model = ScriptedModel(["x"])
    with pytest.raises(RuntimeError, match="await generate"):
        generate_sync(model, HI, module="test")
    assert model.requests == []
    await asyncio.sleep(0)
