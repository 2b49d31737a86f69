"""Profile generation with a model (TRACER §4.2), offline through the scripted model:
grouping, model-written goals/context/variables/outputs assembled by the deterministic
code, the bounded repair loop, the offline fallback and the concurrency bound."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from sparring.explore._assemble import assemble_profiles
from sparring.explore._profiles import OFFLINE_NOTE, GeneratedProfile, write_profiles
from sparring.explore._profiles_llm import MODULE, generate_profiles
from sparring.llm import ScriptedModel
from sparring.profiles import load_profile, plan_conversations
from sparring.types import Generated, Strategy

try:
    from .test_profile_generation import DRINKS, pizzeria
except ImportError:  # tests/explore is not a package
    from test_profile_generation import DRINKS, pizzeria  # type: ignore[no-redef]

GROUPING = {
    "scenarios": [
        {
            "name": "Pizza night",
            "role": "you have to act as a user ordering pizza and drinks for friends.",
            "functionalities": ["order_pizza", "Order drinks", "confirm_order", "loyalty_card"],
        },
        {
            "name": "Opening hours",
            "role": "you want to know when the pizzeria opens.",
            "functionalities": ["opening_hours"],
        },
    ]
}
PIZZA_NIGHT = {
    "goals": [
        "Order a {{size}} {{pizza_type}} pizza for {{guests}} people",
        "Add {{cans}} cans of {{drink}}",
        "Ask for delivery on {{delivery_date}}",
        "Confirm the order",
    ],
    "context": ["You are hosting friends tonight.", "You are on a budget."],
    "outputs": [
        {"name": "total price", "type": "money", "description": "The final price."},
        {"name": "order_id", "type": "string", "description": "The order reference."},
    ],
}
BROKEN_GUESTS = {"name": "guests", "type": "int", "min": 6, "max": 2, "step": 1}
FIXED_GUESTS = {"name": "guests", "type": "int", "min": 2, "max": 6, "step": 1}


def writer(*, broken: bool = True, repairs_fix: bool = True, fail: str | None = None) -> Callable:
    """A responder writing the pizzeria's profiles. ``broken``: the first variable
    definition has ``min > max``; ``repairs_fix``: a repair swaps them back (else it sends
    the YAML unchanged); ``fail``: the scenario whose goals call gets a non-JSON reply."""

    def respond(messages: list[dict[str, str]]) -> Any:
        prompt = messages[1]["content"]  # the request (a schema retry appends messages)
        scenario = prompt.split("\n", 1)[0].removeprefix("SCENARIO: ")
        if "Group these functionalities" in prompt:
            return GROUPING
        if "does not validate" in prompt:
            text = prompt.split("PROFILE:\n", 1)[1].split("\n\nRepair every error", 1)[0]
            if repairs_fix:
                text = text.replace("min: 6\n        max: 2", "min: 2\n        max: 6")
            return f"Here is the corrected profile:\n```yaml\n{text}\n```"
        if "VARIABLES:" in prompt:
            return {
                "variables": [
                    {"name": "size", "options": ["Small", "Medium", "Large"], "outside": "XXL"},
                    {"name": "pizza_type", "outside": "calzone"},
                    BROKEN_GUESTS if broken else FIXED_GUESTS,
                    {"name": "delivery_date", "type": "date", "options": ["24/12/2025"]},
                ]
            }
        if scenario == fail:
            return "I cannot answer that in JSON, sorry."
        if scenario == "Pizza night":
            return PIZZA_NIGHT
        return {
            "goals": [f"Help me with {scenario.lower()}"],
            "context": ["You are in a hurry."],
            "outputs": [{"name": "answer", "type": "string", "description": "The answer."}],
        }

    return respond


class Recording:
    """A ``TextModel`` around a scripted model that records each call's ``module`` and
    the most calls in flight at once."""

    def __init__(self, inner: ScriptedModel, concurrency: int) -> None:
        self.inner, self._concurrency = inner, concurrency
        self.modules: list[str] = []
        self.in_flight = self.most_in_flight = 0

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def concurrency(self) -> int:
        return self._concurrency

    async def generate(
        self,
        messages: Sequence[Mapping[str, str]],
        schema: type[BaseModel] | None = None,
        *,
        module: str,
    ) -> Generated:
        self.modules.append(module)
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await asyncio.sleep(0.02)
            return await self.inner.generate(messages, schema, module=module)
        finally:
            self.in_flight -= 1


def by_name(profiles: list[GeneratedProfile]) -> dict[str, GeneratedProfile]:
    return {p.name: p for p in profiles}


def goal_variables(profile: GeneratedProfile) -> dict[str, dict[str, Any]]:
    goals = yaml.safe_load(profile.text)["user"]["goals"]
    return {k: v for goal in goals if isinstance(goal, dict) for k, v in goal.items()}


async def test_the_model_writes_the_profiles_and_repairs_the_invalid_one(tmp_path: Path) -> None:
    llm = Recording(ScriptedModel(writer()), concurrency=8)
    profiles = await generate_profiles(pizzeria(), llm, seed=0)
    assert set(llm.modules) == {MODULE} == {"explore.profiles"}
    found = by_name(profiles)
    assert list(found) == ["pizza_night", "opening_hours", "custom_pizza_to_confirm_order"]
    night = found["pizza_night"]
    assert night.repairs == 1 and night.valid and not night.problems
    assert night.strategy is Strategy.LLM
    assert night.functionalities == ["order_pizza", "order_drinks", "confirm_order"]
    assert any("unknown functionalities: loyalty_card" in n for n in night.notes)
    assert found["opening_hours"].repairs == 0
    # the model's grouping left out custom_pizza: its workflow path is added
    custom = found["custom_pizza_to_confirm_order"]
    assert custom.functionalities[0] == "custom_pizza"
    assert any("left out custom_pizza" in n for n in custom.notes)
    covered = {i for p in profiles for i in p.functionalities}
    assert covered == {f.id for f in pizzeria().functionalities}
    for path in write_profiles(profiles, tmp_path):
        profile = load_profile(path)
        assert await plan_conversations(profile, seed=0)
        assert OFFLINE_NOTE not in path.read_text()
    night_profile = load_profile(tmp_path / "pizza_night.yaml")
    assert "You are hosting friends tonight." in night_profile.context_texts()
    assert [(o.name, o.type.kind) for o in night_profile.outputs] == [
        ("total_price", "money"),
        ("order_id", "string"),
    ]


async def test_variables_from_the_model_meet_the_data_sources() -> None:
    profiles = await generate_profiles(pizzeria(), ScriptedModel(writer(broken=False)))
    night = by_name(profiles)["pizza_night"]
    assert night.repairs == 0
    found = goal_variables(night)
    assert found["size"]["data"] == ["Small", "Medium", "Large", "XXL"]  # cleaned + outside
    assert found["pizza_type"]["data"][-1] == "calzone"  # source options + model's outside
    assert found["drink"]["data"] == DRINKS  # not defined by the model: no outside value
    assert found["cans"]["data"] == [1, 2, 3]
    assert found["guests"]["data"] == {"min": 2, "max": 6, "step": 1}
    assert found["delivery_date"] == {
        "function": "forward()",
        "type": "date",
        "data": ["24/12/2025"],
    }
    conversation = yaml.safe_load(night.text)["conversation"]
    assert conversation["number"] == 6  # pizza_type: 5 options + calzone
    assert conversation["goal_style"] == {"all_answered": {"limit": 15}}


async def test_a_profile_still_invalid_after_the_repairs_is_returned_with_its_problems(
    tmp_path: Path,
) -> None:
    llm = ScriptedModel(writer(repairs_fix=False))
    profiles = await generate_profiles(pizzeria(), llm, max_repairs=2)
    night = by_name(profiles)["pizza_night"]
    assert night.repairs == 2 and not night.valid
    assert night.problems and all(p in night.notes for p in night.problems)
    assert any("min" in p and "guests" in p for p in night.problems)
    assert any("still invalid after 2 repair(s)" in n for n in night.notes)
    assert sum("does not validate" in r[1]["content"] for r in llm.requests) == 2
    written = write_profiles(profiles, tmp_path)
    assert tmp_path / "pizza_night.yaml.invalid" in written
    assert all(by_name(profiles)[n].valid for n in ("opening_hours",))


async def test_no_repair_is_asked_for_when_max_repairs_is_zero() -> None:
    llm = ScriptedModel(writer())
    night = by_name(await generate_profiles(pizzeria(), llm, max_repairs=0))["pizza_night"]
    assert night.repairs == 0 and not night.valid
    assert not any("does not validate" in r[1]["content"] for r in llm.requests)


async def test_a_model_error_in_one_profile_falls_back_to_the_offline_assembly() -> None:
    profiles = await generate_profiles(pizzeria(), ScriptedModel(writer(fail="Opening hours")))
    found = by_name(profiles)
    hours = found["opening_hours"]
    assert hours.strategy is Strategy.OFFLINE and hours.valid
    assert hours.notes[0].startswith("model error (") and OFFLINE_NOTE in hours.notes
    assert "When are you open?" in hours.text  # the node's own utterance, not model phrasing
    assert found["pizza_night"].strategy is Strategy.LLM


async def test_a_model_that_always_fails_gives_the_offline_profiles() -> None:
    profiles = await generate_profiles(pizzeria(), ScriptedModel([]), seed=2)
    offline = assemble_profiles(pizzeria(), seed=2)
    assert [p.text for p in profiles] == [p.text for p in offline]
    assert all(p.strategy is Strategy.OFFLINE and p.valid for p in profiles)
    assert all(any("model error while grouping" in n for n in p.notes) for p in profiles)


async def test_without_a_model_the_offline_assembly_runs() -> None:
    profiles = await generate_profiles(pizzeria(), None, nested_forward=True)
    assert profiles == assemble_profiles(pizzeria(), nested_forward=True)


async def test_profiles_are_generated_concurrently_within_the_model_bound() -> None:
    wide = Recording(ScriptedModel(writer(broken=False)), concurrency=8)
    await generate_profiles(pizzeria(), wide, concurrency=4)
    assert wide.most_in_flight == 3  # the three scenarios at once
    narrow = Recording(ScriptedModel(writer(broken=False)), concurrency=2)
    await generate_profiles(pizzeria(), narrow, concurrency=4)
    assert narrow.most_in_flight == 2
    single = Recording(ScriptedModel(writer(broken=False)), concurrency=8)
    await generate_profiles(pizzeria(), single, concurrency=1)
    assert single.most_in_flight == 1


def test_repaired_text_keeps_our_header_without_fences() -> None:
    from sparring.explore._profiles_llm import _strip

    assert _strip("```yaml\n# theirs\ntest_name: x\n```") == "test_name: x\n"
    assert _strip("Fixed:\n```\na: 1\n```\nDone.") == "a: 1\n"
    assert re.match(r"^a: 1\n$", _strip("a: 1"))
