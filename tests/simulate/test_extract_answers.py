"""Offline extraction by type and question (issue 19): the value a reply gives to the
question that asked for it, the values a description enumerates, predicates that are no
values, and a missing output that says why."""

from __future__ import annotations

import random

from sparring.connectors import Reply
from sparring.conversations import Turn
from sparring.simulate import AgendaSimulator, OutputSpec, StopCondition, run_conversation
from sparring.simulate._extract import extract_outputs_offline
from sparring.simulate._spec import ConversationSpec

from .fakes import FakeConnector


def turns(*pairs: tuple[str, str]) -> list[Turn]:
    out = []
    for user, bot in pairs:
        out += [Turn(role="user", text=user), Turn(role="assistant", text=bot)]
    return out


def test_a_price_given_in_reply_to_how_much_without_a_keyword() -> None:
    out = extract_outputs_offline(
        {"price": {"type": "money", "description": "the price of the order"}},
        turns(("I want a coke", "Sure."), ("how much is it?", "That is $3.00.")),
    )
    assert out["price"].value == "3.00 USD"
    assert out["price"].turn == 3 and out["price"].method == "question"


def test_a_state_is_not_an_order_its_subject_is() -> None:
    said = "Perfect, your small pizza order with pepper and chicken and coke is on its way."
    out = extract_outputs_offline(
        {"confirmed_pizza_order": {"type": "str", "description": "the pizza order confirmed"}},
        turns(("that's all", said)),
    )
    value = out["confirmed_pizza_order"].value
    assert value is not None and "on its way" not in value
    assert "pepper and chicken and coke" in value


def test_opening_times_in_the_answer_to_when_are_you_open() -> None:
    out = extract_outputs_offline(
        {"opening_and_closing_weekends": {
            "type": "str",
            "description": "the opening and closing time of the shop during weekends"}},
        turns(("What are your opening times on weekends?",
               "We open from 10:00 to 14:00 on Saturdays.")),
    )  # fmt: skip
    assert "10:00 to 14:00" in out["opening_and_closing_weekends"].value


def test_an_answer_to_a_question_naming_the_output_is_its_value() -> None:
    out = extract_outputs_offline(
        {"animal_kinds": {"type": "str", "description": "the kind of animals accepted"}},
        turns(("What kind of animals do you accept?",
               "We are specialized in dogs, cats and birds. "
               "For other animals, please consult first.")),
    )  # fmt: skip
    assert out["animal_kinds"].value.startswith("We are specialized in dogs, cats and birds")
    assert out["animal_kinds"].method == "answer"
    none = extract_outputs_offline(
        {"animal_kinds": {"type": "str", "description": "the kind of animals accepted"}},
        turns(("What kind of animals do you accept?", "I don't know, sorry.")),
    )
    assert none["animal_kinds"].value is None


def test_an_enumerated_value_from_the_confirmation_not_from_the_offered_list() -> None:
    description = "the kind of appointment (physical examination, vaccination, dental cleaning)"
    out = extract_outputs_offline(
        {"confirmed_service": {"type": "str", "description": description}},
        turns(
            ("An appointment tomorrow",
             "What service? (Physical examination, Vaccination, Dental cleaning)"),
            ("Vaccination",
             "Ok, an appointment for 26-11-2026 at 10:00 for vaccination. See you then!"),
        ),
    )  # fmt: skip
    assert out["confirmed_service"].value == "vaccination"
    assert out["confirmed_service"].method == "enumerated" and out["confirmed_service"].turn == 3


async def test_a_missing_output_names_itself_and_why() -> None:
    spec = ConversationSpec(
        id="p/0", profile="p", goals=("how much is it?",),
        outputs=(OutputSpec("price", "money", "the price"),),
        stop=StopCondition("all_answered", limit=4),
    )  # fmt: skip
    bot = FakeConnector(lambda text, turn: Reply(messages=["It is very good value."]))
    record = await run_conversation(spec, bot, AgendaSimulator(spec, random.Random(0)))
    [error] = record.errors
    assert error.code == 1001
    assert "output 'price': no money value in the chatbot's replies after 'How much is it?'" in (
        error.message
    )


def test_an_ambiguous_numeric_date_is_read_nearest_the_conversation() -> None:
    from datetime import date

    from sparring.values import find_values

    [near] = find_values("date", "for 08-07-2025 at 13:00", date(2025, 7, 7))
    assert near.value == date(2025, 7, 8)  # 8 July, the day after, not 7 August
    [only] = find_values("date", "for 26-11-2026", date(2026, 11, 25))
    assert only.value == date(2026, 11, 26)
