"""``sparring.confirmation``: a confirmation read back against the user's values, typed,
abstaining where it cannot tell which stated value is a slot's."""

from __future__ import annotations

from datetime import date

import pytest

from sparring.confirmation import (
    GivenValue,
    SlotOutcome,
    check_conversation,
    compare_confirmation,
    given_values,
    is_confirmation,
)
from sparring.conversations import Turn
from sparring.dialogue_acts import DialogueAct
from sparring.values import Synonyms

REFERENCE = date(2026, 11, 28)
ROOMS = ("single", "double", "suite")


def outcomes(text: str, given: object) -> dict[str, tuple[str, str | None]]:
    check = compare_confirmation(text, given, reference=REFERENCE)  # type: ignore[arg-type]
    return {r.slot: (r.outcome.value, r.stated) for r in check.readings}


def test_a_wrong_option_differs_with_both_values_and_the_turn() -> None:
    text = (
        "Your booking is confirmed: a double room for Alice Smith, checking in on "
        "12/03/2027. Your booking reference is SV-1000. Anything else I can do for you?"
    )
    given = [
        GivenValue("room", "suite", options=ROOMS),
        GivenValue("date", "12/03/2027"),
        GivenValue("name", "Alice Smith"),
    ]
    check = compare_confirmation(text, given, turn=7, reference=REFERENCE)
    (wrong,) = check.mismatches
    assert (wrong.slot, wrong.given, wrong.stated, wrong.turn) == ("room", "suite", "double", 7)
    assert "suite" in wrong.reason and "double" in wrong.reason
    assert [r.outcome for r in check.compared[1:]] == [SlotOutcome.AGREES] * 2
    # the same confirmation with the asked room agrees on every slot
    right = compare_confirmation(text.replace("double", "suite"), given, reference=REFERENCE)
    assert right.mismatches == () and len(right.compared) == 3


@pytest.mark.parametrize(
    ("given", "stated"),
    [
        ("12/03/2027", "12 March 2027"),  # numeric day first
        ("2027-03-12", "March 12th, 2027"),
        ("tomorrow", "29/11/2026"),  # relative to the reference date
        ("next Monday", "30/11/2026"),  # the coming Monday …
        ("next Monday", "7 December 2026"),  # … or the one after: people say both
        ("12 March", "12/03/2027"),  # a year said on one side only
        ("17:00", "5 PM"),  # 24- and 12-hour clocks
        ("5 pm", "17:00"),
        ("$80", "80 USD"),
        ("1200", "1,200.00 dollars"),
        ("2", "two"),
    ],
)
def test_typed_values_agree_across_their_written_forms(given: str, stated: str) -> None:
    slot = "guests" if given == "2" else "total price" if given == "1200" else "value"
    text = f"Your reservation is confirmed: {slot} {stated}, is that right?"
    assert outcomes(text, {slot: given})[slot][0] == "agrees"


@pytest.mark.parametrize(
    ("given", "stated", "seen"),
    [
        ("12/03/2027", "13 March 2027", "2027-03-13"),
        ("12 March 2027", "12 March 2028", "2028-03-12"),
        ("17:00", "6 pm", "18:00:00"),
        ("5 pm", "5 am", "05:00:00"),
    ],
)
def test_typed_values_that_differ_are_quoted(given: str, stated: str, seen: str) -> None:
    text = f"I have booked your visit for Bob on {stated}. See you!"
    assert outcomes(text, {"name": "Bob", "when": given})["when"] == ("differs", seen)


def test_numbers_and_money_count_only_beside_the_slots_name() -> None:
    text = "Your order is confirmed for 3 guests. Your reference is 1003."
    assert outcomes(text, {"guests": "2"})["guests"] == ("differs", "3")
    # a lone number (the reference) is no statement of the number of rooms
    assert outcomes(text, {"rooms": "2"})["rooms"] == ("not_stated", None)


def test_a_masked_number_agrees_by_its_last_digits() -> None:
    """ "account ending 5678" reads back ``12345678``; other last digits differ, and a
    point between digits (€1,200.50) ends no sentence."""
    text = "Please check: €1,200.50 to Maria Lopez, account ending 5678, today. Send it?"
    assert outcomes(text, {"account": "12345678"})["account"] == ("agrees", "5678")
    assert outcomes(text, {"account": "87654321"})["account"] == ("differs", "5678")
    assert outcomes(text, {"recipient": "Aiko Tanaka", "amount": "1,200.50"})["recipient"] == (
        "not_stated",
        None,
    )


def test_empty_values_none_labels_and_templates() -> None:
    labelled = outcomes(
        "Summary - Name: Bob Lee, Guests: , Date: {date}",
        {"name": "Alice", "guests": "2", "date": "tomorrow"},
    )
    assert labelled == {
        "name": ("differs", "Bob Lee"),
        "guests": ("empty", ""),
        "date": ("empty", "{date}"),
    }
    bare = outcomes(
        "So a None pizza for Bob, is that right?",
        [GivenValue("size", "large", options=("small", "large")), GivenValue("name", "Bob")],
    )
    assert bare == {"size": ("empty", "None"), "name": ("agrees", "Bob")}
    # a field the user never gave may well be empty; "none of" is English
    other = outcomes(
        "Booking confirmed. Notes: None. Name: Alice. None of the rooms…", {"name": "Alice"}
    )
    assert other == {"name": ("agrees", "Alice")}


def test_two_unstated_slots_and_one_none_cannot_be_tied() -> None:
    check = compare_confirmation(
        "Your booking for None is confirmed, a None room.",
        {"name": "Alice", "room": "suite"},
        reference=REFERENCE,
    )
    assert check.mismatches == () and check.unattributed == ("None", "None")


def test_it_abstains_when_it_cannot_tell_which_value_is_the_slots() -> None:
    text = "Booked from 13/03/2027 to 16/03/2027 for Ann."
    two_slots = {"check_in": "12/03/2027", "check_out": "15/03/2027", "name": "Ann"}
    got = outcomes(text, two_slots)
    assert got["check_in"][0] == got["check_out"][0] == "cannot_tell"
    # one of them read back right: the other one's value is the date left
    fixed = outcomes(text.replace("13/03", "12/03"), two_slots)
    assert fixed["check_in"][0] == "agrees" and fixed["check_out"] == ("differs", "2027-03-16")
    # two other options for a one-valued slot: abstain
    rooms = outcomes(
        "Your booking is confirmed: a double or single room for Ann.",
        [GivenValue("room", "suite", options=ROOMS), GivenValue("name", "Ann")],
    )
    assert rooms["room"][0] == "cannot_tell"


def test_only_sentences_that_read_values_back_state_values() -> None:
    text = "Your order is confirmed: a large pizza for Bob. Would you like cola, water or beer?"
    given = [
        GivenValue("size", "large", options=("small", "large")),
        GivenValue("name", "Bob"),
        GivenValue("drink", "juice", options=("cola", "water", "beer", "juice")),
    ]
    assert outcomes(text, given)["drink"] == ("not_stated", None)


def test_a_list_slot_differs_on_items_nobody_asked_for() -> None:
    toppings = ("cheese", "ham", "mushrooms", "olives")
    given = [GivenValue("toppings", ["cheese", "ham"], options=toppings)]
    assert outcomes("Your order is confirmed: cheese and ham.", given)["toppings"][0] == "agrees"
    extra = outcomes("Your order is confirmed: cheese, ham and mushrooms.", given)
    assert extra["toppings"] == ("differs", "mushrooms")


def test_options_match_by_normalised_text() -> None:
    given = [GivenValue("service", "Dental cleaning", options=("Vaccination", "Dental cleaning"))]
    assert (
        outcomes("Your appointment is confirmed: DENTAL-cleanings.", given)["service"][0]
        == "agrees"
    )
    assert outcomes("Your appointment is confirmed: vaccination.", given)["service"] == (
        "differs",
        "Vaccination",
    )


def test_is_confirmation_by_act_or_generic_cue() -> None:
    assert is_confirmation("A large pepperoni, right?", DialogueAct.CONFIRMATION)
    assert is_confirmation("Your booking is confirmed: a suite for Ann.")
    assert is_confirmation("You have ordered two pizzas.")
    assert not is_confirmation("A single room costs $80 per night, a double room $120.")
    assert not is_confirmation("Which room type would you like: single, double or suite?")


def test_a_value_the_chatbot_refused_is_not_given_the_next_answer_is() -> None:
    said = [
        ("assistant", "And what time would you prefer? We see patients until 4:30 pm."),
        ("user", "6 pm"),
        ("assistant", "Our last appointment starts at 4:30 pm. What time would you prefer?"),
        ("user", "10:30 am"),
        ("assistant", "May I have the patient's full name, please?"),
    ]
    turns = [Turn(role=r, text=t) for r, t in said]  # type: ignore[arg-type]
    variables = {"time": "6 pm", "time_2": "10:30 am"}
    assert [(g.slot, g.turn) for g in given_values(turns, variables)] == [("time_2", 3)]
    everything = given_values(turns, variables, refused=True)
    assert [(g.slot, g.turn) for g in everything] == [("time", 1), ("time_2", 3)]


def test_a_relative_date_is_held_only_against_the_conversations_calendar() -> None:
    text = "All set! Your check-up is booked for {} at 10:30 AM."
    near = outcomes(text.format("Monday, 30 November 2026"), {"day": "tomorrow"})
    assert near["day"] == ("differs", "2026-11-30")
    # a chatbot whose clock says another year (a demo's fixed "today"): cannot tell
    far = outcomes(text.format("Tuesday, 2 March 2027"), {"day": "tomorrow"})
    assert far["day"][0] == "cannot_tell"
    unknown = compare_confirmation(text.format("30/11/2026"), {"day": "tomorrow"})
    assert unknown.readings[0].outcome is SlotOutcome.CANNOT_TELL


def test_a_duration_is_no_clock_time() -> None:
    text = "All set! Your check-up (30 minutes) is booked at {} under the name Ann."
    assert (
        outcomes(text.format("10:30 AM"), {"time": "10:30 am", "name": "Ann"})["time"][0]
        == "agrees"
    )
    assert outcomes(text.format("11:30 AM"), {"time": "10:30 am", "name": "Ann"})["time"] == (
        "differs",
        "11:30:00",
    )


def test_a_summary_without_a_cue_is_read_back_when_it_states_the_users_values() -> None:
    """ "London → York, departing 06:45, first class, 2 passengers." confirms no cue word
    but states two of the user's values: the train chosen from the offer is compared; the
    offer itself, which lists every train, is no summary."""
    said = [
        ("user", "a ticket from London to York"),
        ("assistant", "How many passengers?"),
        ("user", "2"),
        ("assistant", "Standard or first class?"),
        ("user", "first class"),
        ("assistant", "Trains leave at 06:45 and 09:10. Which one would you like?"),
        ("user", "09:10"),
        ("assistant", "London → York, departing 06:45, first class, 2 passengers. Anything else?"),
    ]
    turns = [Turn(role=role, text=text) for role, text in said]  # type: ignore[arg-type]
    values = {"passengers": "2", "class": "first class", "train": "09:10"}
    checks = check_conversation(turns, values)
    assert [c.turn for c in checks] == [7]
    assert [(r.slot, r.stated) for r in checks[0].mismatches] == [("train", "06:45:00")]
    booked = Turn(role="assistant", text="Booked: 09:10.")
    assert check_conversation([*turns[:-1], booked], values)


@pytest.mark.parametrize(
    ("given", "stated", "vocabulary", "outcome"),
    [
        (GivenValue("service", "check-up", options=("Physical examination", "Vaccination")),
         "Ok, I have received your request for physical examination.",
         {"Physical examination": ["check-up"]}, SlotOutcome.AGREES),
        (GivenValue("service", "Monday check-up", options=("Physical examination", "Vaccination")),
         "Ok, I have received your request for physical examination.",
         {"Physical examination": ["check-up"]}, SlotOutcome.NOT_STATED),
        (GivenValue("service", "check-up", options=("Physical examination", "Vaccination")),
         "Ok, I have received your request for vaccination.",
         {"Physical examination": ["check-up"]}, SlotOutcome.DIFFERS),
        (GivenValue("toppings", ["shrooms", "ham"], options=("mushrooms", "ham", "olives")),
         "Your order: a pizza with mushrooms and ham.",
         {"mushrooms": ["shrooms"]}, SlotOutcome.AGREES),
        (GivenValue("toppings", ["shrooms", "ham"], options=("mushrooms", "ham", "olives")),
         "Your order: a pizza with olives and ham.",
         {"mushrooms": ["shrooms"]}, SlotOutcome.DIFFERS),
    ],
)  # fmt: skip
def test_a_value_confirmed_in_the_chatbots_own_word_agrees(
    given: GivenValue, stated: str, vocabulary: dict[str, list[str]], outcome: SlotOutcome
) -> None:
    """The chatbot's synonyms (a veterinary service, a pizza topping): its word for the
    user's value agrees and is no other option; another option still differs."""
    synonyms = Synonyms.of(vocabulary)
    reading = compare_confirmation(stated, [given], synonyms=synonyms).readings[0]
    assert reading.outcome is outcome, reading.reason


@pytest.mark.parametrize(
    ("given", "stated", "outcome"),
    [
        (GivenValue("drinks", "2 bottles of water", options=("coke", "water", "beer")),
         "Your order is confirmed: a large pizza and 2 x water.", SlotOutcome.NOT_STATED),
        (GivenValue("drinks", "2 bottles of water", options=("coke", "water", "beer")),
         "Your order is confirmed: a large pizza and 2 x coke.", SlotOutcome.DIFFERS),
        (GivenValue("room", "a quiet double room", options=("single", "double", "suite")),
         "Your booking is confirmed: a double room for Alex Smith.", SlotOutcome.NOT_STATED),
        (GivenValue("room", "a quiet double room", options=("single", "double", "suite")),
         "Your booking is confirmed: a suite for Alex Smith.", SlotOutcome.DIFFERS),
    ],
)  # fmt: skip
def test_an_option_the_users_value_names_is_no_other_option(
    given: GivenValue, stated: str, outcome: SlotOutcome
) -> None:
    """ "2 x water" for "2 bottles of water" (a pizzeria), "double" for "a quiet double
    room" (a hotel): the option the user's own words name is theirs, never another value;
    another option still differs."""
    reading = compare_confirmation(stated, [given]).readings[0]
    assert reading.outcome is outcome, reading.reason


def test_a_relative_weekday_differs_from_another_weekday_read_back() -> None:
    """The chatbot's calendar is unknown (a demo's fixed "today"), so "next Monday" is not
    held against a date; but a confirmation naming Tuesday states another weekday on any
    calendar. The same weekday, or a date without one, cannot be told."""
    hold = "It will be waiting for you at the Riverside branch from {}. Anything else?"
    given = {"day": "next Monday", "branch": "Riverside"}
    wrong = compare_confirmation(hold.format("Tuesday the 9th of March"), given)
    assert [(r.outcome, r.stated) for r in wrong.readings] == [
        (SlotOutcome.DIFFERS, "Tuesday the 9th of March"),
        (SlotOutcome.AGREES, "Riverside"),
    ]
    for stated in ("Monday the 8th of March", "the 9th of March"):
        same = compare_confirmation(hold.format(stated), given)
        assert same.readings[0].outcome == SlotOutcome.CANNOT_TELL
