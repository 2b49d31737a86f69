"""Offline exploration of bots that take only free text (issue 20): capability probes,
what the greeting, fallback and help replies list, answers from the bot's own words and
rejections, typed placeholders, and a form question never taken for the fallback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

from sparring.connectors import Reply
from sparring.conversations import RunStore
from sparring.explore import ExploreJob, ExploreSettings
from sparring.explore._answers import GENERIC_ANSWER, asks_several, free_answers
from sparring.explore._capabilities import COMMON_REQUESTS, capabilities
from sparring.explore._crawl import _offer
from sparring.runner import start

HERE = Path(__file__).resolve().parent


def _chatbot(tmp_path: Path, target: str) -> Path:
    path = tmp_path / f"{target.split(':')[-1]}.yaml"
    config = {"connector": "python", "params": {"target": target, "path": str(HERE)}}
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


def test_capabilities_are_read_from_statements_lists_and_parentheses() -> None:
    assert capabilities("Sorry, I can help with: menu, opening hours, order a drink") == [
        "menu",
        "opening hours",
        "order a drink",
    ]
    assert capabilities("I can help you with bookings, prices and opening hours.") == [
        "bookings",
        "prices",
        "opening hours",
    ]
    assert capabilities("What I do:\n- track a parcel\n- change an address") == [
        "track a parcel",
        "change an address",
    ]
    service = "What service do you need? (Vaccination, Dental cleaning or Lab tests)"
    assert capabilities(service) == ["Vaccination", "Dental cleaning", "Lab tests"]
    assert capabilities("Hi there! What can I do for you?") == []
    assert capabilities("I'm sorry, I did not understand, can you say that again?") == []


def test_free_answers_come_from_the_bots_words_then_typed_placeholders() -> None:
    answers = free_answers("Which drink would you like?", "We have espresso, latte or tea.")
    assert answers[:3] == ["espresso", "latte", "tea"] and answers[-1] == GENERIC_ANSWER
    dates = free_answers("What day do you want to come in?")
    assert dates[0] == "tomorrow" and len(dates) >= 3 and len(set(dates)) == len(dates)
    assert free_answers("What is your name?")[0] == "Alex Smith"
    assert free_answers("Anything else on your mind?") == [GENERIC_ANSWER]
    several = "Could you give me the date, time, and the service you need?"
    assert asks_several(several) and not asks_several("What size do you want?")
    listed = "The services we offer are Vaccination and Lab tests."
    assert free_answers(several, listed)[0] == "tomorrow 6 pm Vaccination"


def test_free_answers_follow_what_the_bots_words_ask_and_refuse() -> None:
    """Digits counted in words, an example the bot shows, the digits a value must start
    with, the places a refused address names; a format remark ("(six digits, …)") and the
    thing asked for ("your member number") are no values to send."""
    member = "Last thing: your member number, please (six digits, on the back of your card)."
    assert free_answers(member, member)[:2] == ["123456", "345678"]
    shown = "Member numbers have six digits, like 204518. Could you check your card?"
    assert free_answers("Could you check your card?", shown)[0] == "204518"
    again = "That doesn't look like a UK mobile number. Could you type it again, starting with 07?"
    assert free_answers("Could you type it again, starting with 07?", again)[0] == "07700900123"
    refused = "Sorry, we only cover Leeds, Bradford and Wakefield. Is there another address?"
    first = free_answers("What's the address, including the postcode?")
    assert first[0] == "12 Main Street" and "postcode" not in first
    assert free_answers("What's the address?", refused)[0] == "12 Main Street, Leeds"


def test_free_answers_follow_the_kind_and_length_the_question_names() -> None:
    """An amount for "how much", as many digits as the question says, and no format mask
    ("DD/MM/YYYY") sent as if it were a value."""
    assert free_answers("How much would you like to send?")[0] == "50"
    assert free_answers("What's the recipient's 8-digit account number?")[:2] == [
        "12345678",
        "34567890",
    ]
    dates = free_answers("When should it go out: today, tomorrow, or on a date (DD/MM/YYYY)?")
    assert dates[:2] == ["today", "tomorrow"] and not {"DD", "MM", "YYYY"} & set(dates)


def test_a_list_in_an_answer_is_information_not_a_choice() -> None:
    """A statement that lists places is no offer to press (its act is inform); the same
    list asked as a question, or after "pick one:", is."""
    said = Reply(messages=["You can pick up at our Airport, Central Station or Downtown branch."])
    assert _offer(said).options == ()
    asked = Reply(messages=["Which branch would you like: Airport, Central Station or Downtown?"])
    assert _offer(asked).options == ("Airport", "Central Station", "Downtown")
    assert _offer(Reply(messages=["Pick one: red, green or blue."])).options == (
        "red",
        "green",
        "blue",
    )


def test_a_cafe_that_lists_its_tasks_only_in_its_fallback_is_explored(tmp_path: Path) -> None:
    chatbot = _chatbot(tmp_path, "cafe_bot:CafeBot")
    result = start(
        ExploreJob(), ExploreSettings(chatbot=chatbot, graph_formats=[]), tmp_path / "run"
    ).result
    model = result.model
    ids = {f.id for f in model.functionalities}
    assert {"menu", "opening_hours", "order_a_drink", "confirmation"} <= ids
    order = model.node("order_a_drink")
    # the drinks come from the bot's rejection, not from anything we made up
    assert order.parameters[0].options == ["espresso", "latte", "tea"]
    assert order.evidence[0] == "listed in the fallback"  # before the common request
    assert model.node("confirmation").evidence == ["an answer to a free question"]
    assert result.profiles and all(p.valid for p in result.profiles)


class ToppingsBot:
    """Rejects every topping it does not have, repeating its question (no list)."""

    TOPPINGS: ClassVar[tuple[str, ...]] = ("ham", "olives")

    def __init__(self) -> None:
        self.ordering = False

    def greeting(self) -> dict[str, object]:
        return {"messages": ["Hi! You can order a pizza or ask for our hours."]}

    def respond(self, text: str) -> dict[str, object]:
        said = text.lower()
        if "pizza" in said:
            self.ordering = True
            return {"messages": ["What topping do you want?"]}
        if self.ordering:
            if any(t in said for t in self.TOPPINGS):
                return {"messages": ["Your pizza is on its way. It costs 9.00 €."]}
            return {"messages": [f"The topping {text} is not available. What topping do you want?"]}
        if "hours" in said:
            return {"messages": ["We open at 12:00."]}
        return {"messages": ["Sorry, I didn't get that."]}


def test_a_rejected_value_is_never_sent_again_to_the_same_question(tmp_path: Path) -> None:
    chatbot = _chatbot(tmp_path, "test_free_text_exploration:ToppingsBot")
    settings = ExploreSettings(chatbot=chatbot, graph_formats=[], sessions=6, turns=8)
    result = start(ExploreJob(), settings, tmp_path / "run").result
    store = RunStore.open(tmp_path / "run")
    for record in store.iter_records():
        answers = [
            t.text
            for i, t in enumerate(record.turns)
            if t.role == "user" and i > 0 and "topping" in record.turns[i - 1].text.lower()
        ]
        assert len(answers) == len(set(answers)), (record.id, answers)
    assert any(f.id == "order_a_pizza" for f in result.model.functionalities)


class FormBot:
    """A form whose re-ask starts with the fallback phrase: still a question."""

    def __init__(self) -> None:
        self.asking = False

    def greeting(self) -> dict[str, object]:
        return {"messages": ["Welcome! I can help you with appointments and opening hours."]}

    def respond(self, text: str) -> dict[str, object]:
        said = text.lower()
        if "appointment" in said:
            self.asking = True
            return {"messages": ["What day do you want to come in?"]}
        if self.asking:
            if "monday" in said or "tomorrow" in said:
                self.asking = False
                return {"messages": ["Booked for " + text + ". See you then!"]}
            return {"messages": ["Sorry, I didn't get that. What day do you want to come in?"]}
        if "hours" in said:
            return {"messages": ["We are open 9 to 5 on weekdays."]}
        return {"messages": ["Sorry, I didn't get that."]}


def test_a_form_asking_again_is_not_taken_for_the_fallback(tmp_path: Path) -> None:
    chatbot = _chatbot(tmp_path, "test_free_text_exploration:FormBot")
    result = start(
        ExploreJob(), ExploreSettings(chatbot=chatbot, graph_formats=[]), tmp_path / "run"
    ).result
    model = result.model
    assert model.fallback == "Sorry, I didn't get that."
    ids = {f.id for f in model.functionalities}
    assert {"appointments", "opening_hours"} <= ids
    booked = [f for f in model.functionalities if f.description.startswith("Booked for")]
    assert booked, ids


class ReturnBot:
    """A rental form that refuses a return day before the pick-up day with a constraint
    ("must be after") and asks again in other words."""

    def __init__(self) -> None:
        self.step = ""

    def greeting(self) -> dict[str, object]:
        return {"messages": ["Hello! I can reserve a car for you."]}

    def respond(self, text: str) -> dict[str, object]:
        said = text.lower()
        if "reserve" in said:
            self.step = "pickup"
            return {"messages": ["On which date will you pick the car up?"]}
        if self.step == "pickup":
            self.step = "return"
            return {"messages": ["And when will you return it?"]}
        if self.step == "return" and "tomorrow" in said:
            return {
                "messages": [
                    "The return date must be after the pick-up date. When will you bring "
                    "the car back?"
                ]
            }
        if self.step == "return":
            self.step = ""
            return {"messages": ["Reservation confirmed. Code DE-1."]}
        return {"messages": ["Sorry, I didn't get that."]}


def test_an_answer_refused_by_a_constraint_is_no_value_of_the_question(tmp_path: Path) -> None:
    """ "must be after the pick-up date" refuses the answer: the return question keeps
    only answers the bot took, and its re-ask in other words is no question of its own."""
    chatbot = _chatbot(tmp_path, "test_free_text_exploration:ReturnBot")
    settings = ExploreSettings(chatbot=chatbot, graph_formats=[], sessions=6, turns=8)
    model = start(ExploreJob(), settings, tmp_path / "run").result.model
    returns = [p for f in model.functionalities for p in f.parameters if "return" in p.name]
    assert returns and all("tomorrow" not in p.examples for p in returns), returns
    assert not any(p.name == "back" for f in model.functionalities for p in f.parameters)


class Silent:
    """Lists nothing anywhere: the common requests are tried."""

    def greeting(self) -> dict[str, object]:
        return {"messages": ["Hello, what can I do for you?"]}

    def respond(self, text: str) -> dict[str, object]:
        if "hours" in text.lower():
            return {"messages": ["We open every day at 10:00."]}
        return {"messages": ["Sorry, could you rephrase?"]}


def test_a_bot_that_lists_nothing_is_asked_the_common_requests(tmp_path: Path) -> None:
    chatbot = _chatbot(tmp_path, "test_free_text_exploration:Silent")
    result = start(
        ExploreJob(), ExploreSettings(chatbot=chatbot, graph_formats=[]), tmp_path / "run"
    ).result
    hours = [f for f in result.model.functionalities if "10:00" in f.description]
    assert len(hours) == 1 and hours[0].utterances == [COMMON_REQUESTS[0]]
    assert hours[0].evidence == ["a common request (nothing was listed)"]


def test_a_quoted_example_of_what_to_say_is_tried_whole_and_first() -> None:
    fallback = (
        "Sorry, I didn't get that. Try asking for a ticket, e.g. 'a ticket from London to York'."
    )
    assert capabilities(fallback) == ["a ticket from London to York"]
    help_text = "I can help you with: rooms, prices. To book, just say 'I want to book a room'."
    assert capabilities(help_text)[:2] == ["I want to book a room", "rooms"]
    # a quotation that is no example of what to say is not one
    assert "nice" not in capabilities("Our guests call it 'nice'. I can help with: rooms, prices")
