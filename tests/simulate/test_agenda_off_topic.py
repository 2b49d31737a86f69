"""The ``off topic when asked`` style: asked for a value, the user first says the goal its
profile lists before it (an off-topic request while the chatbot waits), the chatbot's
fallback meets that goal, and the user answers the question asked again. Proved in two
domains (a pizzeria waiting for the drink, a hotel waiting for the number of nights), each
with a correct bot (returns to its question) and a seeded bug (drops the task after the
off-topic request); without the style the user answers the question first."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable

import pytest

from sparring.connectors import Reply
from sparring.simulate import AgendaSimulator, run_conversation
from sparring.simulate._spec import ConversationSpec

from .fakes import FakeConnector, agenda_spec

FALLBACK = "Sorry, I didn't get that. Could you rephrase it?"
STYLES = ("single question", "off topic when asked")


def _pizzeria(forgets: bool) -> Callable[[str, int], str]:
    asked = "Which drink would you like? We have water, coke and lemonade."

    def bot(text: str, turn: int) -> str:
        low = text.lower()
        if "veggie" in low:
            return f"A large veggie pizza. {asked}"
        if any(w in low for w in ("water", "coke", "lemonade")) and not forgets:
            return "Your order is confirmed: a large veggie pizza and 2 bottles of water."
        return FALLBACK if forgets else f"{FALLBACK} {asked}"

    return bot


def _hotel(forgets: bool) -> Callable[[str, int], str]:
    asked = "How many nights will you stay?"

    def bot(text: str, turn: int) -> str:
        low = text.lower()
        if "double" in low:
            return f"A double room, noted. {asked}"
        if any(c.isdigit() for c in low) and not forgets:
            return "Booked: a double room for 3 nights. Your reference is HB-12."
        return FALLBACK if forgets else f"{FALLBACK} {asked}"

    return bot


CASES = [
    pytest.param(
        agenda_spec(["a big veggie please", "can you book me a taxi", "2 bottles of water"],
                    ["a {{size}} {{pizza}} please", "{{off_topic}}", "{{beverages}}"],
                    {"size": "big", "pizza": "veggie", "off_topic": "can you book me a taxi",
                     "beverages": "2 bottles of water"}, limit=6),
        _pizzeria, "water", id="pizzeria",
    ),
    pytest.param(
        agenda_spec(["I want to book a double room", "what is the weather tomorrow?", "3"],
                    ["I want to book a {{room}} room", "{{off_topic}}", "{{nights}}"],
                    {"room": "double", "off_topic": "what is the weather tomorrow?",
                     "nights": "3"}, limit=6),
        _hotel, "3", id="hotel",
    ),
]  # fmt: skip


async def _talk(
    spec: ConversationSpec, bot: Callable[[str, int], str]
) -> tuple[list[str], list[object]]:
    simulator = AgendaSimulator(spec, random.Random(0))
    connector = FakeConnector(lambda text, turn: Reply(messages=[bot(text, turn)]))
    record = await run_conversation(spec, connector, simulator)
    return [t.text for t in record.turns if t.role == "user"], list(record.errors)


@pytest.mark.parametrize(("spec", "bot", "answer"), CASES)
async def test_off_topic_when_asked_then_back_to_the_question(
    spec: ConversationSpec, bot: Callable[[bool], Callable[[str, int], str]], answer: str
) -> None:
    styled = dataclasses.replace(spec, interaction_styles=STYLES)
    off_topic = spec.variables["off_topic"]
    users, errors = await _talk(styled, bot(False))
    assert users[1] == off_topic and answer in users[2], users
    assert errors == []  # the fallback to the off-topic request met that goal
    users, errors = await _talk(styled, bot(True))  # seeded bug: the task is dropped
    assert users[1] == off_topic
    assert [e.code for e in errors] == [1001]  # type: ignore[attr-defined]
    users, _ = await _talk(spec, bot(False))  # no style: the question first
    assert answer in users[1] and users[2] == off_topic
