"""A test bot that greets, answers ``answers`` messages, then raises on every message."""

from __future__ import annotations


class BrokenBot:
    """Greets, answers ``answers`` messages with a menu, then crashes."""

    def __init__(self, answers: int = 0) -> None:
        self.left = answers

    def greeting(self) -> str:
        """The greeting."""
        return "Hello! Ask me anything."

    def respond(self, text: str) -> str:
        """A menu, or ``RuntimeError`` once the answers are used up."""
        if self.left <= 0:
            raise RuntimeError("the bot's database is down")
        self.left -= 1
        return "We can do A or B."
