"""Profile generation, offline (TRACER §4.2): scenarios from the workflow graph, typed
variables from parameter options, conversation settings, and profiles that load, plan
and say they are offline."""

from __future__ import annotations

import re
import tempfile
from datetime import date
from pathlib import Path
from typing import Any

import yaml

from sparring.explore import ExplorationModel, Functionality, Output, Parameter
from sparring.explore._assemble import (
    DEFAULT_CONVERSATIONS,
    STEP_CAP,
    STEP_FLOOR,
    assemble_profiles,
    offline_goals,
)
from sparring.explore._profiles import OFFLINE_NOTE, GeneratedProfile, Scenario, write_profiles
from sparring.profiles import Profile, load_profile, plan_conversations, profile_files
from sparring.runner import start
from sparring.simulate import SimulateJob, SimulateSettings
from sparring.types import Strategy

SIZES = ["small", "medium", "large"]
PIZZAS = ["margherita", "pepperoni", "hawaiian", "four cheese", "vegetarian"]
TOPPINGS = ["cheese", "mushrooms", "olives", "ham"]
DRINKS = ["coke", "water", "sprite", "beer"]


def pizzeria(bot_type: str = "transactional") -> ExplorationModel:
    """A pizzeria: order or build a pizza, then drinks, then a confirmed order with a
    price and an order id; opening hours on the side."""
    return ExplorationModel.model_validate(
        {
            "chatbot": "pizzeria",
            "languages": ["en"],
            "fallback": "Sorry, I did not understand.",
            "bot_type": bot_type,
            "functionalities": [
                Functionality(
                    id="order_pizza",
                    name="Order pizza",
                    description="Order a pizza from the menu",
                    utterances=["I want to order a pizza"],
                    parameters=[
                        Parameter(name="size", options=SIZES, question="Which size?"),
                        Parameter(name="pizza_type", options=PIZZAS),
                    ],
                ),
                Functionality(
                    id="custom_pizza",
                    name="Custom pizza",
                    description="Build a pizza with your own toppings",
                    parameters=[
                        Parameter(name="size", options=SIZES),
                        Parameter(name="toppings", options=TOPPINGS),
                    ],
                ),
                Functionality(
                    id="order_drinks",
                    name="Order drinks",
                    parents=["order_pizza", "custom_pizza"],
                    parameters=[
                        Parameter(name="drink", options=DRINKS),
                        Parameter(name="cans", type="int", options=["1", "2", "3"]),
                    ],
                ),
                Functionality(
                    id="confirm_order",
                    name="Confirm order",
                    parents=["order_drinks"],
                    outputs=[
                        Output(name="price", type="money", description="total price"),
                        Output(name="order_id", description="the order id", example="ZX81Q"),
                    ],
                ),
                Functionality(
                    id="opening_hours",
                    name="Opening hours",
                    utterances=["When are you open?"],
                    outputs=[Output(name="hours", type="time", description="opening time")],
                ),
            ],
        }
    )


def generate(model: ExplorationModel | None = None, **options: Any) -> list[GeneratedProfile]:
    return assemble_profiles(model or pizzeria(), **options)


def document(profile: GeneratedProfile) -> dict[str, Any]:
    loaded = yaml.safe_load(profile.text)
    assert isinstance(loaded, dict)
    return loaded


def variables(profile: GeneratedProfile) -> dict[str, dict[str, Any]]:
    goals = document(profile)["user"]["goals"]
    return {k: v for goal in goals if isinstance(goal, dict) for k, v in goal.items()}


def by_name(profiles: list[GeneratedProfile]) -> dict[str, GeneratedProfile]:
    return {p.name: p for p in profiles}


def test_offline_scenarios_follow_workflow_paths_and_cover_every_functionality() -> None:
    profiles = generate()
    assert [p.functionalities for p in profiles] == [
        ["order_pizza", "order_drinks", "confirm_order"],
        ["custom_pizza", "order_drinks", "confirm_order"],
        ["opening_hours"],
    ]
    covered = {i for p in profiles for i in p.functionalities}
    assert covered == {f.id for f in pizzeria().functionalities}
    assert all(p.valid and not p.problems and p.repairs == 0 for p in profiles)
    assert all(p.strategy is Strategy.OFFLINE for p in profiles)


def test_informational_bots_get_one_scenario_per_root_or_category() -> None:
    model = pizzeria("informational")
    for node in model.functionalities:
        node.category = "menu" if node.id in ("order_pizza", "custom_pizza") else None
    groups = [p.functionalities for p in generate(model)]
    assert groups == [
        ["order_pizza", "order_drinks", "confirm_order", "custom_pizza"],
        ["opening_hours"],
    ]


def test_written_profiles_load_and_say_they_are_offline(tmp_path: Path) -> None:
    paths = write_profiles(generate(), tmp_path / "profiles")
    assert [p.name for p in paths] == [
        "order_pizza_to_confirm_order.yaml",
        "custom_pizza_to_confirm_order.yaml",
        "opening_hours.yaml",
    ]
    for path, generated in zip(paths, generate(), strict=True):
        profile = load_profile(path)
        assert profile.fallback == "Sorry, I did not understand."
        assert profile.language == "English" and not profile.is_starter
        assert not profile.warnings
        assert OFFLINE_NOTE in generated.notes
        assert f"# {OFFLINE_NOTE}" in path.read_text()
        assert "context" not in document(generated)["user"] or all(
            isinstance(c, dict) for c in document(generated)["user"]["context"]
        )  # only a persona: no sentence written by a model


def test_offline_variables_take_the_options_and_no_made_up_value_outside_them() -> None:
    order = by_name(generate())["order_pizza_to_confirm_order"]
    found = variables(order)
    assert list(found) == ["size", "pizza_type", "drink", "cans"]
    for name, options in (("size", SIZES), ("pizza_type", PIZZAS), ("drink", DRINKS)):
        data = found[name]["data"]
        assert data == options, name  # a completed order is checked: no "another size"
        assert found[name] == {"function": "forward()", "type": "string", "data": data}
    assert found["cans"] == {"function": "forward()", "type": "int", "data": [1, 2, 3]}
    goals = document(order)["user"]["goals"]
    assert goals[:3] == ["I want to order a pizza", "size {{size}}", "pizza type {{pizza_type}}"]
    assert "Confirm order" in goals


def test_conversation_settings_are_computed_from_variables_goals_and_outputs() -> None:
    profiles = by_name(generate())
    profile = document(profiles["order_pizza_to_confirm_order"])
    order = profile["conversation"]
    goals = [g for g in profile["user"]["goals"] if isinstance(g, str)]
    outputs = len(profile["chatbot"]["output"])
    limit = max(STEP_FLOOR, 2 * (len(goals) + outputs))
    # pizza_type: 5 options is the largest variable
    assert order == {
        "number": 5,
        "max_cost": 0.75,
        "goal_style": {"all_answered": {"limit": limit}},
        "interaction_style": ["single question"],
    }
    custom = document(profiles["custom_pizza_to_confirm_order"])["conversation"]
    assert custom["number"] == 4  # toppings and drink: 4
    hours = document(profiles["opening_hours"])["conversation"]
    assert hours["number"] == DEFAULT_CONVERSATIONS and hours["max_cost"] == 0.5


def test_the_turn_limit_grows_with_goals_and_outputs_up_to_the_cap() -> None:
    def chain(length: int, outputs: int) -> ExplorationModel:
        nodes = [
            Functionality(
                id=f"step_{i}",
                name=f"Step {i}",
                parents=[f"step_{i - 1}"] if i else [],
                outputs=[Output(name=f"value_{i}_{j}") for j in range(outputs)],
            )
            for i in range(length)
        ]
        return ExplorationModel(functionalities=nodes)

    (medium,) = generate(chain(5, 1))
    assert document(medium)["conversation"]["goal_style"] == {"all_answered": {"limit": 2 * 10}}
    (long,) = generate(chain(12, 2))
    # 2 × 36, capped
    assert document(long)["conversation"]["goal_style"] == {"all_answered": {"limit": 30}}
    style = load_profile_text(long).conversation.goal_style
    assert style.all_answered is not None and style.all_answered.limit == STEP_CAP == 30


def test_nested_forward_chains_the_variables_in_workflow_order() -> None:
    order = by_name(generate(nested_forward=True))["order_pizza_to_confirm_order"]
    found = variables(order)
    assert [v["function"] for v in found.values()] == [
        "forward(pizza_type)",
        "forward(drink)",
        "forward(cans)",
        "forward()",
    ]
    combinations = 3 * 5 * 4 * 3
    number = document(order)["conversation"]["number"]
    assert number == round(combinations * 0.3)
    (hours,) = [p for p in generate(nested_forward=True) if p.name == "opening_hours"]
    assert "forward(" not in hours.text  # no variables, no chain


async def test_a_small_nested_chain_walks_every_combination(tmp_path: Path) -> None:
    model = ExplorationModel(
        functionalities=[
            Functionality(
                id="book",
                name="Book a table",
                parameters=[
                    Parameter(name="day", options=["friday", "saturday"]),
                    Parameter(name="people", type="int", options=["2", "4"]),
                ],
            )
        ]
    )
    (profile,) = generate(model, nested_forward=True)
    assert document(profile)["conversation"]["number"] == 2 * 2
    (path,) = write_profiles([profile], tmp_path)
    plans = await plan_conversations(load_profile(path), seed=0)
    pairs = [(p.variables["day"], p.variables["people"]) for p in plans]
    assert len(set(pairs)) == 4 and pairs[0] == ("friday", 2)


async def test_values_are_generated_by_type_when_no_option_was_seen(tmp_path: Path) -> None:
    model = ExplorationModel(
        languages=["es"],
        functionalities=[
            Functionality(
                id="reserve",
                name="Reservar",
                parameters=[
                    Parameter(name="guests", type="int"),
                    Parameter(name="budget", type="money"),
                    Parameter(name="fecha", type="date"),
                    Parameter(name="email"),
                    Parameter(name="notes"),
                ],
                outputs=[Output(name="confirmed", type="boolean")],
            )
        ],
    )
    (profile,) = generate(model)
    found = variables(profile)
    assert found["guests"]["data"] == {"min": 1, "max": 5, "step": 1}
    assert found["budget"] == {
        "function": "forward()",
        "type": "float",
        "data": {"min": 5.0, "max": 50.0, "step": 5.0},
    }
    assert found["fecha"]["type"] == "date" and found["fecha"]["data"]["date"]["fake"] == 1
    assert "@" in found["email"]["data"][0]
    assert any("notes: no values were seen" in n for n in profile.notes)
    assert document(profile)["user"]["language"] == "Spanish"
    assert document(profile)["chatbot"]["output"] == [
        {"confirmed": {"type": "bool", "description": "confirmed"}}
    ]
    (path,) = write_profiles([profile], tmp_path)
    plans = await plan_conversations(load_profile(path), seed=0, today=date(2025, 1, 1))
    assert len(plans) == 10  # budget: 5.0 … 50.0
    assert all("{{" not in goal for p in plans for goal in p.goals)


def test_outputs_are_typed_and_granular() -> None:
    order = by_name(generate())["order_pizza_to_confirm_order"]
    outputs = document(order)["chatbot"]["output"]
    assert outputs == [
        {"price": {"type": "money", "description": "total price"}},
        {"order_id": {"type": "string", "description": "the order id (e.g. ZX81Q)"}},
    ]
    profile = load_profile_text(order)
    assert [(o.name, o.type.kind) for o in profile.outputs] == [
        ("price", "money"),
        ("order_id", "string"),
    ]
    hours = by_name(generate())["opening_hours"]
    assert load_profile_text(hours).outputs[0].type.kind == "time"


def test_options_with_list_examples_are_data_sources() -> None:
    model = pizzeria()
    menu = Output(name="pizza_type", description="pizzas", example="margherita, diavola and tuna")
    model.functionalities[4].outputs.append(menu)
    scenario = Scenario(
        name="Menu",
        role="You ask about pizzas.",
        functionalities=["opening_hours"],
        goals=["I'd like a {{pizza_type}}", "And a {{drink}}"],
    )
    (profile,) = generate(model, scenarios=[scenario])
    found = variables(profile)
    # the scenario's own nodes come first: the output's example wins over order_pizza's options
    assert found["pizza_type"]["data"][:3] == ["margherita", "diavola", "tuna"]
    assert found["drink"]["data"][:4] == DRINKS


async def test_every_profile_plans_as_simulate_would(tmp_path: Path) -> None:
    for profile in generate() + generate(nested_forward=True, seed=3):
        (path,) = write_profiles([profile], tmp_path / profile.name)
        loaded = load_profile(path)
        plans = await plan_conversations(loaded, seed=0)
        assert len(plans) == document(profile)["conversation"]["number"]
        assert not any("{{" in goal for plan in plans for goal in plan.goals)
        limit = document(profile)["conversation"]["goal_style"]["all_answered"]["limit"]
        planned = plans[0].goal_style.all_answered
        assert planned is not None and planned.limit == limit


def test_assembly_is_deterministic_and_the_seed_only_changes_personas() -> None:
    assert [p.text for p in generate(seed=1)] == [p.text for p in generate(seed=1)]
    first, other = generate(seed=0), generate(seed=5)
    strip = re.compile(r"\n  context:\n  - personality: \w+")
    assert [strip.sub("", p.text) for p in first] == [strip.sub("", p.text) for p in other]


def test_invalid_profiles_are_written_aside(tmp_path: Path) -> None:
    (good,) = generate(
        scenarios=[Scenario(name="Hours", role="r", functionalities=["opening_hours"])]
    )
    broken = good.model_copy(update={"name": "broken", "valid": False})
    paths = write_profiles([good, broken], tmp_path)
    assert [p.name for p in paths] == ["hours.yaml", "broken.yaml.invalid"]
    assert profile_files([tmp_path]) == [tmp_path / "hours.yaml"]


def test_an_empty_model_gives_no_profiles() -> None:
    assert generate(ExplorationModel()) == []


def load_profile_text(profile: GeneratedProfile) -> Profile:
    with tempfile.TemporaryDirectory() as folder:
        (path,) = write_profiles([profile], folder)
        return load_profile(path)


PIZZERIA_BOT = r"""
connector: scripted
params:
  greeting: "Welcome to Luigi's! What can I get you?"
  rules:
    - match: "\\b(open|hours)\\b"
      reply: "We open every day from 12:00 to 23:00."
    - match: "\\bconfirm"
      reply: "Your order is confirmed. The total price is 14.50$ and your order ID is ZX81Q."
    - match: "\\b(pizza|custom)\\b"
      reply: "Which size would you like? We have small, medium and large."
    - match: "\\b(small|medium|large)\\b"
      reply: "Great. What would you like to drink?"
      buttons: [coke, water, sprite, beer]
    - match: "\\b(coke|water|sprite|beer|drink)\\b"
      reply: "How many cans do you want?"
    - match: "\\b\\d+\\b"
      reply: "Noted: {message}. Anything else?"
  fallback: "Sorry, I did not understand."
info:
  languages: [en]
  fallback: "Sorry, I did not understand."
"""


def test_generated_profiles_run_in_simulate(tmp_path: Path) -> None:
    folder = tmp_path / "profiles"
    write_profiles(generate(), folder)
    chatbot = tmp_path / "chatbot.yaml"
    chatbot.write_text(PIZZERIA_BOT, encoding="utf-8")
    result = start(
        SimulateJob(), SimulateSettings(profiles=[folder], chatbot=chatbot), tmp_path / "run"
    ).result
    assert result.ran == 5 + 4 + 3 and result.health.healthy
    records = {r.id: r for r in result.store.iter_records()}
    first = records["Order pizza to Confirm order/0"]
    assert first.variables["size"] == "small" and first.variables["drink"] == "coke"
    said = [t.text for t in first.turns if t.role == "user"]
    assert said[0] == "I want to order a pizza"
    assert "small" in said  # the size question answered with the variable
    assert any("pizza type margherita" in s.lower() for s in said)  # the goal left for the bot
    assert first.outputs["price"].value == "14.50 USD" and first.outputs["price"].type == "money"
    assert first.outputs["order_id"].value == "ZX81Q"
    # "another size" (the generated profile's any() value) is a size this bot never
    # understands: it asks for the size again and again, which the runner records as 1002
    stuck = {i for i, r in records.items() if r.variables.get("size") == "another size"}
    assert all(e.code == 1002 for i in stuck for e in records[i].errors if e.code != 1001)
    # the scripted bot understands neither toppings nor "order drinks": goal_not_completed
    # names exactly those goals, with the reason
    for i, record in records.items():
        for error in (e for e in record.errors if i not in stuck):
            assert error.code == 1001, (i, error)
            named = re.findall(r"goal '([^']+)': the chatbot did not understand it", error.message)
            assert named and all(g.startswith(("toppings", "Order drinks")) for g in named)


def test_a_yes_no_question_gives_no_goal() -> None:
    """ "Shall I send it? (yes/no)" is a confirmation the user answers from what it reads
    back, not a value of the user's goal (a goal "yes" was sent again after the task)."""
    transfer = Functionality(
        id="make_a_transfer",
        name="make a transfer",
        utterances=["make a transfer"],
        parameters=[
            Parameter(name="amount", examples=["50"], question="How much?", said_back=True),
            Parameter(name="send", examples=["yes"], question="Shall I send it? (yes/no)"),
        ],
    )
    goals, parameters = offline_goals([transfer])
    assert goals == ["make a transfer", "amount {{amount}}"] and set(parameters) == {"amount"}


def test_a_number_like_text_stays_text_in_a_written_profile() -> None:
    """A phone number the crawl took ("07700900123") is written quoted: the profile
    loader reads YAML 1.2, where a bare one is the integer 7700900123."""
    from sparring.explore._assemble import dump_yaml

    text = dump_yaml({"data": ["07700900123", "12", "Riverside", "2027-03-01"]})
    assert "- '07700900123'" in text and "- '12'" in text and "- Riverside" in text
