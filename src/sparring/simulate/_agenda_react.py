"""The agenda user's policy: which user act answers the chatbot's act.

After Schatzmann et al., "Agenda-Based User Simulation for Bootstrapping a POMDP Dialogue
System" (NAACL 2007), §3: the user answers a ``request(slot)`` with its constraint on that
slot, confirms or negates a system ``confirm`` against its goal, and otherwise pushes the
next act of its agenda. The rules by act are listed in ``_agenda``'s docstring; none has
per-bot branches. Words come from ``_agenda_realise``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from sparring.connectors import Reply
from sparring.dialogue_acts import DialogueAct, offered_options
from sparring.profiles import is_placeholder, placeholder_words
from sparring.simulate._agenda_policy import ASKS_FOR, last_question
from sparring.simulate._agenda_realise import VAGUE, framed, press
from sparring.simulate._agenda_state import CONFIRMING, flat_values, norm
from sparring.simulate._matching import (
    any_mentioned,
    best_option,
    only_when_besides,
    overlap,
    value_kind_of,
    values_mentioned,
)
from sparring.simulate._placeholders import ask_for_options, offered_value
from sparring.simulate._slots import form_of, plausible_value, question_kinds
from sparring.simulate._spec import render_value
from sparring.simulate._styles import change_your_mind

if TYPE_CHECKING:
    from sparring.simulate._agenda import AgendaSimulator

__all__ = ["GOODBYE", "any_option", "give", "improvise", "react"]

GOODBYE = "Thank you, goodbye!"
_YES, _NO = "Yes, please.", "No, thanks."
_REFUSAL = re.compile(
    r"\b(?:closed?|not available|unavailable|fully booked|no availability|sold out|"
    r"(?:select|choose|pick) (?:an)?other|another (?:day|date|time|one)|"
    r"(?:select|choose|pick) an? \w+ (?:between|from|within))\b",
    re.IGNORECASE,
)
"""A chatbot's words refusing the value given (the slot is asked again after them)."""


def any_option(sim: AgendaSimulator, reply: Reply) -> str | None:
    """An option of a choice the profile says nothing about ("We can service or repair
    your bike. Which one?"; "Which toppings would you like? You can choose mushrooms,
    …" for a custom pizza): when no goal is left to say, or mid-task (a value already
    given) when the bot asks it again and no open goal names one of the options. A
    person with no preference picks one rather than leave mid-task: the first, then
    the next one the bot has not been given for this question."""
    options = offered_options(reply.text, [b.text for b in reply.buttons])
    question = last_question(reply.text)
    if not options or not _free_to_pick(sim, options, question):
        return None
    tried = sim.memory.picked_any.setdefault(question, [])
    taken = [sim.values.get(n) for n in sim.answered]
    option = offered_value(options, tried, taken, sim.choices)
    if option is None:
        return None
    tried.append(option)
    sim.notes.append(f"no goal for {question!r}: picked the offered option {option!r}")
    return press(reply, option) if sim.press_buttons else option


def _free_to_pick(sim: AgendaSimulator, options: list[str], question: str) -> bool:
    """No goal is left; or mid-task (a goal given) the bot asks ``question`` again —
    it needs an answer to go on — and no open goal is among ``options``. Asked once,
    the user says its next goal ("Are you a man or a woman?" is small talk)."""
    open_goals = [g for g in sim.goals if g.status in ("pending", "active")]
    if not open_goals:
        return True
    if not any(g.given for g in sim.goals) or sim.memory.questions.count(question) < 2:
        return False  # the opening's menu, or a question asked once
    for goal in open_goals:
        wanted = [sim.values.get(v) for v in goal.variables] or [goal.text]
        if any(v is not None and best_option(v, options) is not None for v in wanted):
            return False
    return True


def react(sim: AgendaSimulator, act: DialogueAct, reply: Reply, asked: str | None) -> str | None:
    text = reply.text
    directed = sim.context.answer_for(last_question(text))
    if act in {DialogueAct.YES_NO_QUESTION, DialogueAct.CONFIRMATION} and directed:
        return directed
    if act is DialogueAct.YES_NO_QUESTION and _reads_back(sim, text):
        act = DialogueAct.CONFIRMATION  # "Please check: €50 to Alex Smith. Send it? (yes/no)"
    correction = _correction(sim, text, act) if act in CONFIRMING else None
    if correction is not None:
        return correction
    if act in {DialogueAct.REQUEST, DialogueAct.OFFER}:
        return _answer(sim, reply, asked) or (directed if act is DialogueAct.OFFER else None)
    if act is DialogueAct.CONFIRMATION:
        return "Yes, that's right."
    if act is DialogueAct.YES_NO_QUESTION:
        return _yes_no(sim, text)
    if act is DialogueAct.CLOSING_QUESTION:
        return _closing_question(sim, text)
    return None


def _reads_back(sim: AgendaSimulator, text: str) -> bool:
    """Whether a yes/no question asks the user to confirm a summary of their values: read
    as a confirmation, it states two of the user's values or contradicts one
    (``sparring.confirmation`` through ``AgendaState.read_back``)."""
    wrong, agreed = sim.state.read_back(text, DialogueAct.CONFIRMATION)
    return bool(wrong) or len(agreed) >= _READ_BACK_VALUES


_READ_BACK_VALUES = 2
"""The user's values a yes/no question's turn must state to be a summary to confirm."""


def _closing_question(sim: AgendaSimulator, text: str) -> str | None:
    """ "Anything else I can do for you?": the next goal when the agenda holds one (the
    active goal, its values given, is met: the chatbot moved on), else goodbye."""
    if "directives" in sim.disabled:
        return _YES
    active = sim.state.active()
    if active is not None and active.variables <= active.given:
        active.status, active.evidence = "done", text[:200]
    if sim.state.active() is not None:
        return None  # the active goal still waits: say it again (the caller's next goal)
    pending = [g for g in sim.goals if g.status == "pending"]
    if pending:
        return sim.state.activate(pending[0])
    if "evidence" in sim.disabled:
        return None
    sim.memory.goodbye = True
    return "No, thanks. Goodbye!"


def _answer(sim: AgendaSimulator, reply: Reply, asked: str | None) -> str | None:
    """The value the chatbot asks for: a goal variable (its offered option if any), or a
    fact of the context; ``None`` when it asks for nothing the user knows."""
    options = offered_options(reply.text, [b.text for b in reply.buttons])
    if asked is None:
        fact = sim.context.fact_for(last_question(reply.text))
        if fact is not None:
            return fact.value
        return None
    if is_placeholder(sim.values[asked]):
        return _instead_of_placeholder(sim, reply, asked, options)
    if options:
        sim.state.offered[asked] = options
    _after_refusal(sim, reply.text, asked)
    if "vague_answers" in sim.behaviours and asked not in sim.memory.vague_asked:
        sim.memory.vague_asked.add(asked)
        sim.memory.vague_pending = asked
        return sim.rng.choice(VAGUE)
    option = best_option(sim.values[asked], options) if options else None
    question = last_question(reply.text)
    when_asked = any(p.search(question) for p in ASKS_FOR.values())
    if (
        option is not None
        and not values_mentioned(sim.values[asked], option)
        # "Physical examination" of "tomorrow 6 pm Physical examination" when only
        # the service is asked; the whole value when the date or time is asked too
        and (when_asked or not only_when_besides(sim.values[asked], option))
    ):
        option = None  # "Water" for "2 bottles of water": the user's own words stay
    together = _when_together(sim, asked, last_question(reply.text))
    if together is not None:
        return together
    if option is not None and sim.press_buttons:
        sim.answered.add(asked)
        sim.state.mark_given(asked)
        return press(reply, option)
    said = give(sim, asked, option)
    if said != (option or render_value(sim.values[asked])):
        return said  # a change of mind, said in a sentence of its own
    return framed(sim.answer_frame, said, sim.values[asked], chosen=option is not None)


def improvise(sim: AgendaSimulator, reply: Reply) -> str | None:
    """A plausible value of the kind a request asks for that no variable of the
    profile answers ("What time?" to a profile with a day only, ``_slots``), once no
    goal is left to say: the user answers an open question rather than say goodbye
    to it; the same value each time it is asked, noted."""
    question = last_question(reply.text)
    kinds = question_kinds(question)
    if reply.buttons or _open_goal_answers(sim, kinds):
        return None
    own = [v for v in flat_values(sim.values) if form_of(v) in kinds]
    value = sim.memory.improvised.get(kinds) or (
        render_value(own[0]) if own else plausible_value(kinds, sim.choices)
    )
    if value is not None and kinds not in sim.memory.improvised:
        sim.memory.improvised[kinds] = value
        sim.notes.append(f"no variable for {question!r}: answered {value!r}")
    return value


def _after_refusal(sim: AgendaSimulator, text: str, asked: str) -> None:
    """The chatbot refuses the value the user gave and asks for it again ("The shop
    is closed on weekend. Please select other day"): the user wants the variable's
    next option of the profile from then on (once per variable; recorded in
    ``changed_variables`` like a change of mind, so checks compare with it)."""
    if asked not in sim.state.given() or asked in sim.memory.refused:
        return
    if not _REFUSAL.search(text):
        return
    others = sim.state.others(asked)  # the profile's next option, else a plausible one
    kind = form_of(sim.values[asked])
    new = others[0] if others else plausible_value(frozenset({kind} if kind else ()), sim.choices)
    if new is None or norm(new) == norm(sim.values[asked]):
        return
    sim.memory.refused.add(asked)
    old = render_value(sim.values[asked])
    sim.values[asked] = sim.changed_variables[asked] = new
    sim.memory.protected.append(render_value(new))
    sim.notes.append(f"{asked}: the chatbot refused {old!r}; gave {render_value(new)!r}")


def _open_goal_answers(sim: AgendaSimulator, kinds: frozenset[str]) -> bool:
    """Whether a goal still to say may answer a question asking for ``kinds``: one
    with a value (no placeholder) of one of them or of no known kind (free text)."""
    for goal in sim.goals:
        if goal.status not in ("pending", "active"):
            continue
        values = [sim.values.get(n) for n in goal.variables]
        values = [v for v in values if v is not None and not is_placeholder(v)]
        if any(form_of(v) is None or form_of(v) in kinds for v in values):
            return True
        if not goal.variables and not kinds:
            return True
    return False


def _instead_of_placeholder(
    sim: AgendaSimulator, reply: Reply, asked: str, options: list[str]
) -> str:
    """A placeholder asked for: an option the bot offers becomes the user's value (its
    goal then waits for it); with none, a plausible value of the kind the question asks
    for ("How much would you like to send?": a number, ``_slots.plausible_value``); else
    the user asks once what there is, then the goal fails (nothing to choose from)."""
    taken = [sim.values.get(n) for n in sim.answered if n != asked]
    option = offered_value(options, (), taken, sim.choices)
    if option is None and not reply.buttons:
        option = plausible_value(question_kinds(last_question(reply.text)), sim.choices)
    if option is not None:
        sim.notes.append(f"{asked}: a placeholder; took the value {option!r}")
        sim.values[asked] = option
        return _answer(sim, reply, asked) or option
    if asked not in sim.memory.asked_options:
        sim.memory.asked_options.add(asked)
        return ask_for_options(placeholder_words(sim.values[asked]) or "")
    for goal in sim.goals:
        if asked in goal.variables and goal.status in ("pending", "active"):
            goal.fail(f"{asked} is a placeholder and the chatbot offered no value")
    return sim.next_goal() or GOODBYE


def _when_together(sim: AgendaSimulator, asked: str, question: str) -> str | None:
    """ "tomorrow at 10:00" when the chatbot asks for the date and the time at once."""
    if not (ASKS_FOR["date"].search(question) and ASKS_FOR["time"].search(question)):
        return None
    kinds = {n: value_kind_of(v) for n, v in sim.values.items() if isinstance(v, str)}
    day = [n for n, k in kinds.items() if k == "date"]
    hour = [n for n, k in kinds.items() if k == "time"]
    if len(day) != 1 or len(hour) != 1 or asked not in (day[0], hour[0]):
        return None
    give(sim, hour[0])
    return f"{give(sim, day[0])} at {sim.values[hour[0]]}"


def give(sim: AgendaSimulator, name: str, said_as: str | None = None) -> str:
    """The value of variable ``name`` (``change your mind``: after another one)."""
    sim.answered.add(name)
    sim.state.mark_given(name)
    value = said_as or render_value(sim.values[name])
    sim.memory.last_value = value
    if sim.change_mind and not sim.memory.mind_changed:
        other = _alternative(sim, name)
        if other is not None:
            sim.memory.mind_changed = True
            return change_your_mind(value, value, other, sim.rng)
    return value


def _yes_no(sim: AgendaSimulator, text: str) -> str:
    """Yes to what the goals want, the next goal to "anything else?", else no."""
    if "directives" in sim.disabled:
        return _YES
    question = last_question(text)
    pending = [g for g in sim.goals if g.status == "pending"]
    for goal in pending:
        if overlap(question, goal.text) >= 0.5 or any_mentioned(
            [sim.values.get(v) for v in goal.variables], question
        ):
            return "Yes. " + sim.state.activate(goal)
    anything_else = re.search(r"\b(?:anything|something) (?:else|more)\b", question, re.I)
    if anything_else and pending:
        return "Yes. " + sim.state.activate(pending[0])
    active = sim.state.active()
    if anything_else and active is not None and active.variables <= active.given:
        active.status, active.evidence = "done", text[:200]  # the chatbot moved on
        active = None
    if anything_else and active is None and "evidence" not in sim.disabled:
        sim.memory.goodbye = True  # nothing left to ask: the user leaves
        return "No, thanks. Goodbye!"
    wanted = [render_value(v) for v in sim.values.values() if v is not None]
    if any_mentioned(wanted, question) or any(overlap(question, g.text) >= 0.5
                                              for g in sim.goals):  # fmt: skip
        return _YES
    return _NO


def _correction(sim: AgendaSimulator, text: str, act: DialogueAct) -> str | None:
    """ "No, I asked for X" (once per variable) when the chatbot's confirmation states
    another value than the user's for a variable the user gave, or states it empty."""
    if "read_back" in sim.disabled:
        return None
    for name in sim.state.read_back(text, act)[0]:
        if name not in sim.state.corrected:
            sim.state.corrected.add(name)
            return f"No, I asked for {render_value(sim.values[name])}"
    return None


def _alternative(sim: AgendaSimulator, name: str) -> str | None:
    others = sim.state.others(name)
    return render_value(sim.rng.choice(others)) if others else None
