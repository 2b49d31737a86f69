"""The LLM exploration strategy end to end on the test pizzeria, with a scripted model."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from sparring.conversations import ConversationRecord, RunStore
from sparring.explore import ExplorationModel
from sparring.explore._tracer import explore_with_model
from sparring.llm import ScriptedModel
from sparring.types import Strategy
from tests.explore.conftest import pizza_chatbot_yaml
from tests.explore.scripts.llm_harness import Run, make_run_fixture  # noqa: F401 (the make_run fixture)
from tests.explore.scripts.pizza_script import (
    ABANDON_MARK,
    CORRECTION_MARK,
    FALLBACK,
    IMPERSONATION,
    pizza_responder,
    step_of,
)


async def explore_pizzeria(
    make_run: Callable[..., Run], tmp_path: Path, **model: Any
) -> tuple[Run, ExplorationModel, ScriptedModel]:
    run = make_run(pizza_chatbot_yaml(tmp_path, "buttons"), name=model.pop("name", "run"))
    scripted = ScriptedModel(model.pop("responder", pizza_responder), **model)
    return run, await explore_with_model(run.ctx, scripted), scripted


async def test_explores_the_pizzeria_end_to_end(
    make_run: Callable[..., Run], tmp_path: Path
) -> None:
    run, model, _ = await explore_pizzeria(make_run, tmp_path)

    assert model.strategy == Strategy.LLM and model.complete
    assert model.languages == ["en"] and model.fallback == FALLBACK
    assert model.bot_type == "transactional"
    assert model.sessions == 4
    assert model.turns == sum(len(run.user_messages(f"llm-s0{i}")) for i in range(1, 5))
    ids = [f.id for f in model.functionalities]
    assert ids == [
        "show_prices",
        "show_opening_hours",
        "order_pizza",
        "choose_pizza_size",
        "choose_drink",
        "confirm_order",
        "choose_custom_toppings",
    ]
    assert all(f.strategy == Strategy.LLM for f in model.functionalities)
    # the global merge found place_pizza_order (session 4) to be order_pizza (session 1)
    order = model.node("order_pizza")
    assert order.sessions == ["explore/llm-s01", "explore/llm-s04"]
    pizza_type = order.parameter("pizza_type")
    assert pizza_type is not None
    assert pizza_type.options == ["Margherita", "Pepperoni", "Hawaiian", "Custom"]
    assert order.utterances == ["Order a pizza"]
    size = model.node("choose_pizza_size").parameter("size")
    assert size is not None and size.options == ["Small", "Medium", "Large"]
    assert [o.name for o in model.node("confirm_order").outputs] == ["total_price", "order_id"]
    assert model.node("show_prices").sessions == ["explore/llm-s01", "explore/llm-s02"]
    assert model.node("show_prices").outputs[0].type == "money"  # "currency" mapped


async def test_workflow_is_a_dag_with_branches_and_joins(
    make_run: Callable[..., Run], tmp_path: Path
) -> None:
    _, model, _ = await explore_pizzeria(make_run, tmp_path)

    parents = {f.id: f.parents for f in model.functionalities}
    assert parents == {
        "show_prices": [],
        "show_opening_hours": [],
        "order_pizza": [],
        "choose_pizza_size": ["order_pizza", "choose_custom_toppings"],
        "choose_drink": ["choose_pizza_size"],
        "confirm_order": ["choose_drink"],
        "choose_custom_toppings": ["order_pizza"],
    }
    assert model.node("order_pizza").children == ["choose_pizza_size", "choose_custom_toppings"]
    assert any("ghost_step" in n for n in model.notes)
    assert any("confirm_order -> order_pizza" in n and "cycle" in n for n in model.notes)
    categories = {f.id: f.category for f in model.functionalities}
    assert categories["show_prices"] == "Information"
    assert categories["choose_drink"] == "Ordering"


async def test_sessions_are_ordinary_records_on_disk(
    make_run: Callable[..., Run], tmp_path: Path
) -> None:
    run, model, _ = await explore_pizzeria(make_run, tmp_path)

    reopened = RunStore.open(run.store.path)
    assert reopened.finished_ids() == {
        "explore/llm-probe",
        *(f"explore/llm-s0{i}" for i in range(1, 5)),
    }
    record = reopened.read("explore/llm-s01")
    assert isinstance(record, ConversationRecord)
    assert record.simulator == "explore-llm" and record.fallback == FALLBACK
    assert record.turns[0].role == "assistant"  # the greeting, with its buttons
    assert [b.text for b in record.turns[0].buttons] == ["Order a pizza", "Prices", "Opening hours"]
    probe = run.user_messages("llm-probe")
    assert len(probe) == 4 and all(t.text == FALLBACK for t in run.record("llm-probe").turns[2::2])
    assert run.checkpoints and not run.checkpoints[0].complete
    assert len(run.checkpoints) >= 4  # one per session at least
    assert model.node("order_pizza").id in {f.id for f in run.checkpoints[-1].functionalities}


async def test_explorer_follows_the_rules(make_run: Callable[..., Run], tmp_path: Path) -> None:
    run, model, scripted = await explore_pizzeria(make_run, tmp_path)

    # options picked verbatim although the script wrote prices / margherita / "Large"
    assert run.user_messages("llm-s01") == [
        "Prices",
        "Opening hours",
        "Order a pizza",
        "Margherita",
        "Large",
        "Coke",
    ]
    assert run.user_messages("llm-s04")[0] == "Order a pizza"
    # the impersonation was never sent, and it was corrected and counted
    for name in ["llm-s01", "llm-s02", "llm-s03", "llm-s04"]:
        assert IMPERSONATION not in run.user_messages(name)
    assert any("impersonation corrected" in n for n in run.record("llm-s01").notes)
    corrections = [r for r in scripted.requests if r[-1]["content"].startswith(CORRECTION_MARK)]
    assert len(corrections) == 1 and IMPERSONATION in corrections[0][-1]["content"]
    assert any("wrote as the chatbot 1 time" in n for n in model.notes)
    # a fallback is rephrased once; after the second the topic is abandoned
    assert run.user_messages("llm-s03") == ["Opening hours", "Do you deliver?", "Delivery?"]
    assert any(r[-1]["content"].startswith(ABANDON_MARK) for r in scripted.requests)
    assert any("topic abandoned" in n for n in run.record("llm-s03").notes)


async def test_usage_is_counted_per_step(make_run: Callable[..., Run], tmp_path: Path) -> None:
    run, model, scripted = await explore_pizzeria(make_run, tmp_path)

    steps = [step_of(r) for r in scripted.requests]
    assert set(model.usage) == {f"explore.{s}" for s in steps}
    for step in set(steps):
        usage = model.usage[f"explore.{step}"]
        assert usage.calls == steps.count(step) and usage.prompt_tokens > 0
    assert steps.count("extract") == 4 and steps.count("probe") == 1
    assert steps.count("merge") == 1  # only session 4 had new ids to check
    assert run.ctx.usage == model.usage
    # model calls per discovered functionality in this script
    assert len(steps) / len(model.functionalities) < 5


async def test_results_do_not_depend_on_timing(
    make_run: Callable[..., Run], tmp_path: Path
) -> None:
    _, first, _ = await explore_pizzeria(make_run, tmp_path, name="a")
    _, second, _ = await explore_pizzeria(make_run, tmp_path, name="b", latency=0.002)

    def shape(model: ExplorationModel) -> dict[str, Any]:
        return model.model_dump(include={"functionalities", "notes", "bot_type", "turns"})

    assert shape(first) == shape(second)


async def test_queued_branches_run_concurrently(
    make_run: Callable[..., Run], tmp_path: Path
) -> None:
    run, _, _ = await explore_pizzeria(make_run, tmp_path, latency=0.01)

    spans = [run.record(f"llm-s0{i}") for i in (2, 3, 4)]
    assert max(r.started_at for r in spans) < min(r.ended_at for r in spans if r.ended_at)


async def test_queue_is_depth_first(make_run: Callable[..., Run], tmp_path: Path) -> None:
    run = make_run(pizza_chatbot_yaml(tmp_path, "buttons"), sessions=5)
    model = await explore_with_model(run.ctx, ScriptedModel(pizza_responder, concurrency=1))

    # after exploring order_pizza (s04), its newly found child is explored next (s05),
    # before choose_pizza_size that waited in the queue since session 1
    assert model.node("choose_custom_toppings").sessions[-1] == "explore/llm-s05"
    assert "olives" in run.user_messages("llm-s05")
    assert any("not explored" in n and "choose_pizza_size" in n for n in model.notes)
