"""The LLM path of the ``explore`` job end to end on the test pizzeria: probing, sessions,
extraction, merges, workflow inference, then profile generation with a repair round —
every model call scripted, so the test asserts the model and the profiles."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sparring.explore import ExploreJob, ExploreSettings
from sparring.llm import ScriptedModel
from sparring.profiles import load_profile
from sparring.runner import start
from tests.explore.conftest import pizza_chatbot_yaml
from tests.explore.scripts.pizza_script import pizza_responder

BROKEN = {"name": "guests", "type": "int", "min": 9, "max": 1, "step": 1}  # fails validation


def _writer(messages: list[dict[str, str]]) -> Any:
    """Writes the profiles of the explored pizzeria; its first size variable is broken."""
    prompt = messages[1]["content"]
    scenario = prompt.split("\n", 1)[0].removeprefix("SCENARIO: ")
    if "Group these functionalities" in prompt:
        return {
            "scenarios": [
                {
                    "name": "Dinner order",
                    "role": "you order a pizza and a drink for dinner.",
                    "functionalities": [
                        "order_pizza",
                        "choose_pizza_size",
                        "choose_drink",
                        "confirm_order",
                    ],
                },
                {
                    "name": "Before ordering",
                    "role": "you check prices and opening hours first.",
                    "functionalities": ["show_prices", "show_opening_hours"],
                },
            ]
        }
    if "does not validate" in prompt:
        text = prompt.split("PROFILE:\n", 1)[1].split("\n\nRepair every error", 1)[0]
        return text.replace("min: 9\n        max: 1", "min: 1\n        max: 9")
    if "VARIABLES:" in prompt:
        return {"variables": [BROKEN] if scenario == "Dinner order" else []}
    if scenario == "Dinner order":
        return {
            "goals": ["Order a pizza for {{guests}} people", "Add a drink", "Confirm the order"],
            "context": ["You are hungry and in a hurry."],
            "outputs": [{"name": "price", "type": "money", "description": "The total."}],
        }
    return {
        "goals": ["What are your prices?", "When are you open?"],
        "context": ["You plan a visit tomorrow."],
        "outputs": [{"name": "hours", "type": "time", "description": "Opening time."}],
    }


def _responder(messages: list[dict[str, str]]) -> Any:
    if messages[0]["content"].startswith("sparring explore step:"):
        return pizza_responder(messages)
    return _writer(messages)


def test_the_llm_path_explores_and_writes_repaired_profiles(tmp_path: Path) -> None:
    chatbot = pizza_chatbot_yaml(tmp_path, "buttons")
    model = ScriptedModel(_responder)
    result = start(
        ExploreJob(model=model),
        ExploreSettings(chatbot=chatbot, sessions=4, turns=6),
        tmp_path / "run",
    ).result
    explored = result.model
    assert explored.strategy == "llm" and explored.complete
    assert explored.bot_type == "transactional"
    nodes = {f.id: f for f in explored.functionalities}
    assert {"order_pizza", "choose_pizza_size", "choose_drink", "confirm_order"} <= set(nodes)
    assert set(nodes["choose_pizza_size"].parents) >= {"order_pizza"}
    assert all(f.strategy == "llm" for f in explored.functionalities)
    assert explored.usage and sum(u.calls for u in explored.usage.values()) > 0
    # the exploration conversations are ordinary records of the run
    ids = {r.id for r in result.store.iter_records()}
    assert "explore/llm-probe" in ids and "explore/llm-s01" in ids
    # profiles: the broken one was repaired once and now loads
    by_name = {p.name: p for p in result.profiles}
    dinner = next(p for name, p in by_name.items() if name.startswith("dinner"))
    assert dinner.strategy == "llm" and dinner.repairs == 1 and dinner.valid
    written = result.store.explore_profiles_dir / f"{dinner.name}.yaml"
    profile = load_profile(written)
    assert "You are hungry and in a hurry." in profile.context_texts()
    saved = json.loads(result.store.explore_model_path.read_text())
    assert saved["strategy"] == "llm" and len(saved["functionalities"]) == len(nodes)
