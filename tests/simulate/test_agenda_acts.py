"""The agenda user reacts to what the chatbot did (its dialogue act), not to string
matches: a price list is information, an answer meets a goal whose values were given, a
request is answered with a value of the requested type, a correct confirmation is not
contradicted, a closing question gets the next goal or a goodbye."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from sparring.connectors import Reply
from sparring.simulate import AgendaSimulator, run_conversation
from sparring.simulate._agenda_read import MAX_READ, bounded
from sparring.simulate._base import Exchange
from sparring.simulate._slots import fits, form_of, question_kinds
from sparring.simulate._spec import ConversationSpec

from .fakes import FakeConnector, agenda_spec, value_said

PRICES = "A single room costs $80 per night, a double room $120 and a suite $250."


def _spec(
    goals: list[str],
    templates: list[str],
    variables: dict[str, Any],
    alternatives: dict[str, list[Any]] | None = None,
) -> ConversationSpec:
    return agenda_spec(goals, templates, variables, alternatives, limit=8)


async def _talk(
    spec: ConversationSpec, bot: Callable[[str, int], str], simulator: AgendaSimulator | None = None
) -> tuple[list[str], Any]:
    simulator = simulator or AgendaSimulator(spec, random.Random(0))
    connector = FakeConnector(lambda text, turn: Reply(messages=[bot(text, turn)]))
    record = await run_conversation(spec, connector, simulator)
    return [t.text for t in record.turns if t.role == "user"], record


async def test_a_price_list_is_information_not_an_offer() -> None:
    def bot(text: str, turn: int) -> str:
        low = text.lower()
        if "cost" in low or "price" in low or "much" in low:
            return PRICES
        if "check-in" in low or "check in" in low:
            return "Check-in is from 3 pm."
        return "Sorry, I didn't understand that."

    spec = _spec(
        ["how much does a suite room cost?", "what time is check-in?"],
        ["how much does a {{room}} room cost?", "what time is check-in?"],
        {"room": "suite"}, {"room": ["single", "double", "suite"]},
    )  # fmt: skip
    users, record = await _talk(spec, bot)
    assert not any(u.lower().startswith("suite") for u in users)  # never "suite, please."
    assert any("check-in" in u.lower() for u in users)
    assert record.errors == []


async def test_an_answer_after_the_values_were_given_meets_the_goal() -> None:
    """The photography shop: the estimate repeats none of the goal's values."""

    def bot(text: str, turn: int) -> str:
        if turn == 0:
            return "How many pictures do you want photographed?"
        return "The price would be around 1200.0$"

    spec = _spec(
        ["an estimate to photograph pictures"], ["an estimate to photograph {{number}} pictures"],
        {"number": "3"},
    )  # fmt: skip
    users, record = await _talk(spec, bot)
    assert [value_said(u) for u in users].count("3") == 1
    assert record.errors == [] and users[-1] == "Thank you, goodbye!"


async def test_a_request_is_answered_with_a_value_of_its_type() -> None:
    def bot(text: str, turn: int) -> str:
        return ["What's your name?", "And a phone number to reach you?", "Booked, thanks!"][
            min(turn, 2)
        ]

    spec = _spec(
        ["book a table, my phone is (212) 555-1234, I am Ann Lee"],
        ["book a table, my phone is {{phone}}, I am {{name}}"],
        {"phone": "(212) 555-1234", "name": "Ann Lee"},
    )  # fmt: skip
    users, _ = await _talk(spec, bot)
    assert "555" not in users[1] and "Ann Lee" in users[1]
    assert "555-1234" in users[2]


async def test_a_correct_confirmation_is_not_contradicted_a_wrong_one_is() -> None:
    def bot_saying(room: str) -> Callable[[str, int], str]:
        def bot(text: str, turn: int) -> str:
            if turn == 0:
                return "Which room type would you like: single, double or suite?"
            if turn == 1:
                return f"Your booking is confirmed: a {room} room. Your reference is SV-1."
            return "Goodbye!"

        return bot

    spec = _spec(["book a suite room"], ["book a {{room}} room"], {"room": "suite"},
                 {"room": ["single", "double", "suite"]})  # fmt: skip
    users, record = await _talk(spec, bot_saying("suite"))
    assert not any(u.startswith("No,") for u in users) and record.errors == []
    simulator = AgendaSimulator(spec, random.Random(0))
    users, record = await _talk(spec, bot_saying("double"), simulator)
    assert "No, I asked for suite" in users
    assert "another room than the user's" in simulator.goal_failures()["book a suite room"]


async def test_a_closing_question_gets_the_next_goal_then_a_goodbye() -> None:
    def bot(text: str, turn: int) -> str:
        low = text.lower()
        if "price" in low:
            return "A room is $80. Anything else I can do for you?"
        if "check-in" in low:
            return "Check-in is from 3 pm. Anything else I can do for you?"
        return "Goodbye!"

    spec = _spec(["what is the price?", "when is check-in?"],
                 ["what is the price?", "when is check-in?"], {})  # fmt: skip
    users, record = await _talk(spec, bot)
    assert "check-in" in users[1].lower()
    assert users[2] == "No, thanks. Goodbye!" and len(users) == 3
    assert record.errors == []


def test_question_kinds_and_value_forms() -> None:
    assert question_kinds("What's your name?") == {"name"}
    assert question_kinds("What date would you like to check in?") == {"date"}
    assert question_kinds("How many guests?") == {"number"}
    assert question_kinds("Which room type would you like?") == frozenset()
    assert [form_of(v) for v in ("555-22344", "a@b.co", "tomorrow", "5 pm", "3", "Ann Lee")] == [
        "phone", "email", "date", "time", "number", None,
    ]  # fmt: skip
    assert not fits("555-22344", question_kinds("What's your name?"))
    assert fits("Ann Lee", question_kinds("What's your name?"))
    assert fits("10:00", question_kinds("When would you like to come?"))
    assert not fits("tomorrow", question_kinds("How many people?"))


async def test_two_dates_each_answered_to_its_own_question() -> None:
    """ "pick the car up" names the variable ``pickup``: its date, not the return date."""

    def bot(text: str, turn: int) -> str:
        questions = ["On which date will you pick the car up?", "And when will you return it?"]
        return questions[turn] if turn < 2 else "Reserved, thanks!"

    spec = _spec(
        ["rent a car from 2027-04-02 to April 20"],
        ["rent a car from {{pickup}} to {{return_date}}"],
        {"return_date": "April 20", "pickup": "2027-04-02"},
    )
    users, _ = await _talk(spec, bot)
    assert [value_said(u) for u in users[1:3]] == ["2027-04-02", "April 20"]


async def test_a_value_said_in_a_goal_is_not_the_one_asked_next() -> None:
    """ "To Maria Lopez" was said as a goal: the account number question gets the number."""

    def bot(text: str, turn: int) -> str:
        questions = [
            "Who is the money for? Please give the recipient's full name.",
            "What's the recipient's 8-digit account number?",
        ]
        return questions[turn] if turn < 2 else "Done! Reference: NB-1."

    spec = _spec(
        ["send 50 euros", "to Maria Lopez", "account number 12345678"],
        ["send {{amount}} euros", "to {{recipient}}", "account number {{account}}"],
        {"amount": "50", "recipient": "Maria Lopez", "account": "12345678"},
    )
    users, _ = await _talk(spec, bot)
    assert "Maria Lopez" in users[1] and "12345678" in users[2]


async def test_typed_answers_can_be_switched_off_for_the_ablation() -> None:
    def bot(text: str, turn: int) -> str:
        return ["What name should I put on the contact?", "Thanks!"][min(turn, 1)]

    spec = _spec(["book a table"], ["book a table"], {"contact": "555-22344"})
    full, _ = await _talk(spec, bot)
    assert full[1] != "555-22344"  # a phone number is no name
    bare = AgendaSimulator(spec, random.Random(0), disabled=["typed"])
    users, _ = await _talk(spec, bot, bare)
    assert users[1] == "555-22344"


async def test_read_back_can_be_switched_off_for_the_ablation() -> None:
    def bot(text: str, turn: int) -> str:
        replies = [
            "Which room: single, double or suite?",
            "Your booking is confirmed: a double room.",
        ]
        return replies[turn] if turn < 2 else "Bye!"

    spec = _spec(["book a suite room"], ["book a {{room}} room"], {"room": "suite"},
                 {"room": ["single", "double", "suite"]})  # fmt: skip
    full, _ = await _talk(spec, bot)
    assert "No, I asked for suite" in full
    bare = AgendaSimulator(spec, random.Random(0), disabled=["read_back"])
    users, _ = await _talk(spec, bot, bare)
    assert not any(u.startswith("No,") for u in users)


@pytest.mark.parametrize("stated", ["Checkup", "check up", "CHECK-UPS"])
async def test_a_value_stated_in_another_surface_form_is_the_users(stated: str) -> None:
    """A confirmation that writes the user's "check-up" as "Checkup", "check up" or a
    plural is the user's value (``sparring.values.states_value``), never contradicted as
    the other option; one that names the other option still is."""

    def bot(text: str, turn: int) -> str:
        if turn == 0:
            return "Would you like a checkup or a cleaning?"
        if turn == 1:
            return f"A {stated} then, with a free cleaning voucher. Is that correct?"
        return "Booked. Goodbye!"

    spec = _spec(
        ["book a check-up"], ["book a {{treatment}}"],
        {"treatment": "check-up"}, {"treatment": ["check-up", "cleaning"]},
    )  # fmt: skip
    users, record = await _talk(spec, bot)
    assert not any(u.startswith("No, I asked for") for u in users), users
    assert record.errors == []


async def test_a_yes_no_question_after_a_summary_of_the_users_values_is_a_confirmation() -> None:
    """ "Please check: €50.00 to Alex Smith … Shall I send it? (yes/no)" is answered yes
    when the summary states the user's values, and contradicted when it states another."""

    def bot_saying(name: str) -> Callable[[str, int], str]:
        def bot(text: str, turn: int) -> str:
            if turn == 0:
                return "What amount would you like to send?"
            if turn == 1:
                return "What is the recipient name?"
            if turn == 2:
                return f"Please check: €50.00 to {name}, today. Shall I send it? (yes/no)"
            return "Done! Reference NB-1." if text.lower().startswith("yes") else "Cancelled."

        return bot

    spec = _spec(
        ["I want to make a transfer"], ["I want to make a transfer {{amount}} {{recipient}}"],
        {"amount": "50", "recipient": "Alex Smith"},
        {"recipient": ["Alex Smith", "Sam Lee"]},
    )  # fmt: skip
    users, _ = await _talk(spec, bot_saying("Alex Smith"))
    assert "50" in users[1] and "Alex Smith" in users[2]  # the summary states both
    assert users[3].lower().startswith("yes")
    users, _ = await _talk(spec, bot_saying("Sam Lee"))
    assert users[3].startswith("No, I asked for Alex Smith")


async def test_a_long_reply_is_read_bounded_and_its_last_question_answered() -> None:
    """A 64 KB reply whose question comes last: the user reads at most ``MAX_READ``
    characters of it (its start and its end) and answers the question at the end."""
    filler = "We bake every pizza in a stone oven with fresh local ingredients. " * 1000

    def bot(text: str, turn: int) -> str:
        if turn == 0:
            return filler + "Which size would you like: small or large?"
        return "Your small pizza is ordered." if "small" in text.lower() else "Sorry?"

    spec = _spec(["order a small pizza"], ["order a {{size}} pizza"], {"size": "small"},
                 {"size": ["small", "large"]})  # fmt: skip
    long_reply = Reply(messages=[filler + "Which size would you like: small or large?"])
    read = bounded(Exchange([], long_reply, False, 0, None)).reply
    assert read is not None and len(read.text) <= MAX_READ
    assert read.text.endswith("Which size would you like: small or large?")
    users, record = await _talk(spec, bot)
    assert record.errors == [] and users[-1] == "Thank you, goodbye!", users


@pytest.mark.parametrize(
    ("value", "options", "question", "correct", "wrong"),
    [
        ("2 bottles of water", ["coke", "water", "beer"],
         "Which drink would you like? We have coke, water and beer.",
         "Your order is confirmed: a large pizza and 2 x water.",
         "Your order is confirmed: a large pizza and 2 x coke."),
        ("a quiet double room", ["single", "double", "suite"],
         "Which room would you like: single, double or suite?",
         "Your booking is confirmed: a double room. Reference SV-1.",
         "Your booking is confirmed: a suite. Reference SV-1."),
    ],
)  # fmt: skip
async def test_a_confirmation_of_the_option_the_users_words_name_is_not_contradicted(
    value: str, options: list[str], question: str, correct: str, wrong: str
) -> None:
    """The user asked for "2 bottles of water" (a pizzeria) or "a quiet double room" (a
    hotel) and the chatbot confirms "2 x water" or "a double room": the option the user's
    own words name is theirs, never "No, I asked for …"; another option still is."""

    def bot_saying(confirmation: str) -> Callable[[str, int], str]:
        def bot(text: str, turn: int) -> str:
            return question if turn == 0 else confirmation if turn == 1 else "Goodbye!"

        return bot

    spec = _spec(["I want to order"], ["I want to order {{item}}"], {"item": value},
                 {"item": [value]})  # fmt: skip
    users, _ = await _talk(spec, bot_saying(correct))
    assert not any(u.startswith("No, I asked for") for u in users), users
    users, _ = await _talk(spec, bot_saying(wrong))
    assert f"No, I asked for {value}" in users
