"""Schema-bound calls: parse, correct once, then fail loudly with the raw text."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from sparring.errors import ModelError
from sparring.llm import Meter, ScriptedModel

ASK = [{"role": "user", "content": "which pizza?"}]


class Order(BaseModel):
    size: str
    count: int


async def test_valid_reply_is_parsed() -> None:
    model = ScriptedModel([{"size": "small", "count": 2}])
    gen = await model.generate(ASK, schema=Order, module="test")
    assert gen.parsed == Order(size="small", count=2)


async def test_json_inside_prose_or_fence_is_found() -> None:
    model = ScriptedModel(
        [
            'Sure! ```json\n{"size": "big", "count": 1}\n``` hope it helps',
            'ok {"size": "s", "count": 3}.',
        ]
    )
    assert (await model.generate(ASK, schema=Order, module="test")).parsed == Order(
        size="big", count=1
    )
    assert (await model.generate(ASK, schema=Order, module="test")).parsed == Order(
        size="s", count=3
    )


async def test_invalid_reply_is_retried_with_the_errors_shown() -> None:
    meter = Meter()
    model = ScriptedModel(
        ['{"size": "small", "count": "many"}', '{"size": "small", "count": 4}'],
        cost_per_call=0.01,
    )
    gen = await model.generate(ASK, schema=Order, module="extractor", meter=meter)
    assert gen.parsed == Order(size="small", count=4)
    second = model.requests[1]
    assert second[:1] == ASK
    assert second[1] == {"role": "assistant", "content": '{"size": "small", "count": "many"}'}
    assert second[2]["role"] == "user" and "count" in second[2]["content"]
    # both attempts are paid for and counted
    assert gen.cost == pytest.approx(0.02)
    assert meter.usage["extractor"].calls == 2
    assert meter.spent == pytest.approx(0.02)


async def test_reply_that_never_validates_raises_with_raw_text() -> None:
    meter = Meter()
    model = ScriptedModel(["not json at all", '{"size": "small"}'], cost_per_call=0.5)
    with pytest.raises(ModelError) as caught:
        await model.generate(ASK, schema=Order, meter=meter, module="test")
    assert caught.value.raw == '{"size": "small"}'
    assert "Order" in str(caught.value) and "count" in str(caught.value)
    assert len(model.requests) == 2
    assert meter.spent == pytest.approx(1.0)


async def test_free_text_call_has_no_parsed_value() -> None:
    gen = await ScriptedModel(["{not json"]).generate(ASK, module="test")
    assert gen.text == "{not json" and gen.parsed is None


def test_a_fence_inside_a_json_string_is_not_taken_for_the_reply() -> None:
    from sparring.llm._types import extract_json

    reply = '{"yaml": "```yaml\\nname: x\\n```", "ok": true}'
    assert extract_json(reply) == reply
    assert extract_json('Sure:\n```json\n{"a": 1}\n```') == '{"a": 1}'
    assert extract_json('Here it is: {"a": [1, 2]} hope it helps') == '{"a": [1, 2]}'
