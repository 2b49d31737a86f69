"""ChatChecker's chatbot configuration (``config.yaml``), read as is.

A ChatChecker chatbot folder holds ``config.yaml``::

    id: pizza_bot
    chatbot_info:
      name: Pizza Bot
      description: Takes pizza orders.          # what the user is told about the bot
      interaction_method: text-based chat interface
      type: task-oriented                       # task-oriented | conversational
      task: The chatbot must take an order ...  # what it must do in a dialogue
      constraints: [Must not give medical advice.]
      known_limitations: [Cannot take payments.]
      available_languages: [English]
    user_simulation_config:
      typical_user_turn_length: "10 words"
      max_user_turn_length: "40 words"
      max_user_turns: 15

and ``chatbot_client.py`` with the class ``ChatbotClient`` (``_chatchecker_client``).
``ChatCheckerConfig`` is that file's model; unknown keys are errors (ChatChecker drops
them silently, which hides typos). ``info_fields()`` maps ``chatbot_info`` onto sparring's
``ChatbotInfo``: the same type names, language names as ISO 639-1 codes (``English`` →
``en``; a name Lingua does not know is kept as written).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from sparring._yaml import load_yaml_model
from sparring.language import iso_code
from sparring.schemas import register_schema

CLIENT_TARGET = "chatbot_client.py:ChatbotClient"
"""Where ChatChecker finds a chatbot's client: the class ``ChatbotClient`` in
``chatbot_client.py`` beside ``config.yaml`` (the ``python`` connector's target)."""
DEFAULT_MAX_USER_TURNS = 10
"""ChatChecker's cap on user turns when ``max_user_turns`` is 0."""

_WORDS = re.compile(r"^\s*(\d+)")


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class ChatCheckerInfo(_Closed):
    """``chatbot_info``: what the chatbot is, as ChatChecker's prompts see it."""

    name: str
    """The chatbot's name."""
    description: str
    """A brief, user-facing description."""
    type: Literal["task-oriented", "conversational"] = "task-oriented"
    """The chatbot type (ChatChecker's names are sparring's)."""
    interaction_method: str | None = None
    """How users interact with it (e.g. ``text-based chat interface``)."""
    task: str | None = None
    """What the chatbot must do in a dialogue (hidden from simulated users)."""
    constraints: list[str] | None = None
    """Expected behaviour, e.g. for out-of-domain requests."""
    known_limitations: list[str] | None = None
    """What the chatbot is not expected to do."""
    available_languages: list[str]
    """Language names (``English``); the first is the default."""


class UserSimulationConfig(_Closed):
    """``user_simulation_config``: how long simulated users' turns and dialogues are."""

    max_user_turns: int = Field(ge=0)
    """Most user turns in a dialogue (0: ChatChecker's default, 10)."""
    typical_user_turn_length: str | None = None
    """Typical user turn length in words, as written (``"10 words"``)."""
    max_user_turn_length: str | None = None
    """Soft cap on a user turn's length in words, as written (``"40 words"``)."""

    @property
    def turn_limit(self) -> int:
        """``max_user_turns``, or ChatChecker's default 10 when it is 0."""
        return self.max_user_turns or DEFAULT_MAX_USER_TURNS

    @property
    def typical_words(self) -> int | None:
        """The number in ``typical_user_turn_length`` (``"10 words"`` → 10), if any."""
        return _words(self.typical_user_turn_length)

    @property
    def max_words(self) -> int | None:
        """The number in ``max_user_turn_length``, if any."""
        return _words(self.max_user_turn_length)


def _words(length: str | None) -> int | None:
    match = _WORDS.match(length or "")
    return int(match.group(1)) if match else None


class ChatCheckerConfig(_Closed):
    """A ChatChecker chatbot ``config.yaml`` (see the module docstring)."""

    id: str
    """The chatbot's id in ChatChecker's registry."""
    chatbot_info: ChatCheckerInfo
    user_simulation_config: UserSimulationConfig

    def info_fields(self) -> dict[str, Any]:
        """``chatbot_info`` as ``ChatbotInfo`` fields (languages as ISO 639-1 codes)."""
        info = self.chatbot_info
        fields: dict[str, Any] = {
            "name": info.name,
            "description": info.description,
            "type": info.type,
            "languages": [language_code(name) for name in info.available_languages],
            "interaction_method": info.interaction_method,
            "task": info.task,
            "constraints": list(info.constraints or []),
            "known_limitations": list(info.known_limitations or []),
        }
        return {key: value for key, value in fields.items() if value not in (None, [])}


register_schema("chatchecker-config", ChatCheckerConfig)


def language_code(name: str) -> str:
    """An ISO 639-1 code for a language name (``English`` → ``en``); a two-letter code
    is kept (lower-cased), an unknown name returned as written."""
    text = name.strip()
    if len(text) == 2 and text.isalpha():
        return text.lower()
    return iso_code(text.replace(" ", "_")) or text


def is_chatchecker_config(data: Any) -> bool:
    """Whether parsed YAML looks like a ChatChecker ``config.yaml`` (it has
    ``chatbot_info`` and no ``connector``)."""
    return isinstance(data, dict) and "chatbot_info" in data and "connector" not in data


def load_chatchecker_config(path: Path | str) -> ChatCheckerConfig:
    """Read a ChatChecker ``config.yaml``. Raises ``ConfigError`` with file, line and key
    for every problem (YAML syntax, unknown or missing keys, wrong values)."""
    return load_yaml_model(path, ChatCheckerConfig, "a mapping with `id` and `chatbot_info`")
