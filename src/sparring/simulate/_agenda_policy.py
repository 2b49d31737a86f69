"""What the chatbot's act is about, read against the user's state: which goal variable a
request or an offer asks for, and whether a statement lists a variable's options.

The dialogue act itself comes from ``sparring.dialogue_acts`` (request, offer, inform,
confirmation, closing question, …); this module ties it to the user's goal, as the user
model of agenda-based simulation (Schatzmann et al., NAACL 2007, §3) ties a system's
``request(slot)`` to the constraint on that slot. No per-bot branches: a variable is asked
when the question names it (inflection-tolerant, ``_matching``; or its two words written as
one, "pickup" for "pick … up"), when the reply offers two of its options or one naming
its value, or when the question asks for its kind of value (a date, a time; ``_slots``).
A value of another kind never answers ("What's your name?" is not answered with a phone
number). A list of items with a value each ("single $80, double $120, suite $250") is
information, not an offer to choose (``sparring.values.item_values``).
"""

from __future__ import annotations

import re
from datetime import date

from sparring.connectors import Reply
from sparring.dialogue_acts import offered_options
from sparring.profiles import is_placeholder
from sparring.simulate._agenda_state import AgendaState, flat_values, norm
from sparring.simulate._matching import (
    any_mentioned,
    best_option,
    overlap,
    value_kind_of,
    values_mentioned,
)
from sparring.simulate._slots import fits, form_of, question_kinds
from sparring.simulate._spec import render_value
from sparring.values import item_values

__all__ = ["ASKS_FOR", "asked_variable", "itemised", "last_question", "listed_variable"]

ASKS_FOR = {
    "time": re.compile(r"\b(?:time|hour)\b|\bwhen\b", re.I),
    "date": re.compile(r"\b(?:day|date)\b|\bwhen\b", re.I),
}
"""Questions that ask for a time or a date, whatever the variable is called."""
_ITEM_KINDS = ("money", "time", "date")
"""Kinds of value a list of items gives one of each (a price list, opening hours)."""


def asked_variable(state: AgendaState, reply: Reply, *, typed: bool = True) -> str | None:
    """The variable the reply asks about: named (inflection-tolerant, or as one word),
    two of its options offered, an offered option naming its value, or its kind of value
    asked; with ``typed``, a value of another kind is never the one asked. One not given
    yet first, else one asked again; ``None`` when it asks for none of the user's
    variables."""
    question = last_question(reply.text)
    options = offered_options(reply.text, [b.text for b in reply.buttons])
    kinds = question_kinds(question)
    given = state.given()
    chosen = _chosen_among(state, given, options)
    scores: list[tuple[float, bool, str]] = []
    for name, value in state.values.items():
        if value is None or _has_it(state, name, question, options):
            continue
        if chosen and is_placeholder(value):
            continue  # the same offer again after the user chose: no second pick from it
        if typed and not fits(value, kinds):
            continue  # "What's your name?" is never answered with a phone number
        score = overlap(name.replace("_", " "), question) * 2
        score += 2 if _compound_named(name, question) else 0
        known = [render_value(v) for v in state.alternatives.get(name, [])]
        # "We can service or repair your bike. Which one would you like?"
        listing = " ; ".join(options) or question
        listed = len(any_mentioned(known, listing))
        if not listed and len(any_mentioned(known, reply.text)) >= 2:
            listed = len(any_mentioned(known, reply.text))  # a list before the question
        score += min(listed, 3) if listed >= 2 else 0  # one value named is no offer
        if options and best_option(value, options) is not None:
            score += 2
        single = value[0] if isinstance(value, list | tuple) and len(value) == 1 else value
        kind = value_kind_of(single) if not isinstance(single, list | tuple) else None
        if kind is not None and ASKS_FOR[kind].search(question):
            score += 1.5
        elif kinds and form_of(value) in kinds:
            score += 1.5  # a phone number for "Which number can we reach you on?"
        if score > 0.9:
            scores.append((score, name not in given, name))
    if not scores:
        return None
    return max(scores, key=lambda s: (s[1], s[0]))[2]


def listed_variable(state: AgendaState, text: str) -> str | None:
    """A variable of the active goal (else of the next pending one, unless that goal is a
    question of its own: "how much is a {{size}} pizza") two or more of whose options a
    statement lists (the chatbot offers them without asking: "I can tell you the price of
    tune-up, new tire and new seat"); ``None`` for a list of items with a value each, and
    for a variable the user already gave (the same list again is information: a chatbot
    that wants another choice asks for it)."""
    active = state.active()
    pending = next(iter(state.pending()), None)
    pending = pending if pending is not None and not pending.question else None
    goal = active if active is not None and active.variables else pending
    if goal is None or itemised(text):
        return None
    given = state.given()
    for name in sorted(goal.variables - given):  # listed again after a pick: information
        known = [render_value(v) for v in state.alternatives.get(name, [])]
        mentioned = any_mentioned(known, text)
        chosen = {norm(v) for v in flat_values({name: state.values.get(name)})}
        if len(mentioned) >= 2 and any(norm(m) not in chosen for m in mentioned):
            return name  # options beside the user's own: a list, not a confirmation
    return None


def itemised(text: str) -> bool:
    """Whether ``text`` lists items with one value each (a price list): information, not
    an offer to choose (``sparring.values.item_values``)."""
    today = date.today()
    return any(item_values(kind, text, today) for kind in _ITEM_KINDS)


def last_question(text: str) -> str:
    """The last sentence of ``text`` that asks something (else the whole text)."""
    sentences = [s.strip() for s in re.split(r"(?<=[.?!])\s+|\n+", text) if s.strip()]
    asking = [s for s in sentences if "?" in s]
    return asking[-1] if asking else text


def _has_it(state: AgendaState, name: str, question: str, options: list[str]) -> bool:
    """The chatbot already has ``name``: the user gave it and the question names it
    outside a list of options ("Which toppings would you like on your custom pizza?"
    asks for toppings, not the pizza again)."""
    value = state.values[name]
    if name not in state.answered or is_placeholder(value):
        return False
    return values_mentioned(value, question) and best_option(value, options) is None


def _chosen_among(state: AgendaState, given: set[str], options: list[str]) -> bool:
    """Whether the user already gave a value that is one of ``options``: the offer is
    made again (the chatbot did not take the choice, or wants more with it), so it asks
    for that variable again, not for a placeholder to be filled with another option."""
    return any(
        not is_placeholder(state.values.get(name))
        and best_option(state.values.get(name), options) is not None
        for name in given
        if state.values.get(name) is not None
    )


def _compound_named(name: str, question: str) -> bool:
    """Whether a part of the variable's name is two words of the question written as one
    ("pickup" for "When will you pick the car up?", "checkin" for "check in")."""
    said = set(re.findall(r"[a-z]+", question.lower()))
    for part in re.findall(r"[a-z]+", name.lower()):
        if part in said:
            continue
        if any(part[:i] in said and part[i:] in said for i in range(3, len(part) - 1)):
            return True
    return False
