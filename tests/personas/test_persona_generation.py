"""Persona generation on the ``scripted`` model: standard and challenging personas, batches,
testers one per breakdown type, offline refusal, and writing the files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sparring import personas as persona_api  # tester_personas: pytest collects test*
from sparring.connectors import ChatbotInfo
from sparring.errors import ModelRequired
from sparring.llm import ScriptedModel
from sparring.personas import generate_personas, write_personas
from sparring.profiles import load_persona_file

CHATBOT = ChatbotInfo(
    name="Luigi's", description="Takes pizza orders with a size and a drink.", type="task-oriented"
)


def draft(name: str, **overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": name,
        "gender": "female",
        "age": 34,
        "background": ["You work night shifts."],
        "traits": {"openness": "high", "conscientiousness": "medium", "extraversion": "low",
                   "agreeableness": "medium", "neuroticism": "medium"},
        "interaction_style": ["You write short, direct messages."],
        "behaviours": [],
        "task": "Order a medium pizza and a coke.",
        "description": f"You are {name}, a nurse who orders food after work.",
    }  # fmt: skip
    base.update(overrides)
    return base


def responder(calls: list[str]) -> Any:
    """Answers each generation call with as many personas as it asks for."""

    def reply(messages: list[dict[str, str]]) -> dict[str, Any]:
        prompt = messages[-1]["content"]
        calls.append(prompt)
        count = int(prompt.split("Write ")[1].split()[0])
        start = len(calls) * 10
        return {"personas": [draft(f"Person {start + i}") for i in range(count)]}

    return reply


async def test_standard_personas_are_written_in_batches() -> None:
    calls: list[str] = []
    model = ScriptedModel(responder(calls))
    personas = await generate_personas(CHATBOT, "standard", 7, model, seed=1)
    assert len(personas) == 7 and len(calls) == 2  # batches of 5 and 2
    assert {p.type for p in personas} == {"standard"}
    assert personas[0].description == "You are Person 10, a nurse who orders food after work."
    assert "Takes pizza orders" in calls[0] and "Standard personas" in calls[0]
    assert "in the second person" in calls[0]
    again: list[str] = []
    await generate_personas(CHATBOT, "standard", 7, ScriptedModel(responder(again)), seed=1)
    assert sorted(again) == sorted(calls)  # the seed decides the prompts


async def test_challenging_personas_keep_their_behaviours_and_top_up() -> None:
    replies = [
        {"personas": [draft("Ann", behaviours=["typos", "change_goal"], traits={
            "openness": "low", "conscientiousness": "low", "extraversion": "high",
            "agreeableness": "low", "neuroticism": "high"})]},
        {"personas": [draft("Bo", behaviours=["vague_answers"])]},
    ]  # fmt: skip
    model = ScriptedModel(replies)
    personas = await generate_personas(CHATBOT, "challenging", 2, model, seed=0)
    assert [p.name for p in personas] == ["Ann", "Bo"]
    assert personas[0].type == "challenging"
    assert personas[0].offline_behaviours() == ["typos", "change_goal"]
    prompts = [r[-1]["content"] for r in model.requests]
    assert "push the chatbot to its limits" in prompts[0]
    assert "Do not reuse these names: Ann" in prompts[1]  # the top-up call


async def test_offline_generation_stops_before_any_call() -> None:
    with pytest.raises(ModelRequired, match="--model"):
        await generate_personas(CHATBOT, "standard", 3, None)


async def test_testers_one_per_breakdown_type() -> None:
    types = [
        ("ignore_question", "The chatbot ignores the user's question."),
        ("repetition", "The chatbot repeats itself."),
    ]
    model = ScriptedModel(lambda messages: draft("Tess", behaviours=["repeat_question"]))
    testers = await persona_api.tester_personas(types, CHATBOT, model)
    assert [(t.type, t.targets) for t in testers] == [
        ("tester", "ignore_question"),
        ("tester", "repetition"),
    ]
    prompts = [json.dumps(r) for r in model.requests]
    assert "ignore_question" in prompts[0] and "repeats itself" in prompts[1]
    offline = await persona_api.tester_personas(types, CHATBOT, None)
    assert [t.targets for t in offline] == ["ignore_question", "repetition"]
    assert "ignores the user's question" in (offline[0].description or "")
    assert offline[0].offline_behaviours() == []


async def test_written_files_load_and_are_never_overwritten(tmp_path: Path) -> None:
    types = [("repetition", "It repeats itself.")]
    personas = await persona_api.tester_personas(types, CHATBOT, None)
    first = write_personas(personas, tmp_path / "out")
    second = write_personas(personas, tmp_path / "out")
    names = [p.name for p in first + second]
    assert names == ["tester-repetition.yaml", "tester-repetition-2.yaml"]
    assert load_persona_file(first[0]) == personas[0]
