"""is_unique, exists and num_exist over the conversations of a global rule."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest

from sparring.check import Unscored
from sparring.check._context import FunctionContext
from sparring.check.functions import exists, extract_float, is_unique, num_exist
from sparring.conversations import ConversationRecord
from sparring.errors import SparringError

Make = Callable[..., ConversationRecord]


def names(record: ConversationRecord) -> Mapping[str, Any]:
    out: dict[str, Any] = dict(record.variables)
    out.update({k: v.value for k, v in record.outputs.items()})
    return out


def evaluate(expression: str, record: ConversationRecord) -> Any:
    """A stand-in for the rule evaluator: plain eval over the record's names."""
    bound = {"extract_float": lambda s: extract_float(FunctionContext(record), s)}
    return eval(expression, {"__builtins__": {}}, {**names(record), **bound})


@pytest.fixture
def priced(record: Make) -> list[ConversationRecord]:
    return [
        record(id="a", outputs={"cost": "60 $", "order_id": "A1"}),
        record(id="b", outputs={"cost": "40 $", "order_id": "B2"}),
        record(id="c", outputs={"cost": "75.5 $", "order_id": None}),
        record(id="d", outputs={"cost": "120 $"}),
    ]


def test_is_unique(priced: list[ConversationRecord], record: Make) -> None:
    ctx = FunctionContext(None, conversations=priced, namespace_of=names)
    assert is_unique(ctx, "order_id") is True  # None and missing values are skipped
    dup = [*priced, record(id="e", outputs={"order_id": "B2"})]
    ctx = FunctionContext(None, conversations=dup, namespace_of=names)
    assert is_unique(ctx, "order_id") is False
    assert ctx.evidence[-1].reason == "e and b have value 'B2' for order_id"


def test_is_unique_over_an_output_no_conversation_produced_is_unscored(
    priced: list[ConversationRecord],
) -> None:
    """A misnamed output (the profiles call it ``id``) compares nothing: never a pass."""
    ctx = FunctionContext(None, conversations=priced, namespace_of=names)
    with pytest.raises(Unscored, match=r"no conversation produced output `nowhere` "
                       r"\(outputs produced: cost, order_id\)"):  # fmt: skip
        is_unique(ctx, "nowhere")
    with pytest.raises(Unscored, match="only 1 conversation produced output `order_id`"):
        is_unique(FunctionContext(None, conversations=priced[1:], namespace_of=names), "order_id")


def test_exists_and_num_exist_over_a_name_no_conversation_has_are_unscored(
    priced: list[ConversationRecord],
) -> None:
    ctx = FunctionContext(None, conversations=priced, evaluate=evaluate)
    for function in (exists, num_exist):
        with pytest.raises(Unscored, match="no conversation produced output `order_number`"):
            function(ctx, "order_number == 'A1'")
    # a conversation without the output is skipped, the others are judged
    assert num_exist(ctx, "order_id is not None and order_id.startswith('B')") == 1


def test_is_unique_reads_variables_without_the_evaluator(record: Make) -> None:
    convs = [record(id=str(i), variables={"size": ["small"], "n": i % 2}) for i in range(3)]
    assert is_unique(FunctionContext(None, conversations=convs), "size") is False  # lists too
    assert is_unique(FunctionContext(None, conversations=convs[:2]), "n") is True


def test_exists_and_num_exist(priced: list[ConversationRecord]) -> None:
    ctx = FunctionContext(None, conversations=priced, evaluate=evaluate)
    assert exists(ctx, "extract_float(cost) > 50") is True
    assert ctx.evidence[-1].reason == "satisfied by a"
    assert exists(ctx, "extract_float(cost) > 500") is False
    assert num_exist(ctx, "extract_float(cost) > 50") == 3
    assert "a, c, d" in (ctx.evidence[-1].reason or "")
    assert num_exist(FunctionContext(None, conversations=[], evaluate=evaluate), "True") == 0


def test_condition_errors_propagate(priced: list[ConversationRecord]) -> None:
    ctx = FunctionContext(None, conversations=priced, evaluate=evaluate)
    with pytest.raises(TypeError):
        exists(ctx, "cost > 1")  # a string compared with a number: a broken rule


def test_global_functions_need_the_evaluator(priced: list[ConversationRecord]) -> None:
    with pytest.raises(SparringError, match="needs the rule evaluator"):
        num_exist(FunctionContext(None, conversations=priced), "True")
