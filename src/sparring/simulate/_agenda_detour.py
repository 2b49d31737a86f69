"""The ``off topic when asked`` interaction style (sparring's addition): asked for one of
its values, the user first says the goal its profile lists before that value's goal — a
request the chatbot is not asking about, such as "can you book me a taxi" while it waits
for the drink — and answers the question when the chatbot asks it again.

SENSEI's users follow their goal list as written, so a profile that puts an off-topic
request before a value tests how the chatbot handles it *during* its form (SENSEI's
off-topic profiles, e.g. ``catalina_off_topic``; Ferreira et al., "SENSEI", 2025, §3); the
agenda user, which answers a request first (Schatzmann et al., NAACL 2007, §3), does so
only with this style. The chatbot declining the detour with its fallback meets that goal
(an out-of-scope request is rightly not served) and the user goes back to the question
the fallback reply asks. Once per question; no per-bot branches.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sparring.connectors import Reply
from sparring.dialogue_acts import DialogueAct
from sparring.simulate._agenda_policy import asked_variable, last_question
from sparring.simulate._agenda_react import react

if TYPE_CHECKING:
    from sparring.simulate._agenda import AgendaSimulator

STYLE = "off topic when asked"
DECLINED = "the chatbot declined the off-topic request with its fallback"


def detour(sim: AgendaSimulator, asked: str | None, reply: Reply) -> str | None:
    """The goal listed before ``asked``'s own goal, said instead of the answer (module
    docstring); ``None`` when the style is off, the question was detoured from before,
    or no pending goal comes before the one the chatbot asks about."""
    question = last_question(reply.text)
    if STYLE not in sim.styles or asked is None or question in sim.memory.detoured:
        return None
    order = sim.goals
    target = next((i for i, g in enumerate(order) if asked in g.variables), None)
    if target is None:
        return None
    before = [g for g in order[:target] if g.status == "pending" and asked not in g.variables]
    if not before:
        return None
    sim.memory.detoured[question] = before[0].text
    sim.notes.append(f"asked {question!r}: said {before[0].text!r} first ({STYLE})")
    return sim.state.activate(before[0])


def back_from_detour(sim: AgendaSimulator, act: DialogueAct, reply: Reply) -> str | None:
    """After a detour the chatbot declined (its fallback): that goal is met and the user
    answers the question the reply asks (``None``: it asks none the user can answer, or
    this reply follows no detour)."""
    active = sim.state.active()
    if act is not DialogueAct.FALLBACK or active is None:
        return None
    if active.text not in sim.memory.detoured.values():
        return None
    active.status, active.evidence = "done", DECLINED
    asked = asked_variable(sim.state, reply)
    if asked is None:
        return sim.next_goal()
    return react(sim, DialogueAct.REQUEST, reply, asked) or sim.next_goal()
