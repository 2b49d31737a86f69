"""Persona-driven LLM simulation on the ``scripted`` model: the prompt (persona, turn-length
guidance, stop token) and ChatChecker's END_CONVERSATION ending the chat as the user's
choice, from Python and through ``sparring simulate --persona``."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from sparring.cli import app
from sparring.connectors import ChatbotInfo
from sparring.conversations import RunStore
from sparring.llm import ScriptedModel
from sparring.profiles import BigFive, PersonaFile
from sparring.simulate import run_conversation
from sparring.simulate._persona_plan import persona_spec, with_persona
from sparring.simulate._persona_simulator import PersonaSimulator, split_end_token
from sparring.simulate._spec import ConversationSpec

from .fakes import FakeConnector, pizza_bot

DATA = Path(__file__).parent / "data"
PERSONA = PersonaFile(
    name="Gus",
    type="challenging",
    age=71,
    traits=BigFive(neuroticism="high", agreeableness="low"),
    interaction_style=["You are impatient and a bit sarcastic."],
    task="Order a medium pizza and a coke.",
    description="You are Gus, a retired plumber who thinks chatbots waste his time.",
)
CHATBOT = ChatbotInfo(name="Luigi's", description="Takes pizza orders.")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Thanks, bye! END_CONVERSATION", ("Thanks, bye!", True)),
        ("END_CONVERSATION", ("", True)),
        ('"3. YOU: a medium pizza"', ("a medium pizza", False)),
        ("   ", ("", True)),
    ],
)
def test_split_end_token(text: str, expected: tuple[str, bool]) -> None:
    assert split_end_token(text) == expected


def test_prompt_carries_persona_chatbot_turn_length_and_stop_token() -> None:
    spec = persona_spec(PERSONA, Path("gus.yaml"), "gus", seed=0, chatbot=CHATBOT)
    prompt = PersonaSimulator(spec, ScriptedModel([])).system_prompt()
    for expected in (
        "challenging human user",
        "Takes pizza orders.",
        "You are Gus, a retired plumber",
        "neuroticism high",
        "impatient and a bit sarcastic",
        "Your task: Order a medium pizza and a coke.",
        "around 10 words",
        "below 30 words",
        "END_CONVERSATION",
        "Answer the chatbot's first question about each detail vaguely",  # agreeableness low
    ):
        assert expected in prompt, expected


async def test_end_conversation_ends_the_chat_as_the_users_choice() -> None:
    spec = persona_spec(PERSONA, Path("gus.yaml"), "gus", seed=0, chatbot=CHATBOT)
    model = ScriptedModel(
        ["a pizza. now.", "medium", "coke", "Took long enough. Bye END_CONVERSATION"]
    )
    connector = FakeConnector(pizza_bot)
    record = await run_conversation(
        spec, connector, PersonaSimulator(spec, model), simulator_name="llm"
    )
    users = [t.text for t in record.turns if t.role == "user"]
    assert users == ["a pizza. now.", "medium", "coke", "Took long enough. Bye"]
    assert all("END_CONVERSATION" not in t.text for t in record.turns)
    assert record.ended_by_user and record.errors == []
    assert record.persona == "Gus" and record.persona_path == "gus.yaml"
    assert len(model.requests) == 4  # nothing asked after the user ended
    transcript = model.requests[-1][-1]["content"]
    assert "6. CHATBOT: Your order is confirmed." in transcript and transcript.endswith("7. YOU:")


async def test_a_bare_stop_token_sends_nothing() -> None:
    spec = persona_spec(PERSONA, Path("gus.yaml"), "gus", seed=0, chatbot=CHATBOT)
    connector = FakeConnector(pizza_bot)
    model = ScriptedModel(["I want a pizza", "END_CONVERSATION"])
    record = await run_conversation(spec, connector, PersonaSimulator(spec, model))
    assert [t.role for t in record.turns] == ["user", "assistant"]
    assert connector.opened[0].turn == 1
    assert record.ended_by_user and record.errors == []


def test_cli_simulate_with_a_persona_and_no_profile(tmp_path: Path) -> None:
    persona = tmp_path / "gus.yaml"
    persona.write_text(
        "name: Gus\ntype: challenging\ntask: Order a medium pizza and a coke.\n"
        "description: You are Gus, who has no patience.\n",
        encoding="utf-8",
    )
    script = tmp_path / "script.yaml"
    script.write_text(
        "replies:\n  - I want a pizza\n  - medium\n  - coke\n  - Fine. Bye. END_CONVERSATION\n",
        encoding="utf-8",
    )
    out = tmp_path / "run"
    result = CliRunner().invoke(
        app,
        ["simulate", "--persona", str(persona), "-c", str(DATA / "chatbot.yaml"),
         "--model", f"scripted:{script}", "-o", str(out), "--no-probe"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    [record] = RunStore.open(out).iter_records()
    assert record.id == "gus/0" and record.persona == "Gus" and record.simulator == "llm"
    assert record.goals == ["Order a medium pizza and a coke."]
    assert record.ended_by_user and record.errors == []
    assert [t.text for t in record.turns if t.role == "user"][-1] == "Fine. Bye."
    manifest = RunStore.open(out).manifest
    assert manifest.settings["personas"] == [str(persona.resolve())]


def test_a_persona_playing_a_profile_gets_its_goals_and_values() -> None:
    planned = ConversationSpec(
        id="order/0",
        profile="order",
        role="a customer ordering pizza",
        goals=("a large pizza", "how much is it"),
        variables={"size": "large"},
        interaction_styles=("single question",),
    )
    spec = with_persona(planned, PERSONA, Path("gus.yaml"), "gus", seed=0, max_words=20)
    assert spec.id == "order+gus/0" and spec.seed != planned.seed
    prompt = PersonaSimulator(spec, ScriptedModel([])).system_prompt()
    assert "As a customer ordering pizza:\n- a large pizza\n- how much is it" in prompt
    assert "Use exactly these values when the chatbot asks: size = large." in prompt
    assert "Ask about one goal per message." in prompt and "below 20 words" in prompt
    assert "# The chatbot" not in prompt  # none was given
