"""A value the confirmation states as one variable's is not another variable's option.

Found on the built-in example (``sparring run`` on the pizzeria): a pizza called
"pepperoni" and a topping list holding "pepperoni" made "a large pepperoni pizza" read as
the wrong topping, and the user's goal failed on a correct bot. Here in other domains."""

from __future__ import annotations

from sparring.dialogue_acts import DialogueAct
from sparring.simulate._agenda_state import AgendaState
from sparring.simulate._goals import Goal


def _state(values: dict[str, str], alternatives: dict[str, list[str]]) -> AgendaState:
    goals = [
        Goal(text=f"{n} {v}", variables=frozenset({n}), utterances=[v]) for n, v in values.items()
    ]
    state = AgendaState(goals=goals, values=dict(values), alternatives=alternatives)
    state.answered |= set(values)
    return state


COFFEE = {
    "drink": ["Flat white", "Caramel latte", "Mocha"],
    "size": ["Small", "Large"],
    "syrup": ["vanilla", "caramel", "hazelnut"],
}
"""A coffee shop's options: the syrup "caramel" is a word of the drink "Caramel latte"."""


def test_a_word_of_another_variables_value_is_not_this_variables_other_option() -> None:
    state = _state(
        {"drink": "Caramel latte", "size": "Large", "syrup": "hazelnut"},
        COFFEE,
    )
    text = "Your order is confirmed: a large caramel latte. It will be ready in 5 minutes."
    wrong, agreed = state.read_back(text, DialogueAct.CONFIRMATION)
    assert wrong == [] and {"drink", "size"} <= agreed


def test_another_option_stated_outside_the_other_values_still_contradicts() -> None:
    """The control: the same confirmation stating another syrup on its own is wrong."""
    state = _state(
        {"drink": "Flat white", "size": "Large", "syrup": "hazelnut"},
        COFFEE,
    )
    text = "Your order is confirmed: a large flat white with vanilla. Ready in 5 minutes."
    wrong, _ = state.read_back(text, DialogueAct.CONFIRMATION)
    assert wrong == ["syrup"]


def test_a_part_of_another_variables_value_is_claimed_by_it() -> None:
    """A car hire: the car "Ford Transit Van" holds the vehicle kind "van" the user did not
    choose ("estate"); the confirmation states the car, not a kind."""
    state = _state(
        {"car": "Ford Transit Van", "kind": "estate"},
        {"car": ["Ford Transit Van", "Skoda Octavia"], "kind": ["van", "estate", "compact"]},
    )
    text = "Booked: a Ford Transit Van from Friday to Sunday."
    wrong, agreed = state.read_back(text, DialogueAct.CONFIRMATION)
    assert wrong == [] and "car" in agreed
