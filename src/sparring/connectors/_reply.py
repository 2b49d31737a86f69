"""What the chatbot under test answers in one turn."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from sparring.types import Button, render_sensei_text


class Reply(BaseModel):
    """The chatbot's answer to one user message.

    ``messages`` are the separate bot messages of the turn (Rasa may send several);
    ``latency`` is wall-clock seconds from sending the user message to the full reply;
    ``raw`` keeps the decoded payload as received (never secrets); ``ended`` is set when
    the chatbot said the conversation is over (a ChatChecker client's ``is_finished``): the
    runner then ends it with the finish reason ``chatbot_ended_chat``.
    """

    messages: list[str] = Field(default_factory=list)
    buttons: list[Button] = Field(default_factory=list)
    images: list[str] = Field(default_factory=list)
    latency: float = 0.0
    raw: Any = None
    ended: bool = False
    notes: list[str] = Field(default_factory=list)

    @property
    def text(self) -> str:
        """The turn's text as the simulator and rules see it (SENSEI form).

        Messages joined by newlines, then the buttons, if any, as SENSEI renders them::

            AVAILABLE BUTTONS:
            - BUTTON TEXT: Yes LINK: /affirm
            - BUTTON TEXT: Docs LINK: <empty>
        """
        return render_sensei_text(self.messages, self.buttons)
