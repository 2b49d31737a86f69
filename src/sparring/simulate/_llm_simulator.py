"""The LLM-driven user simulator (SENSEI, de Lara et al., §4).

The profile's role, context (personality), goals with their picked values, interaction
styles and language, plus the conversation so far, drive the model; the prompt wording is
ours. The model answers with a ``SimulatedUtterance`` (validated structured output). When
the chatbot answered with its fallback the simulator is told to rephrase, and after three
fallbacks in a row to move to another goal.
"""

from __future__ import annotations

import random
from typing import Any

from pydantic import BaseModel, Field

from sparring.llm import Meter, Model
from sparring.simulate._base import Exchange
from sparring.simulate._spec import ConversationSpec, render_value

STYLE_HINTS = {
    "long phrases": "Write long, elaborate messages.",
    "short phrases": "Write very short messages, a few words each.",
    "change your mind": "At some point change your mind about one of your choices, then settle.",
    "make spelling mistakes": "Make a few realistic spelling mistakes.",
    "single question": "Ask about one goal per message.",
    "all questions": "Ask about all your goals in your first message.",
    "off topic when asked": (
        "Follow your goals in order: when the chatbot asks for something a later goal "
        "holds, first say the goal that comes before it, then answer when asked again."
    ),
    "default": "",
}


class SimulatedUtterance(BaseModel):
    """The model's structured answer for one user turn."""

    utterance: str = Field(description="The user's next message to the chatbot.")
    finished: bool = Field(
        default=False,
        description="True when every goal is answered and the user wants to end.",
    )
    goals_left: int = Field(default=0, ge=0, description="How many goals are unanswered.")


class LLMSimulator:
    """User simulator driven by a model through ``sparring.llm`` (module ``user_simulator``)."""

    def __init__(
        self,
        spec: ConversationSpec,
        model: Model,
        meter: Meter | None = None,
        rng: random.Random | None = None,
        temperature: float | None = None,
    ) -> None:
        self.spec = spec
        self.model = model
        self.meter = meter
        self.rng = rng or random.Random(spec.seed)
        self.temperature = temperature
        self.notes: list[str] = []
        self._goals_left = len(spec.goals)
        self._language_switch = self._pick_language_switch()

    def goals_left(self) -> int:
        return self._goals_left

    async def next_utterance(self, exchange: Exchange) -> str | None:
        messages = self._messages(exchange)
        generation = await self.model.generate(
            messages,
            schema=SimulatedUtterance,
            module="user_simulator",
            meter=self.meter,
            temperature=self.temperature,
        )
        answer = generation.parsed
        assert isinstance(answer, SimulatedUtterance)
        self._goals_left = answer.goals_left if answer.finished is False else 0
        if answer.finished:
            return None
        return answer.utterance.strip() or None

    def system_prompt(self) -> str:
        """The instructions given to the model: who the user is and what they want."""
        spec = self.spec
        lines = [
            "You play a human user talking to a chatbot. Write only the user's next message.",
            "Never act as the chatbot, never explain that you are simulating.",
            f"Your role: {spec.role.strip()}",
        ]
        if spec.language:
            lines.append(f"Write in {spec.language}.")
        if spec.context:
            lines.append("About you:\n" + "\n".join(f"- {c}" for c in spec.context))
        lines.append("Your goals, to pursue one after another:")
        lines.extend(f"- {g}" for g in spec.goals)
        if spec.variables:
            values = ", ".join(f"{k} = {render_value(v)}" for k, v in spec.variables.items())
            lines.append(f"Use exactly these values when the chatbot asks: {values}.")
        hints = [STYLE_HINTS.get(s, "") for s in spec.style_names()]
        if self._language_switch:
            hints.append(f"Write one of your messages in {self._language_switch}.")
        hints = [h for h in hints if h]
        if hints:
            lines.append("Style: " + " ".join(hints))
        lines.append(
            "Answer as JSON: utterance (your message), finished (true once every goal is "
            "answered and you want to end the conversation), goals_left (how many goals "
            "are not answered yet)."
        )
        return "\n".join(lines)

    def _messages(self, exchange: Exchange) -> list[dict[str, str]]:
        messages = [{"role": "system", "content": self.system_prompt()}]
        for turn in exchange.turns:
            role = "assistant" if turn.role == "user" else "user"
            messages.append({"role": role, "content": turn.sensei_text})
        if not exchange.turns:
            messages.append({"role": "user", "content": "(Start the conversation.)"})
        if exchange.fallback:
            if exchange.fallbacks_in_a_row >= 3:
                note = "The chatbot did not understand three times: move on to another goal."
            else:
                note = "The chatbot did not understand your last message: rephrase it."
            messages.append({"role": "system", "content": note})
        return messages

    def _pick_language_switch(self) -> str | None:
        languages: Any = self.spec.style_option("change language")
        if isinstance(languages, list) and languages:
            return str(self.rng.choice(languages))
        return None
