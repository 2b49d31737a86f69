"""The LLM exploration under faults (model errors, a failing bot, Ctrl-C), on an
informational bot, and its building blocks (impersonation, merges, workflow rules)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sparring.explore import Functionality, Parameter
from sparring.explore._tracer import explore_with_model
from sparring.explore._tracer._explorer import impersonation
from sparring.explore._tracer._merge import Graph
from sparring.explore._tracer._nodes import Node
from sparring.explore._tracer._refine import apply_workflow
from sparring.explore._tracer._schemas import MergeGroup, Workflow, WorkflowNode
from sparring.llm import ScriptedModel
from sparring.types import Strategy
from tests.explore.conftest import pizza_chatbot_yaml
from tests.explore.scripts.faq_bot import faq_responder
from tests.explore.scripts.llm_harness import Run, bot_yaml, make_run_fixture  # noqa: F401 (make_run fixture)
from tests.explore.scripts.pizza_script import failing_at, pizza_responder, step_of

S01_NODES = {
    "show_prices",
    "show_opening_hours",
    "order_pizza",
    "choose_pizza_size",
    "choose_drink",
    "confirm_order",
}


async def test_model_error_at_extraction_keeps_a_partial_model(
    make_run: Callable[..., Run], tmp_path: Path
) -> None:
    run = make_run(pizza_chatbot_yaml(tmp_path))
    responder = failing_at("extract", "This session explored 'show_prices'")

    model = await explore_with_model(run.ctx, ScriptedModel(responder))

    assert not model.complete
    assert {f.id for f in model.functionalities} >= S01_NODES
    assert all(f.parents == [] for f in model.functionalities)  # no refinement ran
    assert model.bot_type == "unknown"
    stop = [n for n in model.notes if n.startswith("stopped")]
    assert len(stop) == 1 and "extract" in stop[0] and "llm-s02" in stop[0]
    assert run.checkpoints[-1] == model
    assert "explore/llm-s02" in run.store.finished_ids()  # the conversation is kept
    assert "explore/llm-s02" not in model.node("show_prices").sessions


async def test_model_error_in_a_session_names_the_explorer_step(
    make_run: Callable[..., Run], tmp_path: Path
) -> None:
    run = make_run(pizza_chatbot_yaml(tmp_path))
    model = await explore_with_model(
        run.ctx, ScriptedModel(failing_at("explorer", "What size do you want"))
    )

    assert not model.complete and model.functionalities == []
    assert model.sessions == 1 and model.turns == 4  # the interrupted session counts
    assert any("explorer (llm-s01)" in n for n in model.notes)
    assert run.user_messages("llm-s01")[-1] == "Margherita"  # recorded up to the failure


async def test_model_error_at_probing_keeps_the_offline_findings(
    make_run: Callable[..., Run], tmp_path: Path
) -> None:
    run = make_run(pizza_chatbot_yaml(tmp_path, fallback=True))
    model = await explore_with_model(run.ctx, ScriptedModel(failing_at("probe", "GREETING")))

    assert not model.complete and model.sessions == 0
    assert model.fallback == "Sorry, I didn't understand that." and model.languages == ["en"]
    assert run.checkpoints == [model]


def _generic(messages: list[dict[str, str]]) -> Any:
    step = step_of(messages)
    replies: dict[str, Any] = {
        "probe": {"languages": ["en"], "is_fallback": False, "fallback": None},
        "explorer": {"message": "A", "done": False},
        "extract": {"functionalities": [{"name": "offer_a_or_b", "user_turns": [1]}]},
        "merge": {"duplicates": []},
        "classify": {"bot_type": "informational"},
        "workflow": {"nodes": []},
        "categories": {"categories": []},
    }
    return replies[step]


async def test_a_bot_that_fails_at_once_is_recorded_not_raised(
    make_run: Callable[..., Run], tmp_path: Path
) -> None:
    run = make_run(bot_yaml(tmp_path, "broken_bot:BrokenBot"))
    model = await explore_with_model(run.ctx, ScriptedModel(_generic))

    assert not model.complete and model.sessions == 1 and model.functionalities == []
    assert any("the chatbot failed" in n for n in model.notes)
    record = run.record("llm-s01")
    assert record.errors and "database is down" in record.errors[0].message
    assert run.record("llm-probe").errors


async def test_a_bot_that_fails_mid_session_goes_on(
    make_run: Callable[..., Run], tmp_path: Path
) -> None:
    run = make_run(bot_yaml(tmp_path, "broken_bot:BrokenBot", answers=1), sessions=2)
    model = await explore_with_model(run.ctx, ScriptedModel(_generic))

    assert model.complete and model.sessions == 2
    assert [f.id for f in model.functionalities] == ["offer_a_or_b"]
    assert all(run.record(f"llm-s0{i}").errors for i in (1, 2))
    assert run.user_messages("llm-s01") == ["A", "A"]  # the second one crashed the bot


async def test_ctrl_c_keeps_what_was_explored(make_run: Callable[..., Run], tmp_path: Path) -> None:
    run = make_run(pizza_chatbot_yaml(tmp_path))
    running: list[asyncio.Task[Any]] = []

    def responder(messages: list[dict[str, str]]) -> Any:
        # Ctrl-C while session 4 (order_pizza) is at the pizza choice
        focus, last = messages[0]["content"], messages[-1]["content"]
        if step_of(messages) == "explorer" and "'order_pizza'" in focus and "Which pizza" in last:
            running[0].cancel()
        return pizza_responder(messages)

    running.append(asyncio.create_task(explore_with_model(run.ctx, ScriptedModel(responder))))
    try:
        await running[0]
        raise AssertionError("the cancellation was swallowed")
    except asyncio.CancelledError:
        pass

    saved = run.checkpoints[-1]
    assert not saved.complete and any("interrupted" in n for n in saved.notes)
    assert {f.id for f in saved.functionalities} >= S01_NODES
    assert "interrupted" in run.record("llm-s04").notes  # written although cut short
    assert run.user_messages("llm-s04")[0] == "Order a pizza"


async def test_informational_bot_gets_a_conservative_workflow(
    make_run: Callable[..., Run], tmp_path: Path
) -> None:
    run = make_run(bot_yaml(tmp_path, "faq_bot:FaqBot"), sessions=2)
    scripted = ScriptedModel(faq_responder)
    model = await explore_with_model(run.ctx, scripted)

    assert model.bot_type == "informational" and model.complete
    assert {f.id for f in model.functionalities} == {
        "show_opening_hours",
        "show_location",
        "show_contact",
    }
    assert all(f.parents == [] for f in model.functionalities)  # proposed links dropped
    assert sum("unsupported link" in n for n in model.notes) == 2
    workflow = next(r for r in scripted.requests if step_of(r) == "workflow")
    assert "INFORMATIONAL" in workflow[0]["content"]


async def test_options_in_text_are_picked_and_kept_verbatim(
    make_run: Callable[..., Run], tmp_path: Path
) -> None:
    run = make_run(pizza_chatbot_yaml(tmp_path, "text"), sessions=1)
    model = await explore_with_model(run.ctx, ScriptedModel(pizza_responder))

    assert run.user_messages("llm-s01")[:1] == ["Prices"]
    assert run.user_messages("llm-s01")[3:5] == ["Margherita", "Large"]
    size = model.node("choose_pizza_size").parameter("size")
    assert size is not None and size.options == ["Small", "Medium", "Large"]


def test_impersonation_is_detected() -> None:
    bot = ["Welcome to Mini Pizza! What can I do for you?"]
    assert impersonation("How can I help you today?", bot, [])
    assert impersonation("Chatbot: we are open", bot, [])
    assert impersonation("Welcome to Mini Pizza! What can I do for you?", bot, [])
    assert impersonation("I would like a large pizza", bot, []) is None
    assert impersonation("what can you do?", bot, []) is None
    assert impersonation("Welcome to the team", bot, ["Welcome to the team"]) is None


def _node(name: str, params: dict[str, list[str]], turns: dict[str, int]) -> Node:
    fn = Functionality(
        id=name,
        name=name,
        parameters=[Parameter(name=k, options=v) for k, v in params.items()],
        sessions=list(turns),
        strategy=Strategy.LLM,
    )
    return Node(fn, first_turn=turns)


def test_consolidation_combines_parameters_and_renames() -> None:
    graph = Graph()
    for node in [
        _node("ask_size", {"size": ["Small"]}, {"s1": 2}),
        _node("prompt_for_size", {"size": ["small", "Large"], "crust": []}, {"s2": 1}),
        _node("show_hours", {}, {"s1": 1}),
    ]:
        graph.nodes[node.id] = node
    notes = graph.apply_groups(
        [MergeGroup(ids=["ask_size", "prompt_for_size", "nope"], name="Choose size")]
    )

    assert list(graph.nodes) == ["choose_size", "show_hours"] and len(notes) == 1
    merged = graph.nodes["choose_size"].fn
    assert merged.name == "Choose size" and merged.sessions == ["s1", "s2"]
    assert [(p.name, p.options) for p in merged.parameters] == [
        ("size", ["Small", "Large"]),
        ("crust", []),
    ]
    assert graph.nodes["choose_size"].first_turn == {"s1": 2, "s2": 1}


def test_workflow_rules() -> None:
    graph = Graph()
    for node in [
        _node("a", {}, {"s1": 1, "s2": 1}),
        _node("b", {}, {"s1": 2, "s2": 3}),
        _node("c", {}, {"s1": 3}),
    ]:
        graph.nodes[node.id] = node
    proposed = Workflow(
        nodes=[
            WorkflowNode(id="a", parents=["c"]),
            WorkflowNode(id="b", parents=["a", "b"]),
            WorkflowNode(id="c", parents=["b"]),
        ]
    )

    notes = apply_workflow(graph, proposed, conservative=False)
    assert [graph.nodes[i].fn.parents for i in "abc"] == [[], ["a"], ["b"]]
    assert any("c -> a" in n for n in notes)  # unobserved, and it closes a cycle

    notes = apply_workflow(graph, proposed, conservative=True)
    # a -> b is seen in both sessions that reached b; b -> c in one session only
    assert [graph.nodes[i].fn.parents for i in "abc"] == [[], ["a"], []]
    assert any("unsupported link b -> c" in n for n in notes)
