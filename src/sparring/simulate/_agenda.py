"""The offline, agenda-based user simulator: the turn, from the chatbot's reply to the
user's next utterance.

After Schatzmann et al., "Agenda-Based User Simulation for Bootstrapping a POMDP Dialogue
System" (NAACL 2007): the user's goals form a stack-like agenda, and each turn the user
reacts to the system's dialogue act. Four small parts, none with per-bot branches:

- **state** (``_agenda_state``): the goals, the values the user wants and gave, what the
  chatbot's confirmations said about them, the user's memory between turns; goal
  evidence in ``_goals``;
- **act classification** (``sparring.dialogue_acts``), read against the user's state by
  ``_agenda_read`` and tied to the user's goal by ``_agenda_policy`` (which variable a
  request or an offer asks for, typed by ``_slots``);
- **policy** (``_agenda_react``; the turn, fallbacks and the next goal here): which user
  act answers the chatbot's act;
- **realisation** (``_agenda_realise``, ``_phrasing``, ``_styles``): the words.

The policy, by the chatbot's act:

- **request(slot)** or **offer(options)** of one of its goal variables: the value, of
  the kind the question asks for (never a phone number to "What's your name?"), or the
  offered option that names it, typed as the chatbot wrote it (buttons pressed only with
  ``press_buttons``); a request for something the profile's ``context`` states ("your name
  is John Doe"): that fact; a request of a kind no goal answers ("What time?" to a profile
  with a day only): a plausible value of that kind (``_slots.plausible_value``), never a
  goodbye to an open question; a value the chatbot refuses and asks again ("closed on
  weekend … What day?"): the profile's next option; an offer made again after the user
  chose from it: the same choice, never a placeholder filled with another option;
- **confirm(values)**, or a statement that reads values back: checked against the user's
  values (``sparring.confirmation``) and contradicted once, only where it differs ("No, I
  asked for suite"); a correct one gets "Yes, that's right." when it asks;
- **yes/no question**: the profile's context directives first ("if asked for more
  toppings, reply 'No'", ``_directives``); "Yes" to what the goals want, "No, thanks." to
  extras nobody asked for;
- **closing question** ("Anything else I can do for you?"): the next goal, or a goodbye
  when the agenda is empty;
- **inform** (an answer, a price list — information, not an offer to choose), **closing**:
  the next goal of the agenda, said naturally (``_phrasing``: scaffolding such as "First,"
  or ", after ordering the toppings" dropped, seeded phrasings, interaction styles applied
  after);
- **fallback**: the value again in other words, then the goal again — first as the bare
  request when it carried values ("I'd like to book an appointment"); a goal the chatbot
  does not understand ``GIVE_UP`` times is recorded as failed with its reason.

A goal is met when the chatbot answers or confirms after the user gave its values
(``_goals``). When every goal is met the user says goodbye once and ends the conversation.
**Seeded choices.** The conversation's seed (``spec.seed``, from ``--seed``, the profile
and the conversation's index) drives, reproducibly, what the profile leaves to the user:
the phrasing of each goal (``_phrasing``), the
option picked from an offer no goal names and the value improvised for an open request
(``_placeholders.offered_value``, ``_slots.plausible_value``), and how the user frames an
answer that is a date, a time or a number ("6 pm", "6 pm, please.", "It's 6 pm.";
``_agenda_realise``). The same seed gives
the same conversation; another seed another user. The goals keep the profile's order
whatever the seed: a question may depend on an earlier goal without sharing a variable
with it ("What is my name?" after "My name is {{name}}"), and SENSEI's users follow the
list as written.

A long reply is read bounded (``_agenda_read.MAX_READ`` characters: its start and its end,
where it asks its question), so each turn's analysis takes bounded time whatever the
chatbot sends.

A persona's agenda behaviours (``spec.behaviours``, see ``_persona_plan``) make the user
harder to serve: ``vague_answers`` answers the first question about each goal variable
vaguely (the value comes when the chatbot asks again); ``repeat_question`` asks a goal
again, once, after the chatbot answered it; ``change_goal`` changes one variable already
given to another of its options, once, when the chatbot is not asking anything — the new
value is what the user wants from then on (``changed_variables``, which the runner puts on
the record).

With the ``off topic when asked`` style (``_agenda_detour``), asked for a value the user
first says the goal its profile lists before that value's goal, and answers when asked
again; the chatbot's fallback to that detour meets it.

``disabled`` switches abilities off for the ablation benchmark
(``benchmarks/bench_offline_user.py``): ``phrasing`` (goals sent as written), ``directives``
(context ignored; every yes/no question answered "Yes"), ``acts`` (no dialogue acts: a
question is any reply with a question cue), ``evidence`` (a goal is met by any reply
that is not the fallback), ``typed`` (a request may be answered with a value of another
kind), ``read_back`` (confirmations are not read back against the user's values) and
``synonyms`` (the chatbot's words for a value, ``spec.synonyms``, are ignored).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from sparring.connectors import Reply
from sparring.dialogue_acts import DialogueAct, offered_options
from sparring.simulate._agenda_detour import back_from_detour, detour
from sparring.simulate._agenda_policy import last_question
from sparring.simulate._agenda_react import GOODBYE, any_option, give, improvise, react
from sparring.simulate._agenda_read import ASKING, bounded, dialogue_act, observe_reply
from sparring.simulate._agenda_realise import (
    ANSWER_FRAMES,
    VALUE_AGAIN,
    bare_request,
    build_goal,
    change_goal,
    repeat,
)
from sparring.simulate._agenda_state import AgendaMemory, AgendaState
from sparring.simulate._base import Exchange
from sparring.simulate._directives import read_context
from sparring.simulate._goals import GIVE_UP, Goal
from sparring.simulate._persona_agenda import follow_up, is_instruction, opening
from sparring.simulate._placeholders import adapt_goal
from sparring.simulate._spec import ConversationSpec, render_value
from sparring.simulate._styles import apply_style, canonical_style, needs_model
from sparring.values import Synonyms

ABILITIES = frozenset(
    {"phrasing", "directives", "acts", "evidence", "typed", "read_back", "synonyms"}
)
"""Abilities ``disabled`` may name (see the module docstring)."""


class AgendaSimulator:
    """Agenda-driven user simulator (see the module docstring).

    Styles applied by deterministic text transforms: ``make spelling mistakes``,
    ``long phrases``, ``short phrases``, ``change your mind``; ``single question``,
    ``all questions`` and ``default`` shape the agenda. Styles that need a model (e.g.
    ``change language``) are recorded in ``notes`` and not applied. Raises ``ValueError``
    for an unknown name in ``disabled``.
    """

    def __init__(self, spec: ConversationSpec, rng: random.Random | None = None, *,
                 press_buttons: bool = False, disabled: Iterable[str] = ()) -> None:  # fmt: skip
        self.spec = spec
        self.rng = rng or random.Random(spec.seed)
        self.choices = random.Random(f"choices/{spec.seed}")
        """The user's free choices where the profile leaves them open (module docstring,
        *Seeded choices*); apart from ``rng`` so that adding one changes no other draw."""
        self.answer_frame = self.choices.choice(ANSWER_FRAMES)
        self.disabled = frozenset(disabled)
        if self.disabled - ABILITIES:
            raise ValueError(f"unknown abilities: {sorted(self.disabled - ABILITIES)}")
        self.press_buttons = press_buttons
        self.notes: list[str] = []
        templates = dict(zip(spec.goals, spec.goal_templates, strict=False))
        task = spec.persona.task if spec.persona is not None else None
        self.persona_alone = task is not None and spec.goals == (task,) and is_instruction(task)
        """A persona playing alone whose task is an instruction: never sent (_persona_agenda)."""
        goals = () if self.persona_alone else spec.goals
        built = [build_goal(self, g, templates.get(g, g)) for g in goals]
        self.state = AgendaState(
            built,
            dict(spec.variables),
            spec.alternatives,
            synonyms=spec.synonyms if "synonyms" not in self.disabled else Synonyms(),
        )
        """The user's state: goals, the values wanted and given (``_agenda_state``)."""
        self.bare_requests = {
            g.text: b for g in self.goals if (b := bare_request(self, g)) is not None
        }
        """Goal → its request without its values ("I'd like to book an appointment")."""
        for goal in self.goals:
            adapted = adapt_goal(goal, spec.variables)
            if adapted is not None:
                self.notes.append(adapted)
        self.context = read_context(spec.context if "directives" not in self.disabled else ())
        self.memory = AgendaMemory(
            [render_value(v) for v in spec.variables.values() if v is not None]
        )
        """What the user remembers between turns (``_agenda_state.AgendaMemory``)."""
        styles = spec.style_names()
        self.styles = frozenset(canonical_style(s) for s in styles)
        self.all_at_once = "all questions" in styles
        transforms = ("long phrases", "short phrases", "make spelling mistakes")
        self.text_styles: list[str] = [s for s in transforms if s in styles]
        self.change_mind = "change your mind" in styles
        for style in styles:
            if needs_model(style):
                self.notes.append(f"interaction style '{style}' needs a model; not applied")
        self.changed_variables: dict[str, Any] = {}
        self.behaviours = set(spec.behaviours)
        for behaviour in sorted(self.behaviours & {"change_goal", "vague_answers"}):
            if not spec.variables:
                self.notes.append(f"behaviour '{behaviour}' needs a goal variable; not applied")

    @property
    def goals(self) -> list[Goal]:
        return self.state.goals

    @property
    def values(self) -> dict[str, Any]:
        """What the user wants now (``change_goal`` may change one value)."""
        return self.state.values

    @property
    def answered(self) -> set[str]:
        return self.state.answered

    def goals_left(self) -> int:
        return sum(1 for g in self.goals if g.status != "done")

    def goal_failures(self) -> dict[str, str]:
        """Each goal not met and why (for ``goal_not_completed``)."""
        return {g.text: g.why_not() for g in self.goals if g.status != "done"}

    def dialogue_act(self, reply: Reply, fallback: bool) -> DialogueAct:
        """The act of ``reply`` as this simulator reads it (``acts`` disabled: cue words)."""
        return dialogue_act(reply, fallback, acts="acts" not in self.disabled)

    def observe(self, exchange: Exchange) -> tuple[DialogueAct, str | None]:
        """Read the chatbot's last reply: its act and the variable it asks for, and the
        evidence it gives for the active goal (the runner calls this for the last reply of
        a conversation cut by its turn limit; ``_agenda_read``), at most ``MAX_READ``
        characters of it."""
        return observe_reply(self, bounded(exchange))

    async def next_utterance(self, exchange: Exchange) -> str | None:
        vague = self.memory.vague_pending
        utterance = self._choose(exchange)
        if self.memory.vague_pending == vague:
            self.memory.vague_pending = None  # a vague answer counts for one chatbot turn
        if utterance is None:
            return None
        self.memory.last_utterance = utterance
        active = self.state.active()
        if active is not None:
            active.turns += 1
        for style in self.text_styles:
            utterance = apply_style(style, utterance, self.rng, protected=self.memory.protected)
        return utterance

    def _choose(self, exchange: Exchange) -> str | None:
        exchange = bounded(exchange)  # a long reply is read in bounded time
        reply = exchange.reply
        if self.memory.goodbye:
            return None  # said goodbye: whatever the chatbot adds, the user has left
        if self.persona_alone:
            return self._as_persona(exchange)
        if reply is None:
            return self.next_goal()
        act, asked = self.observe(exchange)
        self.memory.questions.append(last_question(reply.text))
        back = back_from_detour(self, act, reply)
        if back is not None:
            return back
        if act is DialogueAct.FALLBACK:
            return self._after_fallback()
        self.memory.last_value, self.memory.value_tries = None, 0
        said = detour(self, asked, reply) if act in ASKING else None
        answer = said or react(self, act, reply, asked)
        if answer is not None:
            return answer
        active = self.state.active()
        if (
            act in ASKING
            and active is not None
            and active.unconfirmed is None  # a contradicted goal waits for its value
            and active.variables <= active.given
        ):
            active.status = "done"  # the chatbot took it and asks the next thing
            active.evidence = f"the chatbot moved on: {reply.text[:160]}"
        return (
            repeat(self)
            or change_goal(self)
            or (any_option(self, reply) if act in ASKING else None)
            or (improvise(self, reply) if act is DialogueAct.REQUEST else None)
            or self.next_goal()
        )

    def _after_fallback(self) -> str | None:
        if self.memory.vague_pending is not None:
            return give(self, self.memory.vague_pending)  # not understood: now precisely
        if self.memory.last_value is not None and self.memory.value_tries < len(VALUE_AGAIN) - 1:
            self.memory.value_tries += 1
            return VALUE_AGAIN[self.memory.value_tries].format(v=self.memory.last_value)
        active = self.state.active()
        if active is None:
            return self.next_goal()
        active.fallbacks += 1
        if active.fallbacks >= (1 if active.verbatim else GIVE_UP):  # a mumble is not retried
            not_understood = f"the chatbot did not understand it {active.fallbacks} times"
            active.fail(
                f"{active.why_not()}; then {not_understood}"
                if active.unconfirmed is not None
                else not_understood
            )
            self.notes.append(f"moved on from goal {active.text!r} after {GIVE_UP} fallbacks")
            return self.next_goal()
        bare = self.bare_requests.get(active.text)
        if bare is not None and active.fallbacks == 1 and not active.question:
            return bare  # not understood with its values: the request alone, values when asked
        active.phrasing += 1
        return active.utterances[active.phrasing % len(active.utterances)]

    def next_goal(self) -> str | None:
        active = self.state.active()
        if active is not None:
            active.status = "done" if "evidence" in self.disabled else active.status
            if active.status == "active":
                return active.utterances[active.phrasing % len(active.utterances)]
        self.state.settle()
        pending = [g for g in self.goals if g.status == "pending"]
        if not pending:
            return self._goodbye_once()
        chosen = pending if self.all_at_once else pending[:1]
        for goal in chosen:
            self.state.start(goal)
        if len(chosen) > 1:
            for goal in chosen[1:]:
                goal.status = "done"  # said at once; the chatbot's replies judge the first
            return " ".join(g.utterances[0] for g in chosen)
        return chosen[0].utterances[0]

    def _goodbye_once(self) -> str | None:
        if self.memory.goodbye or "evidence" in self.disabled:
            return None
        self.memory.goodbye = True
        return GOODBYE

    def _as_persona(self, exchange: Exchange) -> str | None:
        """A persona playing alone: a plain opening, then a curious user's follow-ups."""
        reply = exchange.reply
        if reply is None:
            chatbot = self.spec.chatbot
            about = (chatbot.description or chatbot.name) if chatbot is not None else None
            said = opening(about, self.rng)
        else:
            act = exchange.act or self.dialogue_act(reply, exchange.fallback)
            options = offered_options(reply.text, [b.text for b in reply.buttons])
            said = follow_up(act, options, self.memory.said, self.rng)  # type: ignore[assignment]
            if said is None:
                self.notes.append(
                    f"the persona's conversation ended after {len(self.memory.said)} user turns: "
                    "the chatbot closed it"
                )
                return None
        self.memory.said.append(said)
        return said
