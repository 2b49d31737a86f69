"""Trattoria Bella's table-booking agent: a small Python agent for the ``python``
connector, with one planted defect for ``sparring adversarial plan --source`` to find.

The planted defect: ``BookingAgent.respond`` calls the ``book_table`` tool with no
``try``/``except``, and the tool raises ``BookingError`` for a party larger than the
biggest table or a slot already full. Asking for a table for twelve crashes the turn
(the connector records ``ChatbotCrash``) instead of an apology. ``check_availability``
is called the right way, inside ``try``, so the scan must not flag it. Do not fix the
defect: ``tests/adversarial/test_plan_python_scan.py`` asserts the scan finds it.

``chatbot.yaml`` beside this file runs it::

    sparring adversarial plan --chatbot examples/adversarial/chatbot.yaml \
        --source examples/adversarial
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

F = TypeVar("F", bound=Callable[..., object])

OPEN_DAYS = ("tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
LARGEST_TABLE = 8
SEATS_PER_SLOT = 20


class BookingError(Exception):
    """A booking the restaurant cannot take."""


def tool(function: F) -> F:
    """Marks a function as a tool the agent calls (as agent frameworks' ``@tool`` does)."""
    function.__dict__["is_tool"] = True
    return function


@tool
def check_availability(day: str, party: int, booked: dict[str, int]) -> int:
    """Seats left on ``day``; raises ``BookingError`` when the restaurant is closed."""
    if day not in OPEN_DAYS:
        raise BookingError(f"we are closed on {day.capitalize()}s")
    return SEATS_PER_SLOT - booked.get(day, 0)


@tool
def book_table(day: str, party: int, booked: dict[str, int]) -> str:
    """Books a table and returns its reference; raises ``BookingError`` for a party
    larger than the biggest table or a day that is full."""
    if party > LARGEST_TABLE:
        raise BookingError(f"our largest table seats {LARGEST_TABLE}")
    if booked.get(day, 0) + party > SEATS_PER_SLOT:
        raise BookingError(f"{day.capitalize()} is fully booked")
    booked[day] = booked.get(day, 0) + party
    return f"BELLA-{day[:3].upper()}-{booked[day]:02d}"


def classify(text: str) -> str:
    """A keyword intent classifier: greet, hours, availability, book or other."""
    lowered = text.lower()
    if re.search(r"\b(hi|hello|hey)\b", lowered):
        return "greet"
    if "open" in lowered or "hours" in lowered:
        return "hours"
    if "free" in lowered or "available" in lowered:
        return "availability"
    if "book" in lowered or "table" in lowered or "reserve" in lowered:
        return "book"
    return "other"


def _day(text: str) -> str:
    days = re.findall(r"monday|tuesday|wednesday|thursday|friday|saturday|sunday", text.lower())
    return days[0] if days else "friday"


def _party(text: str) -> int:
    numbers = re.findall(r"\b(\d{1,3})\b", text)
    return int(numbers[0]) if numbers else 2


class BookingAgent:
    """One conversation with the booking agent (the python connector makes one per
    conversation)."""

    def __init__(self) -> None:
        self.booked: dict[str, int] = {}

    def greeting(self) -> str:
        return "Welcome to Trattoria Bella! I can book you a table or tell you our hours."

    def respond(self, text: str) -> str:
        intent = classify(text)
        if intent == "greet":
            return "Hello! Would you like to book a table?"
        elif intent == "hours":
            return "We are open Tuesday to Sunday, 6 pm to 11 pm."
        elif intent == "availability":
            day = _day(text)
            try:
                seats = check_availability(day, _party(text), self.booked)
            except BookingError as exc:
                return f"Sorry, {exc}."
            return f"We have {seats} seats left on {day.capitalize()}."
        elif intent == "book":
            day, party = _day(text), _party(text)
            reference = book_table(day, party, self.booked)  # the planted defect: no try
            return f"Booked a table for {party} on {day.capitalize()}: reference {reference}."
        else:
            return "Sorry, I can only book tables and tell you our opening hours."
