"""The agenda user reads the chatbot's reply: its dialogue act, the goal variable it asks
for, and the evidence it gives about the user's goals.

After Schatzmann et al., "Agenda-Based User Simulation for Bootstrapping a POMDP Dialogue
System" (NAACL 2007), §3: each system act updates the user state before the user acts —
goals the system took or confirmed are popped, a confirmation that contradicts a value
reopens its goal. The act comes from ``sparring.dialogue_acts`` (or, with ``acts``
disabled, from question cue words); which variable it asks for from ``_agenda_policy``;
the state changes through ``_agenda_state`` and each goal's ``_goals.Goal.observe``.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from sparring.connectors import Reply
from sparring.dialogue_acts import DialogueAct, classify_dialogue_act, offered_options
from sparring.profiles import is_placeholder
from sparring.simulate._agenda_policy import asked_variable, last_question, listed_variable
from sparring.simulate._base import Exchange
from sparring.simulate._goals import MAX_GOAL_TURNS
from sparring.simulate._matching import best_option, overlap

if TYPE_CHECKING:
    from sparring.simulate._agenda import AgendaSimulator

__all__ = ["ASKING", "CLOSES", "MAX_READ", "bounded", "dialogue_act", "observe_reply"]

MAX_READ = 4096
"""Characters of a chatbot reply the agenda user reads: its first three quarters from the
start, the last quarter from the end (where a long reply asks its question). Every
analysis of a reply (act, asked variable, read-back, evidence) is then bounded whatever
the reply's length (issue 36: 64 KB replies)."""
MAX_BUTTONS = 50
"""Buttons of a reply the agenda user reads."""

ASKING = frozenset({DialogueAct.REQUEST, DialogueAct.OFFER})
"""Acts that ask the user for a value."""
CLOSES = frozenset({DialogueAct.CLOSING, DialogueAct.CONFIRMATION, DialogueAct.CLOSING_QUESTION})
"""Acts that may state the values of goals the user said ahead of time."""
_QUESTION_CUES = re.compile(
    r"\?|\b(?:which|what|how many|how much|please (?:choose|select|tell|provide|specify|"
    r"enter)|choose|select)\b",
    re.IGNORECASE,
)


def bounded(exchange: Exchange) -> Exchange:
    """``exchange`` with its reply cut to what the user reads (``MAX_READ`` characters,
    cut at a space, the parts joined by a line break; ``MAX_BUTTONS`` buttons); the same
    exchange when the reply is within them. Linear in the reply's length."""
    reply = exchange.reply
    if reply is None:
        return exchange
    text = "\n".join(reply.messages)
    if len(text) <= MAX_READ and len(reply.buttons) <= MAX_BUTTONS:
        return exchange
    if len(text) > MAX_READ:
        head, tail = text[: MAX_READ * 3 // 4], text[-(MAX_READ // 4) :]
        head = head[: head.rfind(" ")] if " " in head else head
        tail = tail[tail.find(" ") + 1 :] if " " in tail else tail
        text = f"{head}\n{tail}"
    cut = reply.model_copy(update={"messages": [text], "buttons": reply.buttons[:MAX_BUTTONS]})
    return replace(exchange, reply=cut)


def dialogue_act(reply: Reply, fallback: bool, *, acts: bool = True) -> DialogueAct:
    """The act of ``reply`` (``sparring.dialogue_acts``); without ``acts`` (the ablation):
    a request when it has a question cue or buttons, else inform."""
    if not acts:
        if fallback:
            return DialogueAct.FALLBACK
        question = _QUESTION_CUES.search(reply.text) or reply.buttons
        return DialogueAct.REQUEST if question else DialogueAct.INFORM
    return classify_dialogue_act(reply.text, [b.text for b in reply.buttons], fallback=fallback)


def observe_reply(sim: AgendaSimulator, exchange: Exchange) -> tuple[DialogueAct, str | None]:
    """Read the chatbot's last reply: its act and the variable it asks for, and the
    evidence it gives for the active goal (the runner calls this for the last reply of
    a conversation cut by its turn limit)."""
    reply = exchange.reply
    if reply is None:
        return DialogueAct.INFORM, None
    act = exchange.act if "acts" not in sim.disabled else None
    act = act or sim.dialogue_act(reply, exchange.fallback)
    typed = "typed" not in sim.disabled
    asked = asked_variable(sim.state, reply, typed=typed) if act in ASKING else None
    listed = listed_variable(sim.state, reply.text) if act is DialogueAct.INFORM else None
    if listed is not None:  # "I can tell you the price of tune-up, new tire and new seat"
        act, asked = DialogueAct.OFFER, listed
    if act is DialogueAct.OFFER and "evidence" not in sim.disabled:
        _options_shown(sim, reply)
    if not sim.disabled & {"evidence", "read_back"}:
        sim.state.check_read_back(reply.text, act)
    sim.state.settle()
    closing = act in CLOSES
    if closing and "evidence" not in sim.disabled:  # a list of options confirms nothing
        sim.state.confirmed_ahead(reply.text)
    active = sim.state.active()
    if active is None:
        return act, asked
    if "evidence" in sim.disabled:
        if act is not DialogueAct.FALLBACK:
            active.status = "done"
        return act, asked
    active.observe(act, reply.text, asked)
    if active.status == "active" and act is not DialogueAct.FALLBACK:
        if reply.text == active.last_reply and act is DialogueAct.INFORM:
            again = f"the chatbot gave the same answer again: {reply.text[:160]!r}"
            active.fail(f"{active.why_not()}; then {again}" if active.unconfirmed else again)
            sim.notes.append(f"moved on from goal {active.text!r}: {active.reason}")
        active.last_reply = reply.text
    if active.status == "active" and active.turns >= MAX_GOAL_TURNS:
        active.fail(
            active.why_not()
            if active.unconfirmed is not None
            else f"no evidence in the chatbot's replies after {active.turns} turns"
        )
        sim.notes.append(f"moved on from goal {active.text!r}: {active.reason}")
    return act, asked


def _options_shown(sim: AgendaSimulator, reply: Reply) -> None:
    """A goal whose every variable is a placeholder asks what there is to choose
    (``_placeholders.adapt_goal``): an offer whose question names the variable, and
    among whose options the user already chose a value of another variable, answers
    it ("the service you need? The services we offer are …" for ``need``)."""
    question = last_question(reply.text)
    options = offered_options(reply.text, [b.text for b in reply.buttons])
    chosen = [sim.values.get(n) for n in sim.state.given()]
    if not any(v is not None and best_option(v, options) is not None for v in chosen):
        return
    for goal in sim.goals:
        if goal.status not in ("pending", "active") or not goal.variables:
            continue
        if not all(is_placeholder(sim.values.get(n)) for n in goal.variables):
            continue
        if any(overlap(n.replace("_", " "), question) > 0 for n in goal.variables):
            goal.status, goal.evidence = "done", f"options offered: {reply.text[:160]}"
