"""A deterministic chatbot from a YAML script, for tests, demos and failure drills.

The script (inline in ``params:`` or in the file ``script:`` names) has an optional
``greeting``, ordered ``rules`` and a ``fallback``::

    greeting: "Hi! I take pizza orders."
    rules:
      - match: "\\\\b(hi|hello)\\\\b"         # regex, case-insensitive, searched in the message
        reply: "Hello! What would you like?"
        buttons: [{text: Order, link: /order}, Menu]
      - match: "my name is (\\\\w+)"
        reply: ["Nice to meet you, {1}.", "Anything else?"]   # several messages
      - match: "boom"
        error: crash                      # crash | timeout | bad_payload
    fallback: "Sorry, I did not understand."
    latency: 0.05                         # seconds before each reply

The first rule whose ``match`` is found answers. In replies, ``{message}`` is the user's
message, ``{1}``… and ``{name}`` the regex's groups.
"""

from __future__ import annotations

import asyncio
import re
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

import regex
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from sparring._fields import Regex
from sparring._policy import current_policy
from sparring._regex import PatternTimeout, compile_pattern, search
from sparring._yaml import load_yaml_with_lines, validation_problems
from sparring.connectors._base import (
    ConnectorContext,
    ConnectorParams,
    hide_secrets,
    timed_reply,
)
from sparring.connectors._registry import connector
from sparring.connectors._reply import Reply
from sparring.errors import BadPayload, ChatbotCrash, ConfigError, Problem
from sparring.types import Button

_FIELD = re.compile(r"\{(\w+)\}")


def _as_list(value: Any) -> Any:
    return [value] if isinstance(value, str) else value


class ScriptButton(BaseModel):
    """A button: ``{text, link}``, or just its text."""

    model_config = ConfigDict(extra="forbid")

    text: str
    link: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, value: Any) -> Any:
        return {"text": value} if isinstance(value, str) else value


class ScriptRule(BaseModel):
    """One rule: when ``match`` is found in the user's message, answer ``reply``."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    match: Regex
    """Regular expression searched (case-insensitive) in the user's message."""
    reply: list[str] = Field(default_factory=list)
    """The answer: one text, or several texts sent as separate messages."""
    buttons: list[ScriptButton] = Field(default_factory=list)
    """Buttons offered with the answer."""
    error: Literal["crash", "timeout", "bad_payload"] | None = None
    """Fail instead of answering: raise a crash, hang until the timeout, or send garbage."""

    _reply_list = field_validator("reply", mode="before")(_as_list)

    @cached_property
    def pattern(self) -> regex.Pattern[str]:
        """``match`` compiled, case-insensitive, for the time-limited matcher."""
        return compile_pattern(self.match)


class Script(BaseModel):
    """What the scripted chatbot says (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    greeting: list[str] = Field(default_factory=list)
    """What the bot says when a conversation opens (empty: it waits for the user)."""
    greeting_buttons: list[ScriptButton] = Field(default_factory=list)
    """Buttons offered with the greeting."""
    rules: list[ScriptRule] = Field(default_factory=list)
    """Ordered rules; the first that matches answers."""
    fallback: list[str] = Field(default_factory=lambda: ["Sorry, I did not understand."])
    """The answer when no rule matches."""
    latency: float = Field(default=0.0, ge=0)
    """Seconds to wait before each answer."""

    _lists = field_validator("greeting", "fallback", mode="before")(_as_list)


class ScriptedParams(ConnectorParams, Script):
    """A scripted bot, inline or from a ``script`` file."""

    script: str | None = None
    """YAML file holding the script (relative to chatbot.yaml); then nothing else inline."""

    @model_validator(mode="after")
    def _script_or_inline(self) -> ScriptedParams:
        inline = self.model_fields_set & set(Script.model_fields)
        if self.script and inline:
            raise ValueError(f"give either `script` or inline {', '.join(sorted(inline))}")
        return self


def load_script(path: Path) -> Script:
    """Read a script file. Raises ``ConfigError`` located in that file."""
    data, lines = load_yaml_with_lines(path)
    try:
        return Script.model_validate(data if data is not None else {})
    except ValidationError as exc:
        raise ConfigError(validation_problems(path, exc, lines)) from exc


def _fill(template: str, text: str, found: regex.Match[str] | None) -> str:
    """``template`` with ``{message}`` and the regex groups (``{1}``, ``{name}``) filled."""

    def field(m: re.Match[str]) -> str:
        name = m.group(1)
        if name == "message":
            return text
        group: str | None = None
        if found is not None:
            try:
                group = found.group(int(name) if name.isdigit() else name)
            except IndexError:  # no such group
                group = None
        return m.group(0) if group is None else group

    return _FIELD.sub(field, template)


class ScriptedConversation:
    """One dialogue with the scripted bot (it keeps no state between turns)."""

    def __init__(self, owner: ScriptedConnector) -> None:
        self._owner = owner
        script = owner.script
        self.greeting: Reply | None = None
        if script.greeting:
            buttons = [Button(text=b.text, link=b.link) for b in script.greeting_buttons]
            said = Reply(messages=list(script.greeting), buttons=buttons)
            self.greeting = hide_secrets(said, owner.context.redact)

    async def _answer(self, text: str) -> Reply:
        script = self._owner.script
        if script.latency:
            await asyncio.sleep(script.latency)
        for index, rule in enumerate(script.rules):
            try:
                found = search(rule.pattern, text)
            except PatternTimeout as exc:
                raise ChatbotCrash(f"scripted rule {index}: {exc}") from exc
            if found is None:
                continue
            if rule.error == "crash":
                raise ChatbotCrash(f"scripted crash (rule {index})")
            if rule.error == "bad_payload":
                raise BadPayload(f"scripted bad payload (rule {index})")
            if rule.error == "timeout":
                await asyncio.sleep(self._owner.timeout + 60)
            return Reply(
                messages=[_fill(t, text, found) for t in rule.reply if t],
                buttons=[Button(text=b.text, link=b.link) for b in rule.buttons],
                raw={"rule": index},
            )
        return Reply(messages=[_fill(t, text, None) for t in script.fallback], raw={"rule": None})

    async def send(self, text: str) -> Reply:
        """Answer ``text`` by the first matching rule, else the fallback."""
        owner = self._owner
        return await timed_reply(self._answer(text), owner.timeout, owner.context.redact)

    async def close(self) -> None:
        """Nothing to release."""


class ScriptedConnector:
    """A deterministic bot from a ``Script``."""

    def __init__(self, script: Script, timeout: float, context: ConnectorContext) -> None:
        self.script = script
        self.timeout = timeout
        self.context = context

    def __repr__(self) -> str:
        return f"ScriptedConnector({len(self.script.rules)} rules)"

    async def open(self) -> ScriptedConversation:
        """A new conversation (with the greeting, if the script has one)."""
        return ScriptedConversation(self)

    async def aclose(self) -> None:
        """Nothing to release."""


@connector("scripted")
def scripted(params: ScriptedParams, context: ConnectorContext) -> ScriptedConnector:
    """A deterministic bot from YAML rules (regex → reply), for tests and demos."""
    script: Script = params
    if params.script:
        path = context.base_dir / params.script
        current_policy().require_path(path, "", None, "script")
        if not path.is_file():
            raise ConfigError(Problem("", None, "script", f"no such file: {path}"))
        script = load_script(path)
    return ScriptedConnector(script, params.timeout, context)
