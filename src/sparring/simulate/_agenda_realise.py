"""The agenda user's realisation: the words of its goals and of its persona behaviours.

After Schatzmann et al., "Agenda-Based User Simulation for Bootstrapping a POMDP Dialogue
System" (NAACL 2007), §3, which separates the user's acts (the agenda, the policy) from
their surface form. Here a goal's utterances (the profile's words made natural,
``_phrasing``; one seeded order of phrasings), its bare request for a chatbot that did not
understand it whole, and the words of the persona behaviours ``repeat_question`` and
``change_goal``. The interaction styles' text transforms are ``_styles``'s.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from sparring.connectors import Reply
from sparring.simulate._agenda_state import norm
from sparring.simulate._goals import Goal
from sparring.simulate._phrasing import goal_utterances, is_question, rephrasings, strip_scaffolding
from sparring.simulate._slots import form_of
from sparring.simulate._spec import render_value

if TYPE_CHECKING:
    from sparring.simulate._agenda import AgendaSimulator

__all__ = [
    "ANSWER_FRAMES",
    "VAGUE",
    "VALUE_AGAIN",
    "bare_request",
    "build_goal",
    "change_goal",
    "framed",
    "press",
    "repeat",
]

ANSWER_FRAMES = ("{v}", "{v}, please.", "It's {v}.")
"""How a user answers a request for a date, a time or a number (one per conversation,
drawn by its seed): a terse user says the value alone, a polite one adds "please"."""
_FRAMED_KINDS = frozenset({"date", "time", "number"})

_TEMPLATE_VARIABLE = re.compile(r"\{\{\s*(\w+)\s*\}\}")
VAGUE = ("Not sure, something normal I guess.", "Whatever you think is best.", "Hmm, the usual?")
"""A vague answer (persona behaviour ``vague_answers``)."""
VALUE_AGAIN = ("{v}", "{v}, please.", "I'd like {v}.", "It's {v}.")
"""The value said again after a fallback, in other words each time."""
_AGAIN = ("Sorry, again: {u}", "I asked: {u}", "Once more: {u}")
_CHANGES = (
    "Actually, can I change the {name} to {value}?",
    "Wait, I'd rather have {value} as the {name}.",
    "Change of plan: make the {name} {value}, please.",
)
_FUNCTION_WORDS = frozenset(
    re.findall(
        r"\w+", "a an the to on at for in of from with by my your our and or about as is are be"
    )
)


def build_goal(sim: AgendaSimulator, text: str, template: str) -> Goal:
    names = frozenset(_TEMPLATE_VARIABLE.findall(template)) & set(sim.spec.variables)
    said = [text] if "phrasing" in sim.disabled else goal_utterances(text)
    first = sim.rng.randrange(len(said))
    said = said[first:] + said[:first]
    if len(said) == 1:
        said += rephrasings(said[0])
    core = strip_scaffolding(text)
    value_only = len(names) == 1 and norm(core) == norm(
        render_value(sim.spec.variables[next(iter(names))])
    )  # "{{greeting}}": any answer meets it, the chatbot need not repeat it
    if value_only and "phrasing" not in sim.disabled:  # the profile's words, verbatim
        said = [text.strip()]
    goal = Goal(text, names, said, question=is_question(core) or value_only)
    goal.verbatim = value_only
    return goal


def bare_request(sim: AgendaSimulator, goal: Goal) -> str | None:
    """The goal's request said without its values, for a chatbot that did not
    understand it whole ("Book an appointment to {{kind}} my bike on {{day}}" →
    "I'd like to book an appointment"): the words before its first variable, function
    words at their end dropped; ``None`` for a question goal, a goal without
    variables, or fewer than two words left."""
    template = dict(zip(sim.spec.goals, sim.spec.goal_templates, strict=False)).get(goal.text)
    if template is None or goal.question or not goal.variables or "{{" not in template:
        return None
    words = template.split("{{", 1)[0].split()
    while words and words[-1].lower().strip(",") in _FUNCTION_WORDS:
        words.pop()
    if len(words) < 2 or "phrasing" in sim.disabled:
        return None
    return goal_utterances(" ".join(words))[0]


def repeat(sim: AgendaSimulator) -> str | None:
    """``repeat_question``: the goal just answered, asked again (once)."""
    if "repeat_question" not in sim.behaviours or sim.memory.repeated:
        return None
    done = [g for g in sim.goals if g.status == "done"]
    if not done or sim.memory.last_utterance not in done[-1].utterances:
        return None
    sim.memory.repeated = True
    return sim.rng.choice(_AGAIN).format(u=sim.memory.last_utterance)


def change_goal(sim: AgendaSimulator) -> str | None:
    """``change_goal``: a variable already given changes to another option (once)."""
    if "change_goal" not in sim.behaviours or sim.changed_variables:
        return None
    given = [n for n in sim.spec.variables if n in sim.answered and sim.state.others(n)]
    if not given:
        return None
    name = sim.rng.choice(given)
    new = sim.rng.choice(sim.state.others(name))
    old, value = render_value(sim.values[name]), render_value(new)
    sim.values[name] = sim.changed_variables[name] = new
    sim.answered.discard(name)  # asked again, the user gives the new value
    sim.memory.protected.append(value)
    sim.notes.append(
        f"changed goal variable '{name}' from {old!r} to {value!r} (persona behaviour change_goal)"
    )
    label = name.replace("_", " ")
    return sim.rng.choice(_CHANGES).format(name=label, value=value)


def press(reply: Reply, option: str) -> str:
    """What pressing the button ``option`` sends: its payload when it is an intent."""
    for button in reply.buttons:
        if button.text == option and button.link and button.link.startswith("/"):
            return button.link
    return option


def framed(frame: str, said: str, value: Any, *, chosen: bool) -> str:
    """``said`` (the value answering a request) in the user's answer ``frame`` when it is
    a date, a time or a number the user says in its own words; an option chosen among the
    chatbot's (``chosen``: a button's or a menu's text, which a chatbot may match exactly)
    and other values (a name, a phone number, free text) alone, as a form would take
    them."""
    if chosen or form_of(value) not in _FRAMED_KINDS:
        return said
    return frame.format(v=said)
