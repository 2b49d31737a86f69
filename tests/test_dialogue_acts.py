"""The offline dialogue-act classifier on chatbot turns written the way third-party bots
write them (the veterinary and pizza bots' phrasings, buttons, lists in parentheses)."""

from __future__ import annotations

import pytest

from sparring.dialogue_acts import DialogueAct, classify_dialogue_act, offered_options

CASES = [
    ("What kind of service do you need? (Physical examination, Vaccination, Dental health "
     "and cleaning, Lab or diagnostic testing)", (), DialogueAct.OFFER),
    ("Could you please tell me your name?", (), DialogueAct.REQUEST),
    ("What date would you like?", (), DialogueAct.REQUEST),
    ("Would you like any other toppings?", (), DialogueAct.YES_NO_QUESTION),
    ("Your pizza is ready. Anything else?", (), DialogueAct.CLOSING_QUESTION),
    ("Your order is a small pizza with ham. Is that correct?", (), DialogueAct.CONFIRMATION),
    ("Ok, I have received your request for 08-07-2025 at 13:00. See you then!", (),
     DialogueAct.CLOSING),
    ("That is $3.00.", (), DialogueAct.INFORM),
    ("I'm sorry, but I did not understand the last sentence, can you say that again?", (),
     DialogueAct.FALLBACK),
    ("Pick one", ("Small", "Large"), DialogueAct.OFFER),
    ("Last thing: your member number, please (six digits, on the back of your card).", (),
     DialogueAct.REQUEST),
    ("Thank you. Your e-mail address please.", (), DialogueAct.REQUEST),
    ("Your order is ready, please collect it.", (), DialogueAct.INFORM),
    ("Your table, please follow me.", (), DialogueAct.INFORM),
    ("We have three windows that day: morning (8 to 12), afternoon (12 to 4) or evening "
     "(4 to 6). Which would you prefer?", (), DialogueAct.OFFER),
]  # fmt: skip


@pytest.mark.parametrize(("text", "buttons", "act"), CASES)
def test_acts_of_chatbot_turns(text: str, buttons: tuple[str, ...], act: DialogueAct) -> None:
    assert classify_dialogue_act(text, buttons) is act


def test_the_callers_fallback_decision_wins() -> None:
    assert classify_dialogue_act("What size?", fallback=True) is DialogueAct.FALLBACK


def test_offered_options_in_the_bots_words() -> None:
    vet = "What kind of service? (Physical examination, Vaccination, Dental health and cleaning)"
    assert offered_options(vet) == [
        "Physical examination",
        "Vaccination",
        "Dental health and cleaning",
    ]
    assert offered_options("Do you want small, medium or large?") == ["small", "medium", "large"]
    assert offered_options("We open at 9:00.") == []
    assert offered_options("Choose", ["Photography", "Video"]) == ["Photography", "Video"]


@pytest.mark.parametrize(
    ("text", "options"),
    [
        (
            "Which toppings? You can choose from cheese, ham or mushrooms.",
            ["cheese", "ham", "mushrooms"],
        ),
        ("We have beef, fish and chicken available. Which one?", ["beef", "fish", "chicken"]),
        ("What size do you want? We have small, medium and big sizes.", ["small", "medium", "big"]),
        ("Which drink? We have coke, sprite and iced tea.", ["coke", "sprite", "iced tea"]),
        (
            "Which pizza? We have margarita, pepperoni and four cheese.",
            ["margarita", "pepperoni", "four cheese"],
        ),
        (  # values listed before "which one": the offer to choose from
            "Trains that day leave at 06:45, 09:10, 12:35, 16:50 and 19:20. Which one would you "
            "like?",
            ["06:45", "09:10", "12:35", "16:50", "19:20"],
        ),
        (  # a remark in parentheses says what an option means; the list's lead-in is cut
            "We have three windows that day: morning (8 to 12), afternoon (12 to 4) or "
            "evening (4 to 6). Which would you prefer?",
            ["morning", "afternoon", "evening"],
        ),
        (  # no serial comma: the last "and" joins two options
            "What would you like to come in for? We offer check-ups, cleanings, fillings and "
            "whitening.",
            ["check-ups", "cleanings", "fillings", "whitening"],
        ),
    ],
)
def test_offered_options_are_exact_spans(text: str, options: list[str]) -> None:
    """No neighbouring words: the list's cue, a qualifier, the list's head noun."""
    assert offered_options(text) == options
