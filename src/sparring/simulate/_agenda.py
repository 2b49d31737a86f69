"""The offline, agenda-based user simulator.

After Schatzmann et al., "Agenda-Based User Simulation for Bootstrapping a POMDP Dialogue
System" (NAACL 2007): the user's goals form a stack-like agenda. Each turn the simulator
first reacts to the chatbot — it answers a question about one of its goal variables or
picks the offered option that matches its goal — and otherwise pops the next agenda item
(``single question``) or all of them (``all questions``). No model is needed; with a seed,
the same conversation is produced every time.

A persona's agenda behaviours (``spec.behaviours``, see ``_persona_plan``) make the user
harder to serve: ``vague_answers`` answers the first question about each goal variable
vaguely (the value comes when the chatbot asks again); ``repeat_question`` asks a goal
again, once, after the chatbot answered it; ``change_goal`` changes one variable already
given to another of its options, once, when the chatbot is not asking anything — the new
value is what the user wants from then on (``changed_variables``, which the runner puts on
the record).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any

from sparring.connectors import Button, Reply
from sparring.simulate._base import Exchange
from sparring.simulate._spec import ConversationSpec, render_value
from sparring.simulate._styles import apply_style, change_your_mind, needs_model

_QUESTION_CUES = re.compile(
    r"\?|\b(which|what|how many|how much|would you like|do you want|please (?:choose|select|"
    r"tell|provide|specify|enter)|could you|can you tell|let me know|options? (?:are|is)|"
    r"choose|select)\b",
    re.IGNORECASE,
)
_REPHRASE = ("Sorry, I meant: {u}", "Let me say it another way: {u}", "What I want is: {u}")
_TEMPLATE_VARIABLE = re.compile(r"\{\{\s*(\w+)\s*\}\}")
_GIVE_UP = 3
"""Fallbacks in a row after which the simulator changes topic (the SENSEI paper, §4)."""
_VAGUE = ("Not sure, something normal I guess.", "Whatever you think is best.", "Hmm, the usual?")
_AGAIN = ("Sorry, again: {u}", "I asked: {u}", "Once more: {u}")
_CHANGES = (
    "Actually, can I change the {name} to {value}?",
    "Wait, I'd rather have {value} as the {name}.",
    "Change of plan: make the {name} {value}, please.",
)


class AgendaSimulator:
    """Agenda-driven user simulator (see the module docstring).

    Styles applied by deterministic text transforms: ``make spelling mistakes``,
    ``long phrases``, ``short phrases``, ``change your mind``; ``single question``,
    ``all questions`` and ``default`` shape the agenda. Styles that need a model (e.g.
    ``change language``) are recorded in ``notes`` and not applied.
    """

    def __init__(self, spec: ConversationSpec, rng: random.Random | None = None) -> None:
        self.spec = spec
        self.rng = rng or random.Random(spec.seed)
        self.notes: list[str] = []
        self.agenda: list[str] = list(spec.goals)
        self._goal_variables = {
            goal: set(_TEMPLATE_VARIABLE.findall(template))
            for goal, template in zip(spec.goals, spec.goal_templates, strict=False)
        }
        self.answered: set[str] = set()
        self._last_utterance: str | None = None
        self._mind_changed = False
        styles = spec.style_names()
        self.all_at_once = "all questions" in styles
        # typos last: shortening must still recognise the words it removes
        transforms = ("long phrases", "short phrases", "make spelling mistakes")
        self.text_styles: list[str] = [s for s in transforms if s in styles]
        self.change_mind = "change your mind" in styles
        for style in styles:
            if needs_model(style):
                self.notes.append(f"interaction style '{style}' needs a model; not applied")
        self._protected = [render_value(v) for v in spec.variables.values() if v is not None]
        self.values: dict[str, Any] = dict(spec.variables)
        """What the user wants now (``change_goal`` may change one value)."""
        self.changed_variables: dict[str, Any] = {}
        self.behaviours = set(spec.behaviours)
        self._vague_asked: set[str] = set()
        self._vague_pending: str | None = None
        self._last_item: str | None = None
        self._repeated = False
        for behaviour in sorted(self.behaviours & {"change_goal", "vague_answers"}):
            if not spec.variables:
                self.notes.append(f"behaviour '{behaviour}' needs a goal variable; not applied")

    def goals_left(self) -> int:
        return len(self.agenda)

    async def next_utterance(self, exchange: Exchange) -> str | None:
        vague = self._vague_pending
        utterance = self._choose(exchange)
        if self._vague_pending == vague:
            self._vague_pending = None  # a vague answer counts for one chatbot turn
        if utterance is None:
            return None
        self._last_utterance = utterance
        for style in self.text_styles:
            utterance = apply_style(style, utterance, self.rng, protected=self._protected)
        return utterance

    def _choose(self, exchange: Exchange) -> str | None:
        reply = exchange.reply
        if exchange.fallback and self._vague_pending is not None:
            return self._give(self._vague_pending)  # not understood: now precisely
        if exchange.fallback and self._last_utterance is not None:
            if exchange.fallbacks_in_a_row < _GIVE_UP:
                template = _REPHRASE[(exchange.fallbacks_in_a_row - 1) % len(_REPHRASE)]
                return template.format(u=self._last_utterance)
            self.notes.append(f"changed topic after {_GIVE_UP} fallbacks in a row")
        elif reply is not None:
            answer = self._answer(reply) or self._repeat() or self._change_goal()
            if answer is not None:
                return answer
        return self._next_agenda_item()

    def _next_agenda_item(self) -> str | None:
        # A goal whose every value the chatbot already asked for and got is satisfied.
        self.agenda = [g for g in self.agenda if not self._already_given(g)]
        if not self.agenda:
            return None
        if self.all_at_once:
            items, self.agenda = self.agenda, []
            self._last_item = " ".join(_sentence(i) for i in items)
        else:
            self._last_item = self.agenda.pop(0)
        return self._last_item

    def _repeat(self) -> str | None:
        """``repeat_question``: the goal just answered, asked again (once)."""
        if "repeat_question" not in self.behaviours or self._repeated:
            return None
        if self._last_item is None or self._last_utterance != self._last_item:
            return None
        self._repeated = True
        return self.rng.choice(_AGAIN).format(u=self._last_item)

    def _change_goal(self) -> str | None:
        """``change_goal``: a variable already given changes to another option (once)."""
        if "change_goal" not in self.behaviours or self.changed_variables:
            return None
        given = [n for n in self.spec.variables if n in self.answered and self._others(n)]
        if not given:
            return None
        name = self.rng.choice(given)
        new = self.rng.choice(self._others(name))
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

    def _already_given(self, goal: str) -> bool:
        names = self._goal_variables.get(goal, set())
        return bool(names) and names <= self.answered

    def _answer(self, reply: Reply) -> str | None:
        """Answer the chatbot's question about a goal variable, if it asked one."""
        text = " ".join(reply.messages)
        clicked = self._matching_button(reply.buttons)
        if clicked is not None:
            self.answered.add(clicked[0])
            button = clicked[1]
            return button.link if button.link and button.link.startswith("/") else button.text
        if not _QUESTION_CUES.search(text):
            return None
        name = self._asked_variable(text)
        if name is None:
            return None
        if "vague_answers" in self.behaviours and name not in self._vague_asked:
            self._vague_asked.add(name)
            self._vague_pending = name
            return self.rng.choice(_VAGUE)
        return self._give(name)

    def _give(self, name: str) -> str:
        """The value of variable ``name`` (``change your mind``: after another one)."""
        self.answered.add(name)
        value = render_value(self.values[name])
        if self.change_mind and not self._mind_changed:
            other = self._alternative(name)
            if other is not None:
                self._mind_changed = True
                return change_your_mind(value, value, other, self.rng)
        return value

    def _matching_button(self, buttons: Sequence[Button]) -> tuple[str, Button] | None:
        """The offered button whose text or payload is one of the goal values, and its
        variable."""
        for button in buttons:
            for name, value in self.values.items():
                wanted = {_norm(v) for v in _flat_values({name: value})}
                if _norm(button.text) in wanted or _norm(button.link or "") in wanted:
                    return name, button
        return None

    def _asked_variable(self, text: str) -> str | None:
        """The unanswered variable the text asks about: named, or ≥2 of its options listed."""
        low = text.lower()
        best: tuple[int, str] | None = None
        for name, value in self.values.items():
            if value is None or name in self.answered:
                continue
            score = 0
            words = [w for w in re.split(r"[_\W]+", name.lower()) if len(w) > 2]
            if any(re.search(rf"\b{re.escape(w)}", low) for w in words):
                score += 2
            options = [_norm(v) for v in self.spec.alternatives.get(name, [])]
            listed = sum(1 for o in options if o and re.search(rf"\b{re.escape(o)}\b", low))
            if listed >= 2:
                score += listed
            if score and (best is None or score > best[0]):
                best = (score, name)
        return best[1] if best else None

    def _alternative(self, name: str) -> str | None:
        others = self._others(name)
        return render_value(self.rng.choice(others)) if others else None

    def _others(self, name: str) -> list[Any]:
        """The options of variable ``name`` other than the value the user wants now."""
        chosen = {_norm(v) for v in _flat_values({name: self.values[name]})}
        return [v for v in self.spec.alternatives.get(name, []) if _norm(v) not in chosen]


def _flat_values(variables: dict[str, Any]) -> list[Any]:
    out: list[Any] = []
    for value in variables.values():
        if isinstance(value, list | tuple):
            out.extend(value)
        elif value is not None:
            out.append(value)
    return out


def _norm(value: Any) -> str:
    return re.sub(r"\s+", " ", str(value)).strip().lower()


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text[-1:] in ".?!" else text + "."
