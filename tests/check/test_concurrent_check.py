"""Model-backed rules are checked on many conversations at once, within the model's
concurrency, and give the same verdicts, in the same order, as one at a time."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from check_builders import record, rule_set
from pydantic import BaseModel

from sparring.check import check, check_async
from sparring.llm import Generation


class CountingModel:
    """A ``TextModel`` that answers on-topic unless the conversation mentions football,
    counting how many calls are in flight at once."""

    name = "counting"

    def __init__(self, concurrency: int) -> None:
        self.concurrency = concurrency
        self.in_flight = 0
        self.most = 0
        self.calls = 0

    async def generate(
        self,
        messages: Sequence[Mapping[str, str]],
        schema: type[BaseModel] | None = None,
        *,
        module: str,
    ) -> Generation:
        assert module == "check"
        self.calls += 1
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        try:
            await asyncio.sleep(0.02)
        finally:
            self.in_flight -= 1
        on_topic = "football" not in messages[-1]["content"]
        text = json.dumps({"sticks_to_topics": on_topic, "deviating_answers": []})
        parsed = schema.model_validate_json(text) if schema is not None else None
        return Generation(text=text, model=self.name, module=module, parsed=parsed, cost=0.001)


RULE = """
name: on_topic
oracle: only_talks_about(['pizza'])
"""


def _records(n: int) -> list[Any]:
    return [
        record(
            f"c{i}",
            turns=(("user", "hi"), ("assistant", "football!" if i % 3 == 0 else "pizza?")),
        )
        for i in range(n)
    ]


def test_model_calls_overlap_within_the_models_concurrency(tmp_path: Path) -> None:
    model = CountingModel(concurrency=5)
    records = _records(30)
    report = check(rule_set(tmp_path, RULE), records, model=model)
    result = report.result("on_topic")
    assert model.calls == 30
    assert 1 < model.most <= 5
    assert [v.conversations[0] for v in result.verdicts] == [r.id for r in records]
    assert [v.status for v in result.verdicts] == [
        "fail" if i % 3 == 0 else "pass" for i in range(30)
    ]
    assert all(v.strategy == "llm" and v.cost == 0.001 for v in result.verdicts)
    assert report.model == "counting"


def test_concurrency_one_is_sequential_and_agrees(tmp_path: Path) -> None:
    wide, narrow = CountingModel(concurrency=8), CountingModel(concurrency=1)
    records = _records(12)
    rules = rule_set(tmp_path, RULE)
    many = check(rules, records, model=wide)
    one = check(rules, records, model=narrow)
    assert narrow.most == 1 and wide.most > 1
    statuses = [v.status for v in many.result("on_topic").verdicts]
    assert statuses == [v.status for v in one.result("on_topic").verdicts]


async def test_check_inside_a_running_loop(tmp_path: Path) -> None:
    model = CountingModel(concurrency=4)
    rules = rule_set(tmp_path, RULE)
    awaited = await check_async(rules, _records(6), model=model)
    blocking = check(rules, _records(6), model=model)
    assert awaited.result("on_topic").counts.fail == 2
    assert blocking.result("on_topic").counts.fail == 2
