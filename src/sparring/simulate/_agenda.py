"""The offline, agenda-based user simulator: its policy, which user act comes next.

After Schatzmann et al., "Agenda-Based User Simulation for Bootstrapping a POMDP Dialogue
System" (NAACL 2007): the user's goals form a stack-like agenda, and each turn the user
reacts to the system's dialogue act. Four small parts, none with per-bot branches:

- **state** (``_agenda_state``): the goals, the values the user wants and gave, what the
  chatbot's confirmations said about them; goal evidence in ``_goals``;
- **act classification** (``sparring.dialogue_acts``), tied to the user's goal by
  ``_agenda_policy`` (which variable a request or an offer asks for, typed by ``_slots``);
- **policy** (this module): which user act answers the chatbot's act;
- **realisation** (``_phrasing``, ``_styles``): the words.

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
With a seed, the same conversation is produced every time.

A persona's agenda behaviours (``spec.behaviours``, see ``_persona_plan``) make the user
harder to serve: ``vague_answers`` answers the first question about each goal variable
vaguely (the value comes when the chatbot asks again); ``repeat_question`` asks a goal
again, once, after the chatbot answered it; ``change_goal`` changes one variable already
given to another of its options, once, when the chatbot is not asking anything — the new
value is what the user wants from then on (``changed_variables``, which the runner puts on
the record).

``disabled`` switches abilities off for the ablation benchmark
(``benchmarks/bench_offline_user.py``): ``phrasing`` (goals sent as written), ``directives``
(context ignored; every yes/no question answered "Yes"), ``acts`` (no dialogue acts: a
question is any reply with a question cue), ``evidence`` (a goal is met by any reply
that is not the fallback), ``typed`` (a request may be answered with a value of another
kind) and ``read_back`` (confirmations are not read back against the user's values).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from typing import Any

from sparring.connectors import Reply
from sparring.dialogue_acts import DialogueAct, classify_dialogue_act, offered_options
from sparring.profiles import is_placeholder, placeholder_words
from sparring.simulate._agenda_policy import (
    ASKS_FOR,
    asked_variable,
    last_question,
    listed_variable,
)
from sparring.simulate._agenda_state import CONFIRMING, AgendaState, flat_values, norm
from sparring.simulate._base import Exchange
from sparring.simulate._directives import read_context
from sparring.simulate._goals import GIVE_UP, MAX_GOAL_TURNS, Goal
from sparring.simulate._matching import (
    any_mentioned,
    best_option,
    only_when_besides,
    overlap,
    value_kind_of,
    values_mentioned,
)
from sparring.simulate._persona_agenda import follow_up, is_instruction, opening
from sparring.simulate._phrasing import (
    goal_utterances,
    is_question,
    rephrasings,
    strip_scaffolding,
)
from sparring.simulate._placeholders import adapt_goal, ask_for_options, offered_value
from sparring.simulate._slots import form_of, plausible_value, question_kinds
from sparring.simulate._spec import ConversationSpec, render_value
from sparring.simulate._styles import apply_style, change_your_mind, needs_model

ABILITIES = frozenset({"phrasing", "directives", "acts", "evidence", "typed", "read_back"})
"""Abilities ``disabled`` may name (see the module docstring)."""
_TEMPLATE_VARIABLE = re.compile(r"\{\{\s*(\w+)\s*\}\}")
_QUESTION_CUES = re.compile(
    r"\?|\b(?:which|what|how many|how much|please (?:choose|select|tell|provide|specify|"
    r"enter)|choose|select)\b",
    re.IGNORECASE,
)
_VAGUE = ("Not sure, something normal I guess.", "Whatever you think is best.", "Hmm, the usual?")
_AGAIN = ("Sorry, again: {u}", "I asked: {u}", "Once more: {u}")
_CHANGES = (
    "Actually, can I change the {name} to {value}?",
    "Wait, I'd rather have {value} as the {name}.",
    "Change of plan: make the {name} {value}, please.",
)
_VALUE_AGAIN = ("{v}", "{v}, please.", "I'd like {v}.", "It's {v}.")
_GOODBYE = "Thank you, goodbye!"
_CLOSES = frozenset({DialogueAct.CLOSING, DialogueAct.CONFIRMATION, DialogueAct.CLOSING_QUESTION})
_ASKING = frozenset({DialogueAct.REQUEST, DialogueAct.OFFER})
_YES, _NO = "Yes, please.", "No, thanks."
_REFUSAL = re.compile(
    r"\b(?:closed?|not available|unavailable|fully booked|no availability|sold out|"
    r"(?:select|choose|pick) (?:an)?other|another (?:day|date|time|one)|"
    r"(?:select|choose|pick) an? \w+ (?:between|from|within))\b",
    re.IGNORECASE,
)
"""A chatbot's words refusing the value given (the slot is asked again after them)."""
_FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "to",
        "on",
        "at",
        "for",
        "in",
        "of",
        "from",
        "with",
        "by",
        "my",
        "your",
        "our",
        "and",
        "or",
        "about",
        "as",
        "is",
        "are",
        "be",
    ]
)


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
        self.state = AgendaState(
            [self._goal(g, templates.get(g, g)) for g in goals],
            dict(spec.variables),
            spec.alternatives,
        )
        """The user's state: goals, the values wanted and given (``_agenda_state``)."""
        self._bare = {g.text: b for g in self.goals if (b := self._bare_request(g)) is not None}
        """Goal → its request without its values ("I'd like to book an appointment")."""
        for goal in self.goals:
            adapted = adapt_goal(goal, spec.variables)
            if adapted is not None:
                self.notes.append(adapted)
        self._said: list[str] = []
        self.context = read_context(spec.context if "directives" not in self.disabled else ())
        self._last_utterance: str | None = None
        self._last_value: str | None = None
        self._value_tries = 0
        self._mind_changed = False
        self._goodbye = False
        self._asked_options: set[str] = set()
        self._improvised: dict[frozenset[str], str] = {}
        self._refused: set[str] = set()
        self._questions: list[str] = []
        """The question of each chatbot reply so far (its last asking sentence)."""
        self._picked_any: dict[str, list[str]] = {}
        """Question → the options the user picked for it (from the bot's own words)."""
        styles = spec.style_names()
        self.all_at_once = "all questions" in styles
        transforms = ("long phrases", "short phrases", "make spelling mistakes")
        self.text_styles: list[str] = [s for s in transforms if s in styles]
        self.change_mind = "change your mind" in styles
        for style in styles:
            if needs_model(style):
                self.notes.append(f"interaction style '{style}' needs a model; not applied")
        self._protected = [render_value(v) for v in spec.variables.values() if v is not None]
        self.changed_variables: dict[str, Any] = {}
        self.behaviours = set(spec.behaviours)
        self._vague_asked: set[str] = set()
        self._vague_pending: str | None = None
        self._repeated = False
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

    def _goal(self, text: str, template: str) -> Goal:
        names = frozenset(_TEMPLATE_VARIABLE.findall(template)) & set(self.spec.variables)
        said = [text] if "phrasing" in self.disabled else goal_utterances(text)
        first = self.rng.randrange(len(said))
        said = said[first:] + said[:first]
        if len(said) == 1:
            said += rephrasings(said[0])
        core = strip_scaffolding(text)
        value_only = len(names) == 1 and norm(core) == norm(
            render_value(self.spec.variables[next(iter(names))])
        )  # "{{greeting}}": any answer meets it, the chatbot need not repeat it
        if value_only and "phrasing" not in self.disabled:  # the profile's words, verbatim
            said = [text.strip()]
        goal = Goal(text, names, said, question=is_question(core) or value_only)
        goal.verbatim = value_only
        return goal

    def _bare_request(self, goal: Goal) -> str | None:
        """The goal's request said without its values, for a chatbot that did not
        understand it whole ("Book an appointment to {{kind}} my bike on {{day}}" →
        "I'd like to book an appointment"): the words before its first variable, function
        words at their end dropped; ``None`` for a question goal, a goal without
        variables, or fewer than two words left."""
        template = dict(zip(self.spec.goals, self.spec.goal_templates, strict=False)).get(goal.text)
        if template is None or goal.question or not goal.variables or "{{" not in template:
            return None
        words = template.split("{{", 1)[0].split()
        while words and words[-1].lower().strip(",") in _FUNCTION_WORDS:
            words.pop()
        if len(words) < 2 or "phrasing" in self.disabled:
            return None
        return goal_utterances(" ".join(words))[0]

    # --- the turn ---------------------------------------------------------------------

    def goals_left(self) -> int:
        return sum(1 for g in self.goals if g.status != "done")

    def goal_failures(self) -> dict[str, str]:
        """Each goal not met and why (for ``goal_not_completed``)."""
        return {g.text: g.why_not() for g in self.goals if g.status != "done"}

    def dialogue_act(self, reply: Reply, fallback: bool) -> DialogueAct:
        """The act of ``reply`` as this simulator reads it (``acts`` disabled: cue words)."""
        if "acts" in self.disabled:
            if fallback:
                return DialogueAct.FALLBACK
            question = _QUESTION_CUES.search(reply.text) or reply.buttons
            return DialogueAct.REQUEST if question else DialogueAct.INFORM
        return classify_dialogue_act(reply.text, [b.text for b in reply.buttons],
                                     fallback=fallback)  # fmt: skip

    async def next_utterance(self, exchange: Exchange) -> str | None:
        vague = self._vague_pending
        utterance = self._choose(exchange)
        if self._vague_pending == vague:
            self._vague_pending = None  # a vague answer counts for one chatbot turn
        if utterance is None:
            return None
        self._last_utterance = utterance
        active = self.state.active()
        if active is not None:
            active.turns += 1
        for style in self.text_styles:
            utterance = apply_style(style, utterance, self.rng, protected=self._protected)
        return utterance

    def _choose(self, exchange: Exchange) -> str | None:
        reply = exchange.reply
        if self._goodbye:
            return None  # said goodbye: whatever the chatbot adds, the user has left
        if self.persona_alone:
            return self._as_persona(exchange)
        if reply is None:
            return self._next_goal()
        act, asked = self.observe(exchange)
        self._questions.append(last_question(reply.text))
        if act is DialogueAct.FALLBACK:
            return self._after_fallback()
        self._last_value, self._value_tries = None, 0
        answer = self._react(act, reply, asked)
        if answer is not None:
            return answer
        active = self.state.active()
        if act in _ASKING and active is not None and active.variables <= active.given:
            active.status = "done"  # the chatbot took it and asks the next thing
            active.evidence = f"the chatbot moved on: {reply.text[:160]}"
        return (
            self._repeat()
            or self._change_goal()
            or (self._any_option(reply) if act in _ASKING else None)
            or (self._improvise(reply) if act is DialogueAct.REQUEST else None)
            or self._next_goal()
        )

    def _any_option(self, reply: Reply) -> str | None:
        """An option of a choice the profile says nothing about ("We can service or repair
        your bike. Which one?"; "Which toppings would you like? You can choose mushrooms,
        …" for a custom pizza): when no goal is left to say, or mid-task (a value already
        given) when the bot asks it again and no open goal names one of the options. A
        person with no preference picks one rather than leave mid-task: the first, then
        the next one the bot has not been given for this question."""
        options = offered_options(reply.text, [b.text for b in reply.buttons])
        question = last_question(reply.text)
        if not options or not self._free_to_pick(options, question):
            return None
        tried = self._picked_any.setdefault(question, [])
        taken = [self.values.get(n) for n in self.answered]
        option = offered_value(options, tried, taken)
        if option is None:
            return None
        tried.append(option)
        self.notes.append(f"no goal for {question!r}: picked the offered option {option!r}")
        return _press(reply, option) if self.press_buttons else option

    def _free_to_pick(self, options: list[str], question: str) -> bool:
        """No goal is left; or mid-task (a goal given) the bot asks ``question`` again —
        it needs an answer to go on — and no open goal is among ``options``. Asked once,
        the user says its next goal ("Are you a man or a woman?" is small talk)."""
        open_goals = [g for g in self.goals if g.status in ("pending", "active")]
        if not open_goals:
            return True
        if not any(g.given for g in self.goals) or self._questions.count(question) < 2:
            return False  # the opening's menu, or a question asked once
        for goal in open_goals:
            wanted = [self.values.get(v) for v in goal.variables] or [goal.text]
            if any(v is not None and best_option(v, options) is not None for v in wanted):
                return False
        return True

    def observe(self, exchange: Exchange) -> tuple[DialogueAct, str | None]:
        """Read the chatbot's last reply: its act and the variable it asks for, and the
        evidence it gives for the active goal (the runner calls this for the last reply of
        a conversation cut by its turn limit)."""
        reply = exchange.reply
        if reply is None:
            return DialogueAct.INFORM, None
        act = exchange.act if "acts" not in self.disabled else None
        act = act or self.dialogue_act(reply, exchange.fallback)
        typed = "typed" not in self.disabled
        asked = asked_variable(self.state, reply, typed=typed) if act in _ASKING else None
        listed = listed_variable(self.state, reply.text) if act is DialogueAct.INFORM else None
        if listed is not None:  # "I can tell you the price of tune-up, new tire and new seat"
            act, asked = DialogueAct.OFFER, listed
        if act is DialogueAct.OFFER and "evidence" not in self.disabled:
            self._options_shown(reply)
        if not self.disabled & {"evidence", "read_back"}:
            self.state.check_read_back(reply.text, act)
        self.state.settle()
        closing = act in _CLOSES
        if closing and "evidence" not in self.disabled:  # a list of options confirms nothing
            self.state.confirmed_ahead(reply.text)
        active = self.state.active()
        if active is None:
            return act, asked
        if "evidence" in self.disabled:
            if act is not DialogueAct.FALLBACK:
                active.status = "done"
            return act, asked
        active.observe(act, reply.text, asked)
        if active.status == "active" and act is not DialogueAct.FALLBACK:
            if reply.text == active.last_reply and act is DialogueAct.INFORM:
                active.fail(f"the chatbot gave the same answer again: {reply.text[:160]!r}")
                self.notes.append(f"moved on from goal {active.text!r}: {active.reason}")
            active.last_reply = reply.text
        if active.status == "active" and active.turns >= MAX_GOAL_TURNS:
            active.fail(
                active.why_not()
                if active.unconfirmed is not None
                else f"no evidence in the chatbot's replies after {active.turns} turns"
            )
            self.notes.append(f"moved on from goal {active.text!r}: {active.reason}")
        return act, asked

    def _options_shown(self, reply: Reply) -> None:
        """A goal whose every variable is a placeholder asks what there is to choose
        (``_placeholders.adapt_goal``): an offer whose question names the variable, and
        among whose options the user already chose a value of another variable, answers
        it ("the service you need? The services we offer are …" for ``need``)."""
        question = last_question(reply.text)
        options = offered_options(reply.text, [b.text for b in reply.buttons])
        chosen = [self.values.get(n) for n in self.state.given()]
        if not any(v is not None and best_option(v, options) is not None for v in chosen):
            return
        for goal in self.goals:
            if goal.status not in ("pending", "active") or not goal.variables:
                continue
            if not all(is_placeholder(self.values.get(n)) for n in goal.variables):
                continue
            if any(overlap(n.replace("_", " "), question) > 0 for n in goal.variables):
                goal.status, goal.evidence = "done", f"options offered: {reply.text[:160]}"

    def _after_fallback(self) -> str | None:
        if self._vague_pending is not None:
            return self._give(self._vague_pending)  # not understood: now precisely
        if self._last_value is not None and self._value_tries < len(_VALUE_AGAIN) - 1:
            self._value_tries += 1
            return _VALUE_AGAIN[self._value_tries].format(v=self._last_value)
        active = self.state.active()
        if active is None:
            return self._next_goal()
        active.fallbacks += 1
        if active.fallbacks >= (1 if active.verbatim else GIVE_UP):  # a mumble is not retried
            active.fail(f"the chatbot did not understand it {active.fallbacks} times")
            self.notes.append(f"moved on from goal {active.text!r} after {GIVE_UP} fallbacks")
            return self._next_goal()
        bare = self._bare.get(active.text)
        if bare is not None and active.fallbacks == 1 and not active.question:
            return bare  # not understood with its values: the request alone, values when asked
        active.phrasing += 1
        return active.utterances[active.phrasing % len(active.utterances)]

    def _next_goal(self) -> str | None:
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
        if self._goodbye or "evidence" in self.disabled:
            return None
        self._goodbye = True
        return _GOODBYE

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
            said = follow_up(act, options, self._said, self.rng)  # type: ignore[assignment]
            if said is None:
                self.notes.append(
                    f"the persona's conversation ended after {len(self._said)} user turns: "
                    "the chatbot closed it"
                )
                return None
        self._said.append(said)
        return said

    # --- reactions to the chatbot's act -------------------------------------------------

    def _react(self, act: DialogueAct, reply: Reply, asked: str | None) -> str | None:
        text = reply.text
        directed = self.context.answer_for(last_question(text))
        if act in {DialogueAct.YES_NO_QUESTION, DialogueAct.CONFIRMATION} and directed:
            return directed
        correction = self._correction(text, act) if act in CONFIRMING else None
        if correction is not None:
            return correction
        if act in {DialogueAct.REQUEST, DialogueAct.OFFER}:
            return self._answer(reply, asked) or (directed if act is DialogueAct.OFFER else None)
        if act is DialogueAct.CONFIRMATION:
            return "Yes, that's right."
        if act is DialogueAct.YES_NO_QUESTION:
            return self._yes_no(text)
        if act is DialogueAct.CLOSING_QUESTION:
            return self._closing_question(text)
        return None

    def _closing_question(self, text: str) -> str | None:
        """ "Anything else I can do for you?": the next goal when the agenda holds one (the
        active goal, its values given, is met: the chatbot moved on), else goodbye."""
        if "directives" in self.disabled:
            return _YES
        active = self.state.active()
        if active is not None and active.variables <= active.given:
            active.status, active.evidence = "done", text[:200]
        if self.state.active() is not None:
            return None  # the active goal still waits: say it again (the caller's next goal)
        pending = [g for g in self.goals if g.status == "pending"]
        if pending:
            return self.state.activate(pending[0])
        if "evidence" in self.disabled:
            return None
        self._goodbye = True
        return "No, thanks. Goodbye!"

    def _answer(self, reply: Reply, asked: str | None) -> str | None:
        """The value the chatbot asks for: a goal variable (its offered option if any), or a
        fact of the context; ``None`` when it asks for nothing the user knows."""
        options = offered_options(reply.text, [b.text for b in reply.buttons])
        if asked is None:
            fact = self.context.fact_for(last_question(reply.text))
            if fact is not None:
                return fact.value
            return None
        if is_placeholder(self.values[asked]):
            return self._instead_of_placeholder(reply, asked, options)
        self._after_refusal(reply.text, asked)
        if "vague_answers" in self.behaviours and asked not in self._vague_asked:
            self._vague_asked.add(asked)
            self._vague_pending = asked
            return self.rng.choice(_VAGUE)
        option = best_option(self.values[asked], options) if options else None
        question = last_question(reply.text)
        when_asked = any(p.search(question) for p in ASKS_FOR.values())
        if (
            option is not None
            and not values_mentioned(self.values[asked], option)
            # "Physical examination" of "tomorrow 6 pm Physical examination" when only
            # the service is asked; the whole value when the date or time is asked too
            and (when_asked or not only_when_besides(self.values[asked], option))
        ):
            option = None  # "Water" for "2 bottles of water": the user's own words stay
        together = self._when_together(asked, last_question(reply.text))
        if together is not None:
            return together
        if option is not None and self.press_buttons:
            self.answered.add(asked)
            self.state.mark_given(asked)
            return _press(reply, option)
        return self._give(asked, option)

    def _improvise(self, reply: Reply) -> str | None:
        """A plausible value of the kind a request asks for that no variable of the
        profile answers ("What time?" to a profile with a day only, ``_slots``), once no
        goal is left to say: the user answers an open question rather than say goodbye
        to it; the same value each time it is asked, noted."""
        question = last_question(reply.text)
        kinds = question_kinds(question)
        if reply.buttons or self._open_goal_answers(kinds):
            return None
        own = [v for v in flat_values(self.values) if form_of(v) in kinds]
        value = self._improvised.get(kinds) or (
            render_value(own[0]) if own else plausible_value(kinds)
        )
        if value is not None and kinds not in self._improvised:
            self._improvised[kinds] = value
            self.notes.append(f"no variable for {question!r}: answered {value!r}")
        return value

    def _after_refusal(self, text: str, asked: str) -> None:
        """The chatbot refuses the value the user gave and asks for it again ("The shop
        is closed on weekend. Please select other day"): the user wants the variable's
        next option of the profile from then on (once per variable; recorded in
        ``changed_variables`` like a change of mind, so checks compare with it)."""
        if asked not in self.state.given() or asked in self._refused:
            return
        if not _REFUSAL.search(text):
            return
        others = self.state.others(asked)  # the profile's next option, else a plausible one
        kind = form_of(self.values[asked])
        new = others[0] if others else plausible_value(frozenset({kind} if kind else ()))
        if new is None or norm(new) == norm(self.values[asked]):
            return
        self._refused.add(asked)
        old = render_value(self.values[asked])
        self.values[asked] = self.changed_variables[asked] = new
        self._protected.append(render_value(new))
        self.notes.append(f"{asked}: the chatbot refused {old!r}; gave {render_value(new)!r}")

    def _open_goal_answers(self, kinds: frozenset[str]) -> bool:
        """Whether a goal still to say may answer a question asking for ``kinds``: one
        with a value (no placeholder) of one of them or of no known kind (free text)."""
        for goal in self.goals:
            if goal.status not in ("pending", "active"):
                continue
            values = [self.values.get(n) for n in goal.variables]
            values = [v for v in values if v is not None and not is_placeholder(v)]
            if any(form_of(v) is None or form_of(v) in kinds for v in values):
                return True
            if not goal.variables and not kinds:
                return True
        return False

    def _instead_of_placeholder(self, reply: Reply, asked: str, options: list[str]) -> str:
        """A placeholder asked for: the first option the bot offers becomes the user's
        value (its goal then waits for it); with none, the user asks once what there is,
        then the goal fails (nothing to choose from)."""
        taken = [self.values.get(n) for n in self.answered if n != asked]
        option = offered_value(options, (), taken)
        if option is not None:
            self.notes.append(f"{asked}: a placeholder; took the offered option {option!r}")
            self.values[asked] = option
            return self._answer(reply, asked) or option
        if asked not in self._asked_options:
            self._asked_options.add(asked)
            return ask_for_options(placeholder_words(self.values[asked]) or "")
        for goal in self.goals:
            if asked in goal.variables and goal.status in ("pending", "active"):
                goal.fail(f"{asked} is a placeholder and the chatbot offered no value")
        return self._next_goal() or _GOODBYE

    def _when_together(self, asked: str, question: str) -> str | None:
        """ "tomorrow at 10:00" when the chatbot asks for the date and the time at once."""
        if not (ASKS_FOR["date"].search(question) and ASKS_FOR["time"].search(question)):
            return None
        kinds = {n: value_kind_of(v) for n, v in self.values.items() if isinstance(v, str)}
        day = [n for n, k in kinds.items() if k == "date"]
        hour = [n for n, k in kinds.items() if k == "time"]
        if len(day) != 1 or len(hour) != 1 or asked not in (day[0], hour[0]):
            return None
        self._give(hour[0])
        return f"{self._give(day[0])} at {self.values[hour[0]]}"

    def _give(self, name: str, said_as: str | None = None) -> str:
        """The value of variable ``name`` (``change your mind``: after another one)."""
        self.answered.add(name)
        self.state.mark_given(name)
        value = said_as or render_value(self.values[name])
        self._last_value = value
        if self.change_mind and not self._mind_changed:
            other = self._alternative(name)
            if other is not None:
                self._mind_changed = True
                return change_your_mind(value, value, other, self.rng)
        return value

    def _yes_no(self, text: str) -> str:
        """Yes to what the goals want, the next goal to "anything else?", else no."""
        if "directives" in self.disabled:
            return _YES
        question = last_question(text)
        pending = [g for g in self.goals if g.status == "pending"]
        for goal in pending:
            if overlap(question, goal.text) >= 0.5 or any_mentioned(
                [self.values.get(v) for v in goal.variables], question
            ):
                return "Yes. " + self.state.activate(goal)
        anything_else = re.search(r"\b(?:anything|something) (?:else|more)\b", question, re.I)
        if anything_else and pending:
            return "Yes. " + self.state.activate(pending[0])
        active = self.state.active()
        if anything_else and active is not None and active.variables <= active.given:
            active.status, active.evidence = "done", text[:200]  # the chatbot moved on
            active = None
        if anything_else and active is None and "evidence" not in self.disabled:
            self._goodbye = True  # nothing left to ask: the user leaves
            return "No, thanks. Goodbye!"
        wanted = [render_value(v) for v in self.values.values() if v is not None]
        if any_mentioned(wanted, question) or any(overlap(question, g.text) >= 0.5
                                                  for g in self.goals):  # fmt: skip
            return _YES
        return _NO

    def _correction(self, text: str, act: DialogueAct) -> str | None:
        """ "No, I asked for X" (once per variable) when the chatbot's confirmation states
        another value than the user's for a variable the user gave, or states it empty."""
        if "read_back" in self.disabled:
            return None
        for name in self.state.read_back(text, act)[0]:
            if name not in self.state.corrected:
                self.state.corrected.add(name)
                return f"No, I asked for {render_value(self.values[name])}"
        return None

    # --- persona behaviours -------------------------------------------------------------

    def _repeat(self) -> str | None:
        """``repeat_question``: the goal just answered, asked again (once)."""
        if "repeat_question" not in self.behaviours or self._repeated:
            return None
        done = [g for g in self.goals if g.status == "done"]
        if not done or self._last_utterance not in done[-1].utterances:
            return None
        self._repeated = True
        return self.rng.choice(_AGAIN).format(u=self._last_utterance)

    def _change_goal(self) -> str | None:
        """``change_goal``: a variable already given changes to another option (once)."""
        if "change_goal" not in self.behaviours or self.changed_variables:
            return None
        given = [n for n in self.spec.variables if n in self.answered and self.state.others(n)]
        if not given:
            return None
        name = self.rng.choice(given)
        new = self.rng.choice(self.state.others(name))
        old, value = render_value(self.values[name]), render_value(new)
        self.values[name] = self.changed_variables[name] = new
        self.answered.discard(name)  # asked again, the user gives the new value
        self._protected.append(value)
        self.notes.append(
            f"changed goal variable '{name}' from {old!r} to {value!r} "
            "(persona behaviour change_goal)"
        )
        label = name.replace("_", " ")
        return self.rng.choice(_CHANGES).format(name=label, value=value)

    def _alternative(self, name: str) -> str | None:
        others = self.state.others(name)
        return render_value(self.rng.choice(others)) if others else None


def _press(reply: Reply, option: str) -> str:
    """What pressing the button ``option`` sends: its payload when it is an intent."""
    for button in reply.buttons:
        if button.text == option and button.link and button.link.startswith("/"):
            return button.link
    return option
