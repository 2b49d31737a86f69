"""The LLM user simulator that plays a persona (ChatChecker's persona and tester
simulators: Mayr, Schimpf, Bohné, 2025, §3.2; our prompt wording).

The model is given the chatbot's description, the persona (description, demographics,
Big Five traits, interaction style, task), the profile's goals and values when the persona
plays a profile's conversation, ChatChecker's turn-length guidance (a typical and a
maximum number of words per turn) and its stop convention: the model ends the chat by
writing ``END_CONVERSATION``. The reply is free text, as in ChatChecker. Text before the
token is sent as the user's last message (the chatbot answers it, and the conversation
ends at the next turn); the token itself is never sent. An empty reply also ends it.
"""

from __future__ import annotations

import random
import re

from sparring.llm import Meter, Model
from sparring.simulate._base import Exchange
from sparring.simulate._llm_simulator import STYLE_HINTS
from sparring.simulate._spec import ConversationSpec, render_value

END_TOKEN = "END_CONVERSATION"
"""What the simulated user writes to end the conversation (ChatChecker's convention)."""

BEHAVIOUR_HINTS = {
    "change_goal": "Once, change a choice you already gave to another option and keep it.",
    "repeat_question": "Once, ask again something the chatbot already answered.",
    "vague_answers": (
        "Answer the chatbot's first question about each detail vaguely; be precise only "
        "when it asks again."
    ),
}
_ECHO = re.compile(r"^\s*(?:\d+\.\s*)?(?:YOU|USER)\s*:\s*", re.IGNORECASE)


def split_end_token(text: str) -> tuple[str, bool]:
    """The message to send and whether the user ended the conversation: text before
    ``END_CONVERSATION`` (quotes and an echoed ``3. YOU:`` prefix removed), and ``True``
    when the token occurs or nothing is left."""
    cleaned = _ECHO.sub("", text.strip().strip("\"'"))
    index = cleaned.find(END_TOKEN)
    if index >= 0:
        return cleaned[:index].strip().strip("\"'").strip(), True
    cleaned = cleaned.strip()
    return cleaned, not cleaned


class PersonaSimulator:
    """Plays ``spec.persona`` through a model (module ``user_simulator``, free text)."""

    def __init__(
        self,
        spec: ConversationSpec,
        model: Model,
        meter: Meter | None = None,
        rng: random.Random | None = None,
        temperature: float | None = None,
    ) -> None:
        if spec.persona is None:
            raise ValueError("PersonaSimulator needs a spec with a persona")
        self.spec = spec
        self.model = model
        self.meter = meter
        self.rng = rng or random.Random(spec.seed)
        self.temperature = temperature
        self.notes: list[str] = []
        self._goals_left = len(spec.goals)
        self._ending = False

    def goals_left(self) -> int:
        """The goals not done: all of them until the user ends the conversation, then 0
        (ending is the user's choice; output data are still checked)."""
        return self._goals_left

    async def next_utterance(self, exchange: Exchange) -> str | None:
        if self._ending:
            return None
        generation = await self.model.generate(
            self.messages(exchange),
            module="user_simulator",
            meter=self.meter,
            temperature=self.temperature,
        )
        text, ended = split_end_token(generation.text)
        if ended:
            self._goals_left = 0
            self._ending = True
            return text or None
        return text

    def system_prompt(self) -> str:
        """Who the user is, what they want, how to write and how to end."""
        spec = self.spec
        persona = spec.persona
        assert persona is not None
        kind = "" if persona.type == "standard" else f"{persona.type} "
        sections = [
            f"# Your role\nYou play a {kind}human user chatting with a chatbot. Stay in your "
            "persona; never say that you are simulating, an AI or a tester.",
        ]
        if spec.chatbot is not None:
            info = spec.chatbot.model_dump(
                mode="json", exclude={"fallback"}, exclude_none=True, exclude_defaults=True
            )
            about = "\n".join(f"{k}: {v}" for k, v in info.items())
            sections.append(f"# The chatbot\n{about or '(not described)'}")
        sections.append(f"# Who you are\n{persona.prompt_text()}")
        sections.append(self._goals_section())
        sections.append(self._writing_section())
        return "\n\n".join(s for s in sections if s)

    def messages(self, exchange: Exchange) -> list[dict[str, str]]:
        """The system prompt and the conversation as a numbered transcript."""
        lines = ["# Conversation so far"]
        for number, turn in enumerate(exchange.turns, 1):
            speaker = "YOU" if turn.role == "user" else "CHATBOT"
            lines.append(f"{number}. {speaker}: {turn.sensei_text}")
        if not exchange.turns:
            lines.append("(nothing yet: you write first)")
        if exchange.fallback:
            lines.append(
                "(The chatbot did not understand you three times: move on or end.)"
                if exchange.fallbacks_in_a_row >= 3
                else "(The chatbot did not understand your last message.)"
            )
        lines.append(f"{len(exchange.turns) + 1}. YOU:")
        return [
            {"role": "system", "content": self.system_prompt()},
            {"role": "user", "content": "\n".join(lines)},
        ]

    def _goals_section(self) -> str:
        spec = self.spec
        assert spec.persona is not None
        if spec.goals == (spec.persona.task,):
            return ""  # the persona alone: its task is its goal
        lines = ["# What you want in this conversation", f"As {spec.role.strip()}:"]
        lines += [f"- {goal}" for goal in spec.goals]
        if spec.variables:
            values = ", ".join(f"{k} = {render_value(v)}" for k, v in spec.variables.items())
            lines.append(f"Use exactly these values when the chatbot asks: {values}.")
        lines += [f"- {c}" for c in spec.context]
        return "\n".join(lines)

    def _writing_section(self) -> str:
        spec = self.spec
        lines = ["# How to write", "- Write only your next message, as you would type it."]
        if spec.language:
            lines.append(f"- Write in {spec.language}.")
        if spec.typical_turn_words:
            lines.append(
                f"- Keep your message around {spec.typical_turn_words} words; write longer or "
                "shorter ones when your persona would in the situation."
            )
        if spec.max_turn_words:
            lines.append(f"- Always stay below {spec.max_turn_words} words.")
        hints = [STYLE_HINTS.get(s, "") for s in spec.style_names()]
        hints += [BEHAVIOUR_HINTS.get(b, "") for b in spec.behaviours]
        lines += [f"- {h}" for h in dict.fromkeys(hints) if h]
        lines.append(
            f"- When the chatbot says the conversation is over, when it makes no progress, or "
            f"when you would realistically stop, end the chat by writing {END_TOKEN} (after a "
            "goodbye if you like)."
        )
        return "\n".join(lines)
