"""The offline user speaks as a person would: goal templates become utterances, context
sentences become directives and facts, yes/no questions get the answer the goals want,
offered options are matched tolerant of inflection, goals are tracked by evidence."""

from __future__ import annotations

import random

import pytest

from sparring.connectors import Button, Reply
from sparring.simulate import AgendaSimulator, run_conversation
from sparring.simulate._directives import read_context
from sparring.simulate._matching import best_option, word_match
from sparring.simulate._phrasing import goal_utterances
from sparring.simulate._spec import ConversationSpec, StopCondition

from .fakes import FakeConnector, value_said


@pytest.mark.parametrize(
    ("goal", "expected"),
    [
        ("Third, order a coke, after ordering the pizza toppings", "to order a coke"),
        ("Setting an appointment for tomorrow, at 13:00, for a Vaccination",
         "help setting an appointment for tomorrow, at 13:00, for a Vaccination"),
        ("Inform that you have a website with 200 visits per week",
         "I have a website with 200 visits per week"),
        ("a small custom pizza", "a small custom pizza"),
        ("When are you open on weekends?", "When are you open on weekends?"),
        ("the following drink: coke", "coke"),
    ],
)  # fmt: skip
def test_goal_templates_become_utterances(goal: str, expected: str) -> None:
    said = goal_utterances(goal)
    assert said and all(expected.lower() in s.lower() for s in said[:1])
    assert not any(s.lower().startswith(("third", "first")) or "after ordering" in s for s in said)


def test_context_sentences_become_directives_and_facts() -> None:
    read = read_context(
        ["if asked for more toppings, reply 'No'", "your name is John Doe",
         "you have a dog called Tommy", "Do not ask for extra toppings, or discounts",
         "you are in a hurry"]
    )  # fmt: skip
    assert read.answer_for("Would you like more toppings?") == "No"
    assert read.answer_for("Do you want a discount coupon?") == "No, thanks."
    assert read.answer_for("Would you like a drink?") is None
    fact = read.fact_for("Could you please tell me your name?")
    assert fact is not None and fact.value == "John Doe"
    dog = read.fact_for("What is your dog's name?")
    assert dog is not None and dog.value == "Tommy"
    assert read.unread == ["you are in a hurry"]


def test_inflection_tolerant_matching_of_offered_options() -> None:
    assert word_match("photograph", "photography") and word_match("topping", "toppings")
    assert not word_match("pepper", "pepperoni")
    assert best_option("photograph", ["Video", "Photography"]) == "Photography"
    assert best_option("ham", ["Pepperoni", "Cheese"]) is None


def shop(text: str, turn: int) -> Reply:
    low = text.lower()
    if turn == 0:
        return Reply(messages=["Which service? (Photography, Video editing)"])
    if "photography" in low:
        return Reply(messages=["Photography costs $3.00. Do you want any extras?"])
    if low.startswith("no"):
        return Reply(messages=["Could you please tell me your name?"])
    if "john" in low:
        return Reply(messages=["Thanks John Doe! We'll contact you soon."])
    return Reply(messages=["Sorry, I didn't get that."])


async def test_a_conversation_as_a_person_would_have_it() -> None:
    spec = ConversationSpec(
        id="shop/0", profile="shop",
        goals=("First, a photograph session",),
        goal_templates=("First, a {{service}} session",),
        variables={"service": "photograph"},
        alternatives={"service": ["photograph", "video"]},
        context=("your name is John Doe", "if asked about extras, say 'No'"),
        fallback="Sorry, I didn't get that.",
        stop=StopCondition("all_answered", limit=8),
    )  # fmt: skip
    record = await run_conversation(
        spec, FakeConnector(shop), AgendaSimulator(spec, random.Random(1))
    )
    users = [t.text for t in record.turns if t.role == "user"]
    assert [value_said(u) for u in users[1:]] == [
        "Photography",
        "No",
        "John Doe",
        "Thank you, goodbye!",
    ]
    assert "First" not in users[0] and "photograph session" in users[0]
    acts = [t.dialogue_act for t in record.turns if t.role == "assistant"]
    assert acts[:4] == ["offer", "yes_no_question", "request", "closing"]
    assert record.errors == [] and record.ended_by_user


async def test_a_confirmation_of_the_wrong_value_is_corrected() -> None:
    def bot(text: str, turn: int) -> Reply:
        if turn == 0:
            return Reply(
                messages=["What size?"], buttons=[Button(text="small"), Button(text="medium")]
            )
        if turn == 1:
            return Reply(messages=["A small pizza then. Is that correct?"])
        return Reply(messages=["A medium pizza, noted."])

    spec = ConversationSpec(
        id="p/0", profile="p", goals=("a medium pizza",), goal_templates=("a {{size}} pizza",),
        variables={"size": "medium"}, alternatives={"size": ["small", "medium", "large"]},
        stop=StopCondition("all_answered", limit=5),
    )  # fmt: skip
    record = await run_conversation(
        spec, FakeConnector(bot), AgendaSimulator(spec, random.Random(0))
    )
    users = [t.text for t in record.turns if t.role == "user"]
    assert [value_said(u) for u in users[1:3]] == ["medium", "No, I asked for medium"]


async def test_a_goal_the_bot_never_understands_is_named_with_its_reason() -> None:
    spec = ConversationSpec(
        id="p/0", profile="p", goals=("How much is a tune-up?", "When are you open?"),
        fallback="Sorry?", stop=StopCondition("all_answered", limit=8),
    )  # fmt: skip

    def bot(text: str, turn: int) -> Reply:
        return Reply(messages=["We open at 9:00." if "open" in text else "Sorry?"])

    record = await run_conversation(
        spec, FakeConnector(bot), AgendaSimulator(spec, random.Random(0))
    )
    [error] = record.errors
    assert error.code == 1001
    assert (
        "goal 'How much is a tune-up?': the chatbot did not understand it 3 times" in error.message
    )
    assert "When are you open" not in error.message
