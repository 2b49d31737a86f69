"""``scripted``: a deterministic fake model for tests and demos, used like any provider.

A script file (YAML or JSON) is either a list of replies or a mapping::

    replies: ["Hi, I want a pizza.", {"size": "small"}]   # replayed in order
    rules:                                                   # tried first, in order
      - match: "(?i)which size"      # regex searched in the last user message
        reply: "Small, please."
    exhausted: error                 # or cycle: what to do after the last reply
    latency: 0.3                     # seconds slept per call (simulates a real model)
    cost_per_call: 0.0               # US dollars charged per call

A reply that is a mapping or list is sent as its JSON text (for schema-bound calls).
Tokens are estimated as whitespace words. ``exhausted: error`` (the default) raises
``ModelError`` when a call matches no rule and the replies are used up, so a test that
makes more calls than it scripted fails loudly instead of silently repeating.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sparring._fields import Regex
from sparring._yaml import check_yaml_limits, read_yaml_text, safe_load
from sparring.errors import ConfigError, ModelError, Problem, UserInputError
from sparring.llm._model import Model
from sparring.llm._types import Completion, CompletionRequest, count_words

ReplyValue = str | dict[str, Any] | list[Any]
Responder = Callable[[list[dict[str, str]]], ReplyValue]
"""A callable script: ``(messages) -> reply`` (text, or a mapping/list sent as JSON)."""


class ScriptRule(BaseModel):
    """``reply`` is given when ``match`` (a regex) is found in the last user message."""

    model_config = ConfigDict(extra="forbid")

    match: Regex
    reply: ReplyValue


class Script(BaseModel):
    """The scripted model's file format (see the module docstring)."""

    model_config = ConfigDict(extra="forbid")

    replies: list[ReplyValue] = Field(default_factory=list)
    rules: list[ScriptRule] = Field(default_factory=list)
    exhausted: Literal["error", "cycle"] = "error"
    latency: float = Field(default=0.0, ge=0.0)
    cost_per_call: float = Field(default=0.0, ge=0.0)


def load_script(path: Path) -> Script:
    """Read a script file (``.yaml``, ``.yml`` or ``.json``).

    Raises ``UserInputError`` when the file is missing or unparsable and ``ConfigError``
    (one ``Problem`` per invalid key) when its content does not fit the format.
    """
    text = read_yaml_text(path)  # raises ConfigError, a UserInputError
    check_yaml_limits(path, text)
    try:
        data = json.loads(text) if path.suffix == ".json" else safe_load(text)
    except (ValueError, yaml.YAMLError) as exc:
        raise UserInputError(Problem(str(path), None, "", f"not valid YAML/JSON: {exc}")) from exc
    if isinstance(data, list):
        data = {"replies": data}
    try:
        return Script.model_validate(data if data is not None else {})
    except ValidationError as exc:
        problems = [
            Problem(str(path), None, _dotted(err["loc"]), err["msg"])
            for err in exc.errors(include_url=False)
        ]
        raise ConfigError(problems) from exc


def _dotted(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _as_text(reply: ReplyValue) -> str:
    return reply if isinstance(reply, str) else json.dumps(reply, ensure_ascii=False)


class ScriptedProvider:
    """Replays a ``Script`` (rules first, then ``responder`` if given, else the replies);
    never leaves the process.

    ``requests`` keeps every message list received, in order, for tests to inspect.
    """

    offline = True

    def __init__(
        self, script: Script, responder: Responder | None = None, name: str = "scripted"
    ) -> None:
        self.script = script
        self.responder = responder
        self.name = name
        self.requests: list[list[dict[str, str]]] = []
        self._next = 0

    async def complete(self, request: CompletionRequest) -> Completion:
        """The next scripted reply; ``ModelError`` when the script is exhausted."""
        self.requests.append(request.messages)
        text = _as_text(self._reply(request.messages))
        if self.script.latency:
            await asyncio.sleep(self.script.latency)
        return Completion(
            text=text,
            model=self.name,
            prompt_tokens=sum(count_words(m["content"]) for m in request.messages),
            completion_tokens=count_words(text),
            cost=self.script.cost_per_call,
        )

    def _reply(self, messages: list[dict[str, str]]) -> ReplyValue:
        last_user = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")
        for rule in self.script.rules:
            if re.search(rule.match, last_user):
                return rule.reply
        if self.responder is not None:
            return self.responder(messages)
        replies = self.script.replies
        if self._next >= len(replies):
            if self.script.exhausted == "cycle" and replies:
                self._next = 0
            else:
                raise ModelError(
                    f"{self.name}: script exhausted after {len(replies)} replies "
                    f"(no rule matched {last_user[:80]!r})"
                )
        reply = replies[self._next]
        self._next += 1
        return reply


class ScriptedModel(Model):
    """A ``Model`` over a ``ScriptedProvider``.

    ``responses`` is a list of replies (replayed in order), a ``Responder`` callable
    ``(messages) -> reply``, or a loaded ``Script`` (then the other script arguments are
    ignored); ``rules``, ``latency`` (seconds), ``cost_per_call`` (US dollars) and
    ``exhausted`` are as in the file format. Transient-failure ``retries`` default to 0.
    """

    def __init__(
        self,
        responses: Sequence[ReplyValue] | Responder | Script,
        *,
        rules: Sequence[ScriptRule | dict[str, Any]] = (),
        latency: float = 0.0,
        cost_per_call: float = 0.0,
        exhausted: Literal["error", "cycle"] = "error",
        name: str = "scripted",
        cache_dir: Path | None = None,
        concurrency: int = 8,
        retries: int = 0,
        timeout: float = 60.0,
    ) -> None:
        responder = responses if callable(responses) else None
        if isinstance(responses, Script):
            script = responses
        else:
            script = Script(
                replies=[] if callable(responses) else list(responses),
                rules=[ScriptRule.model_validate(r) for r in rules],
                latency=latency,
                cost_per_call=cost_per_call,
                exhausted=exhausted,
            )
        self.scripted = ScriptedProvider(script, responder, name=name)
        super().__init__(
            self.scripted,
            name=name,
            cache_dir=cache_dir,
            concurrency=concurrency,
            retries=retries,
            timeout=timeout,
        )

    @classmethod
    def from_file(
        cls,
        path: Path | str,
        *,
        cache_dir: Path | None = None,
        concurrency: int = 8,
        retries: int = 0,
        timeout: float = 60.0,
    ) -> ScriptedModel:
        """Load a script file (see ``load_script`` for the errors raised)."""
        return cls(
            load_script(Path(path)),
            name=f"scripted:{path}",
            cache_dir=cache_dir,
            concurrency=concurrency,
            retries=retries,
            timeout=timeout,
        )

    @property
    def requests(self) -> list[list[dict[str, str]]]:
        """Every message list the model received, in call order."""
        return self.scripted.requests
