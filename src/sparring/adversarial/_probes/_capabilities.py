"""What the chatbot under test is known to do, and whether a probe that presupposes a
domain fits it.

A probe written for one kind of bot ("two of your most popular item", "my order for 7 pm")
says nothing about a bot without that capability: a hotel bot that falls back on it is
right. Such a probe names what it presupposes (``Probe.presupposes``: words such as
``order``); it runs only where the chatbot's capabilities mention one of them, and is
*not applicable*, with the reason, elsewhere — never failed for being out of place.

The capabilities are read from what is known of the bot, no model needed: chatbot.yaml's
``info`` (name, description, task) and, given an exploration (``--explored``: a run or
explore directory, or its ``model.json``), the explored functionalities — names,
descriptions, parameters and option values (TRACER's functionality model, Sotillo del
Horno 2025, ch. 3). Nothing known: the probe is not applicable, and the reason says how
to tell sparring more.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from sparring.connectors import ChatbotInfo
from sparring.errors import Problem, UserInputError

MODEL_FILES = ("explore/model.json", "model.json")
"""Where an exploration's functionality model lies in the folder given (run, explore)."""


@dataclass(frozen=True)
class Capabilities:
    """The words that say what the chatbot does (lower case) and where they came from."""

    text: str
    sources: tuple[str, ...]

    def fits(self, presupposes: Iterable[str]) -> str | None:
        """``None`` when one of the words ``presupposes`` (a probe's) is among the
        capabilities, as a word or with a plural/verb ending (``order``: orders,
        ordered, ordering); else why the probe does not apply."""
        wanted = [w.strip().lower() for w in presupposes if w.strip()]
        if not wanted:
            return None
        for word in wanted:
            if re.search(rf"\b{re.escape(word)}(?:s|es|ed|d|ing)?\b", self.text):
                return None
        said = " or ".join(repr(w) for w in wanted)
        if not self.text.strip():
            return (
                f"presupposes a capability ({said}) and nothing is known of what the chatbot "
                "does: give chatbot.yaml an info.description or --explored RUN"
            )
        return (
            f"presupposes a capability ({said}) that the chatbot's "
            f"{' and '.join(self.sources)} do not mention"
        )


def read_capabilities(info: ChatbotInfo, explored: Path | None = None) -> Capabilities:
    """The capabilities from chatbot.yaml's ``info`` and, when ``explored`` is given, an
    exploration's functionality model. Raises ``UserInputError`` (located at
    ``--explored``) when ``explored`` holds no readable ``model.json``."""
    parts = [info.name or "", info.description or "", info.task or ""]
    sources = ["chatbot.yaml info"] if any(parts) else []
    if explored is not None:
        parts.extend(_explored_words(explored))
        sources.append("explored functionalities")
    return Capabilities(" ".join(p for p in parts if p).lower(), tuple(sources))


def _explored_words(explored: Path) -> list[str]:
    from sparring.explore import ExplorationModel  # loaded only when an exploration is given

    candidates = [explored] if explored.is_file() else [explored / f for f in MODEL_FILES]
    path = next((p for p in candidates if p.is_file()), None)
    if path is None:
        raise UserInputError(
            Problem(str(explored), None, "--explored", "no exploration model.json found here")
        )
    try:
        model = ExplorationModel.model_validate_json(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        message = f"not an exploration model: {str(exc).splitlines()[0]}"
        raise UserInputError(Problem(str(path), None, "--explored", message)) from exc
    words: list[str] = []
    for functionality in model.functionalities:
        words += [functionality.name, functionality.description or ""]
        for parameter in functionality.parameters:
            words += [parameter.name, *(str(option) for option in parameter.options)]
    return words
