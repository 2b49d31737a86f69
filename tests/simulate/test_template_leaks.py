"""The built-in template-leak check: a reply that shows an unfilled or null slot is a
generic failure (1004) with its turn, on by default, with an opt-out; English uses of
"none" and ordinary braces are not leaks."""

from __future__ import annotations

import random

import pytest

from sparring.confirmation import SlotOutcome, compare_confirmation
from sparring.connectors import Reply
from sparring.conversations import ErrorCode
from sparring.leaks import is_empty_word, placeholders, template_leak
from sparring.simulate import AgendaSimulator, RunnerLimits, run_conversation
from sparring.simulate._spec import ConversationSpec, StopCondition

from .fakes import FakeConnector


@pytest.mark.parametrize(
    ("text", "leak"),
    [
        ("Thanks None! We'll contact you very soon", "None"),
        ("Hello {name}, welcome back", "{name}"),
        ("Your total is $undefined", "undefined"),
        ("Order {{ order_id }} is ready", "{{ order_id }}"),
        ("It takes NaN minutes", "NaN"),
        ("Result: [object Object]", "[object Object]"),
        ("Your pizza costs ${price}", "${price}"),
        ("None of our vets work on Sundays.", None),
        ("Sorry, there are none left.", None),
        ("We have None available today.", None),
        ("The contract is null and void.", None),
        ('Send it as {"size": "small"}', None),
    ],
)
def test_what_counts_as_a_leak(text: str, leak: str | None) -> None:
    assert template_leak(text) == leak


def leaky(text: str, turn: int) -> Reply:
    if turn == 0:
        return Reply(messages=["What is your name?"])
    return Reply(messages=["Thanks None! We'll contact you very soon"])


SPEC = ConversationSpec(
    id="c/0", profile="c", goals=("I want a callback",), context=("my name is Ann",),
    stop=StopCondition("steps", steps=3),
)  # fmt: skip


async def test_a_leak_is_a_failure_with_its_turn_and_the_conversation_goes_on() -> None:
    record = await run_conversation(
        SPEC, FakeConnector(leaky), AgendaSimulator(SPEC, random.Random(0))
    )
    [error] = record.errors
    assert error.code == int(ErrorCode.TEMPLATE_LEAK) == 1004
    assert error.turn == 3 and "'None'" in error.message
    assert len([t for t in record.turns if t.role == "user"]) == 3  # went on


async def test_the_check_can_be_switched_off() -> None:
    limits = RunnerLimits(template_check=False)
    record = await run_conversation(
        SPEC, FakeConnector(leaky), AgendaSimulator(SPEC, random.Random(0)), limits=limits
    )
    assert record.errors == []


def test_one_reader_of_unfilled_slots_for_leaks_and_confirmations() -> None:
    """``sparring.leaks`` is the one place that reads unfilled slots: the template-leak
    check and the confirmation reader (a slot stated empty) both call it."""
    text = "Booked: a %(room)s room for {{ guest }} on {0}, total %s."
    assert [(m.group(), name) for m, name in placeholders(text)] == [
        ("%(room)s", "room"), ("{{ guest }}", "guest"), ("{0}", None), ("%s", None),
    ]  # fmt: skip
    assert template_leak("Your room: %(room)s") == "%(room)s"
    assert is_empty_word(" N/A ") and not is_empty_word("None of them")
    reading = compare_confirmation("Booked: a %(room)s room.", {"room": "suite"}).readings[0]
    assert reading.outcome is SlotOutcome.EMPTY and reading.stated == "%(room)s"
