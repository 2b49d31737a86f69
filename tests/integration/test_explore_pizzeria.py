"""``sparring explore`` and ``sparring run`` offline on the example Rasa pizzeria: the
model holds the bot's main functionalities (ordering with type and size, custom toppings,
drinks, prices, opening hours, the menu). Skips unless the Rasa runtime is set up."""

from __future__ import annotations

from pathlib import Path

import pytest
from integration_support import Pizzeria

from sparring.explore import ExploreJob, ExploreSettings
from sparring.pipeline import RunJob, RunSettings
from sparring.runner import start

pytestmark = pytest.mark.integration


def test_the_offline_crawl_maps_the_pizzerias_functionalities(
    pizzeria: Pizzeria, tmp_path: Path
) -> None:
    settings = ExploreSettings(chatbot=pizzeria.chatbot_yaml, sessions=30, turns=10)
    model = start(ExploreJob(), settings, tmp_path / "explore").result.model
    assert model.fallback == "Sorry, I didn't get that. Could you rephrase it?"
    assert model.bot_type == "transactional" and model.languages == ["en"]
    nodes = {f.id: f for f in model.functionalities}
    assert {"order_a_pizza", "prices", "opening_hours", "see_the_menu"} <= set(nodes)
    options = {p.name: p.options for f in model.functionalities for p in f.parameters}
    assert {"Margherita", "Custom pizza"} <= set(options["pizza"])
    assert options["size"] == ["Small", "Medium", "Large"]
    assert "Coke" in options["drink"] and "No drinks" in options["drink"]
    assert "mushrooms" in options["toppings"]  # announced in text, not as buttons
    confirmation = next(f for f in model.functionalities if f.id == "confirmation")
    assert {o.name for o in confirmation.outputs} >= {"price", "order_id"}


def test_a_run_tests_the_pizzeria_from_one_command(pizzeria: Pizzeria, tmp_path: Path) -> None:
    settings = RunSettings(chatbot=pizzeria.chatbot_yaml, sessions=30, turns=10)
    result = start(RunJob(), settings, tmp_path / "run").result
    assert result.simulation is not None and result.simulation.health.healthy
    assert result.coverage is not None and (result.coverage.functionality_share or 0) >= 0.8
    assert result.check is not None and result.check.outcome.code in (0, 1)
