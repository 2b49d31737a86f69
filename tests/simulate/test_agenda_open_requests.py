"""The agenda user never leaves an open question while its task is unfinished (issue 31,
found on third-party Rasa bots, proved here on bots of other domains): a request for a
slot the profile lacks gets a plausible value of that slot's type; a value the chatbot
refuses is replaced by the profile's next option; a goal not understood with its values
is said as the bare request; an offer made again after the user chose is answered with the
same choice, never by filling a placeholder with another option."""

from __future__ import annotations

import random
import re
from typing import Any

from sparring.connectors import Reply
from sparring.simulate import AgendaSimulator, run_conversation
from sparring.simulate._slots import plausible_value
from sparring.simulate._spec import ConversationSpec

from .fakes import FakeConnector, agenda_spec, value_said


def _spec(
    goals: list[str],
    templates: list[str],
    variables: dict[str, Any],
    alternatives: dict[str, list[Any]] | None = None,
) -> ConversationSpec:
    return agenda_spec(goals, templates, variables, alternatives, limit=10)


async def _talk(spec: ConversationSpec, bot: Any) -> tuple[list[str], Any]:
    simulator = AgendaSimulator(spec, random.Random(0))
    connector = FakeConnector(lambda text, turn: Reply(messages=[bot(text)]))
    record = await run_conversation(spec, connector, simulator)
    return [t.text for t in record.turns if t.role == "user"], record


def test_a_plausible_value_has_the_kind_asked() -> None:
    assert plausible_value(frozenset({"time"})) == "10:00"
    assert plausible_value(frozenset({"number"})) == "2"
    assert plausible_value(frozenset({"date", "time"})) == "next Monday at 10:00"
    assert plausible_value(frozenset()) is None


async def test_a_question_the_profile_has_no_value_for_is_answered_not_left() -> None:
    """A table booking whose profile names the day only: "How many guests?" gets a
    number, and the booking is confirmed before the user says goodbye."""
    state: dict[str, str] = {}

    def bot(text: str) -> str:
        if "friday" in text.lower():
            state["day"] = "Friday"
            return "How many guests will there be?"
        if "day" in state and text.strip().isdigit():
            return f"Your table for {text.strip()} on Friday is booked."
        return "Which day would you like to book a table for?"

    spec = _spec(["book a table on Friday"], ["book a table on {{day}}"], {"day": "Friday"})
    users, record = await _talk(spec, bot)
    assert users[1] in {"1", "2", "3"}  # a small quantity, drawn by the seed
    assert users[-1] == "Thank you, goodbye!"
    assert any("is booked" in t.text for t in record.turns if t.role == "assistant")


async def test_a_refused_value_is_replaced_by_the_next_option() -> None:
    """A car rental closed on Sundays: asked the day again after "we are closed", the user
    gives the profile's next option, and the record says which value it wanted then."""

    def bot(text: str) -> str:
        low = text.lower()
        if "sunday" in low:
            return "Sorry, we are closed on Sundays. Which day do you want to pick the car up?"
        if "tuesday" in low:
            return "Done: your car is reserved for Tuesday."
        return "Which day do you want to pick the car up?"

    spec = _spec(["rent a car"], ["rent a car"], {"day": "Sunday"}, {"day": ["Sunday", "Tuesday"]})
    users, record = await _talk(spec, bot)
    assert users[1:3] == ["Sunday", "Tuesday"]
    assert record.variables["day"] == "Tuesday"


async def test_a_goal_not_understood_with_its_values_is_said_as_the_bare_request() -> None:
    """A hair salon that understands "book an appointment" only without details: after
    its fallback the user says the request alone and gives the values when asked."""

    def bot(text: str) -> str:
        low = text.lower()
        if "haircut" in low and "appointment" not in low:
            return "Great, a haircut it is. See you!"
        if low.rstrip("?.!").endswith("appointment"):
            return "Sure. Which service would you like?"
        return "Sorry, I didn't get that."

    spec = _spec(
        ["Book an appointment for a haircut"],
        ["Book an appointment for a {{service}}"],
        {"service": "haircut"},
    )
    users, record = await _talk(spec, bot)
    assert users[1] == "I'd like to book an appointment"
    assert users[2] == "haircut"
    assert not record.errors


async def test_an_offer_made_again_after_a_choice_gets_the_same_choice() -> None:
    """A course sign-up offers its courses again after the user chose one (it wants the
    date first): the user's placeholder for "the course of my choice" is not filled with
    another course; the user answers the date and keeps its course."""
    said: list[str] = []

    def bot(text: str) -> str:
        said.append(text)
        offer = "Please tell me the date and the course you need. We offer Yoga, Pilates, Boxing."
        if "monday" in text.lower():
            return f"You are signed up for {said[-2]} on 30-11-2026."
        return offer

    spec = _spec(
        ["sign me up", "{{need}}", "{{course}} on {{day}}"],
        ["sign me up", "{{need}}", "{{course}} on {{day}}"],
        {"need": "need of my choice", "course": "Pilates", "day": "next Monday"},
    )
    users, _ = await _talk(spec, bot)
    assert "Yoga" not in users and "Boxing" not in users


async def test_a_placeholder_asked_how_much_gets_a_plausible_amount() -> None:
    """A money transfer whose amount the profile leaves open ("send of my choice"): the
    bank's "How much would you like to send?" offers nothing to choose from, so the user
    gives a plausible amount rather than ask what there is (which the bank cannot
    answer), and the transfer completes."""

    def bot(text: str) -> str:
        if amount := re.search(r"\d+", text):
            return f"Done! {amount.group()} euros are on their way."
        if "transfer" in text.lower():
            return "How much would you like to send?"
        return "Sorry, I didn't catch that. How much would you like to send?"

    spec = _spec(
        ["make a transfer", "send send of my choice"], ["make a transfer", "send {{send}}"],
        {"send": "send of my choice"},
    )  # fmt: skip
    users, record = await _talk(spec, bot)
    assert value_said(users[1]) in {"20", "50", "100"}, users
    assert record.errors == [], record.errors


async def test_the_same_list_after_a_pick_is_information_not_a_new_offer() -> None:
    """ "Where are you located?" answered with the branches, the user says its branch; the
    same list again is information (the user does not say its branch a second time)."""
    branches = "You can pick up at our Airport, Central Station or Downtown branch."

    def bot(text: str) -> str:
        return branches if "located" in text.lower() or "branch" in text.lower() else "Bye!"

    spec = _spec(
        ["Where are you located?", "branch Downtown branch"],
        ["Where are you located?", "branch {{branch}}"],
        {"branch": "Downtown branch"}, {"branch": ["Airport", "Downtown branch"]},
    )  # fmt: skip
    users, record = await _talk(spec, bot)
    assert [value for value in users if "Downtown" in value] == ["Downtown branch"], users
    assert record.errors == [], record.errors
