"""The on-disk cache and cost budgets (run and conversation meters)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel

from sparring.errors import BudgetExceeded
from sparring.llm import Generation, Meter, ScriptedModel

HI = [{"role": "user", "content": "hi there"}]


class Size(BaseModel):
    size: str


async def test_cache_replays_exactly_and_costs_nothing(tmp_path: Path) -> None:
    live = ScriptedModel(["not json", '{"size": "big"}'], cost_per_call=0.1, cache_dir=tmp_path)
    first = await live.generate(HI, schema=Size, temperature=0.3, module="test")
    assert not first.cached and first.cost == pytest.approx(0.2)
    # a fresh model whose script would answer differently: the cache decides
    replay = ScriptedModel(["other"], cost_per_call=0.1, cache_dir=tmp_path)
    meter = Meter()
    second = await replay.generate(HI, schema=Size, temperature=0.3, meter=meter, module="test")
    assert second.cached and second.cost == 0.0 and meter.spent == 0.0
    assert (second.text, second.parsed) == (first.text, first.parsed)
    assert (second.prompt_tokens, second.completion_tokens) == (
        first.prompt_tokens,
        first.completion_tokens,
    )
    assert replay.requests == []
    assert not list(tmp_path.rglob(".tmp-*"))


async def test_cache_key_covers_temperature_schema_and_messages(tmp_path: Path) -> None:
    model = ScriptedModel(['{"size": "a"}'] * 4, cache_dir=tmp_path)
    await model.generate(HI, temperature=0.0, module="test")
    await model.generate(HI, temperature=0.7, module="test")
    await model.generate(HI, temperature=0.0, schema=Size, module="test")
    await model.generate([{"role": "user", "content": "other"}], temperature=0.0, module="test")
    assert len(model.requests) == 4
    assert len(list(tmp_path.rglob("*.json"))) == 4


async def test_corrupt_cache_entry_is_a_miss_and_is_rewritten(tmp_path: Path) -> None:
    await ScriptedModel(["one"], cache_dir=tmp_path).generate(HI, module="test")
    (entry,) = tmp_path.rglob("*.json")
    entry.write_text("{half", encoding="utf-8")
    again = ScriptedModel(["two"], cache_dir=tmp_path)
    assert (await again.generate(HI, module="test")).text == "two"
    assert "two" in entry.read_text(encoding="utf-8")


async def test_no_cache_without_cache_dir(tmp_path: Path) -> None:
    model = ScriptedModel(["a", "b"])
    assert [(await model.generate(HI, module="test")).text for _ in range(2)] == ["a", "b"]


def _gen(cost: float, module: str = "user_simulator") -> Generation:
    return Generation(
        text="x", model="m", module=module, prompt_tokens=3, completion_tokens=2, cost=cost
    )


def test_meter_sums_usage_by_module_into_parents() -> None:
    run = Meter()
    conversation = run.conversation()
    conversation.add(_gen(0.1))
    conversation.add(_gen(0.2, module="checker"))
    conversation.add(_gen(0.3))
    for meter in (run, conversation):
        assert meter.spent == pytest.approx(0.6)
        assert meter.usage["user_simulator"].calls == 2
        assert meter.usage["user_simulator"].prompt_tokens == 6
        assert meter.usage["checker"].completion_tokens == 2


async def test_conversation_budget_is_per_conversation_run_budget_accumulates() -> None:
    model = ScriptedModel(["r"], exhausted="cycle", cost_per_call=0.4)
    run = Meter(limit=2.3, scope="run")
    spent_per_conversation = []
    for _ in range(3):
        conversation = run.conversation(limit=0.5)
        await model.generate(HI, meter=conversation, module="test")
        await model.generate(HI, meter=conversation, module="test")  # 0.4 < 0.5: allowed
        with pytest.raises(BudgetExceeded) as caught:
            await model.generate(HI, meter=conversation, module="test")  # 0.8 >= 0.5
        assert (caught.value.scope, caught.value.code) == ("conversation", 2001)
        spent_per_conversation.append(conversation.spent)
    assert spent_per_conversation == pytest.approx([0.8, 0.8, 0.8])
    assert run.spent == pytest.approx(2.4)
    calls_before = len(model.requests)
    with pytest.raises(BudgetExceeded) as caught:
        await model.generate(HI, meter=run.conversation(limit=0.5), module="test")
    assert (caught.value.scope, caught.value.code) == ("run", 2000)
    assert len(model.requests) == calls_before  # checked BEFORE the call


def test_meter_refuses_bad_settings() -> None:
    with pytest.raises(ValueError):
        Meter(limit=-1)
    with pytest.raises(ValueError):
        Meter(scope="turn")  # type: ignore[arg-type]
    Meter(limit=0.0)  # a zero budget is legal: it forbids every call
    with pytest.raises(BudgetExceeded):
        Meter(limit=0.0).check()
