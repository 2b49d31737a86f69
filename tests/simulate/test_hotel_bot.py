"""The agenda user on a real free-text bot nobody here tuned it to: the hotel-booking bot
of ``../shared/data/hotel-bot`` (called in process; skipped when the folder is absent).
A price list is information, the price extracted is the asked room's, a correct
confirmation is accepted and a wrong one (the bot's seeded bug B1) contradicted."""

from __future__ import annotations

import importlib.util
import random
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from sparring.connectors import Reply
from sparring.simulate import AgendaSimulator, run_conversation
from sparring.simulate._extract import extract_outputs_offline
from sparring.simulate._spec import ConversationSpec, StopCondition

from .fakes import FakeConnector

HOTEL = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "hotel-bot" / "hotelbot.py"
ROOMS = ["single", "double", "suite"]
PRICES = {"single": "80.00 USD", "double": "120.00 USD", "suite": "250.00 USD"}


@pytest.fixture
def hotel() -> Iterator[ModuleType]:
    if not HOTEL.exists():
        pytest.skip(f"shared data missing: {HOTEL}")
    spec = importlib.util.spec_from_file_location("sparring_test_hotelbot", HOTEL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module


async def _talk(
    hotel: ModuleType, spec: ConversationSpec
) -> tuple[list[str], Any, AgendaSimulator]:
    session: dict[str, Any] = {}
    connector = FakeConnector(lambda text, turn: Reply(messages=[hotel.respond(session, text)]))
    simulator = AgendaSimulator(spec, random.Random(1))
    record = await run_conversation(spec, connector, simulator)
    return [t.text for t in record.turns if t.role == "user"], record, simulator


@pytest.mark.parametrize("room", ROOMS)
async def test_room_prices_asked_and_the_asked_rooms_price_extracted(
    hotel: ModuleType, room: str
) -> None:
    goals = ("what can you do?", f"how much does a {room} room cost?", "what time is check-in?")
    templates = ("what can you do?", "how much does a {{room}} room cost?", goals[2])
    spec = ConversationSpec(
        id="q/0", profile="q", goals=goals, goal_templates=templates,
        variables={"room": room}, alternatives={"room": ROOMS},
        stop=StopCondition("steps", limit=6),
    )  # fmt: skip
    users, record, simulator = await _talk(hotel, spec)
    assert not any(u.lower().startswith(room) for u in users)  # no "suite, please."
    assert any("check-in" in u.lower() for u in users)
    assert simulator.goal_failures() == {}
    outputs = {"price": {"type": "money", "description": "the price per night of the room"}}
    assert extract_outputs_offline(outputs, record.turns)["price"].value == PRICES[room]


@pytest.mark.parametrize("buggy", [False, True])
async def test_the_confirmation_read_back(hotel: ModuleType, buggy: bool) -> None:
    hotel.BUGGY = buggy  # B1: the confirmation always says "double room"
    goals = ("book a suite room", "check in on 12/03/2027", "the booking is under the name Ann Lee")
    templates = (
        "book a {{room}} room",
        "check in on {{date}}",
        "the booking is under the name {{name}}",
    )
    spec = ConversationSpec(
        id="b/0", profile="b", goals=goals, goal_templates=templates,
        variables={"room": "suite", "date": "12/03/2027", "name": "Ann Lee"},
        alternatives={"room": ROOMS}, stop=StopCondition("all_answered", limit=10),
    )  # fmt: skip
    users, _, simulator = await _talk(hotel, spec)
    assert ("No, I asked for suite" in users) is buggy
    failures = simulator.goal_failures()
    if buggy:
        assert "another room than the user's" in failures["book a suite room"]
    else:
        assert failures == {} and users[-1] == "No, thanks. Goodbye!"
