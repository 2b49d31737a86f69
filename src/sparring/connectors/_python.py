"""A chatbot written in Python, called in process.

``target: "module:attr"`` names either

- a callable ``(text) -> answer`` or ``(text, session_id) -> answer``, or
- a class, instantiated once per conversation (with ``kwargs``), whose ``respond``
  method (else ``__call__``) takes the same arguments; its optional ``greeting()`` gives
  what the bot says before the first user message (an answer as below), and its optional
  ``close()`` is called when the conversation ends;
- a ChatChecker chatbot client (a class with ``set_up_chat``, ``get_response`` and
  ``tear_down_chat``, see ``_chatchecker_client``): ``set_up_chat()`` gives the greeting,
  ``get_response(text)`` → ``(text, is_finished)`` the reply (``is_finished`` is
  ``Reply.ended``), ``tear_down_chat()`` closes the conversation, and the class methods
  ``set_up_class()``/``tear_down_class()`` run once per connector.

Sync or async: sync calls run in a daemon thread of their own (``_isolation``), so a slow
or frozen bot never blocks the event loop, its timeout still fires, and neither the end of
the run nor Ctrl-C waits for it. Every call into the bot (constructor, hooks, replies,
``close``) is bounded by ``timeout`` (a constructor and ``set_up_class()`` by
``start_timeout``). An answer is ``str``, ``list[str]``, ``None``
(empty), a ``Reply``, or a dict with ``messages``/``text``, ``buttons`` (``[{text,
link}]`` or ``[{title, payload}]`` or strings) and ``images``. Anything the bot raises —
``SystemExit`` and ``KeyboardInterrupt`` too — and a call to ``os._exit`` become
``ChatbotCrash``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import uuid
from collections.abc import Callable
from typing import Any

from pydantic import Field

from sparring.connectors._base import (
    ConnectorContext,
    ConnectorParams,
    timed_reply,
    within_timeout,
)
from sparring.connectors._chatchecker_client import (
    chatchecker_greeting,
    chatchecker_reply,
    is_chatchecker_client,
)
from sparring.connectors._isolation import call_bot, guard_process_exit
from sparring.connectors._registry import connector
from sparring.connectors._reply import Reply
from sparring.connectors._targets import load_target
from sparring.errors import BadPayload, ConfigError, Problem
from sparring.types import Button


class PythonParams(ConnectorParams):
    """A Python callable or class that answers user messages."""

    target: str = Field(pattern=r"^([\w.]+|[\w./-]+\.py):[\w.]+$")
    """Import path ``package.module:attribute`` of the bot (function or class), or
    ``file.py:attribute``: a Python file (relative to ``path``, else to chatbot.yaml's
    folder) loaded as ChatChecker loads ``chatbot_client.py``."""
    path: str | None = None
    """Folder added to ``sys.path`` first (relative to ``chatbot.yaml``'s folder)."""
    kwargs: dict[str, Any] = Field(default_factory=dict)
    """Keyword arguments for the class's constructor (classes only)."""
    start_timeout: float = Field(default=120.0, gt=0)
    """Seconds to wait for a class's constructor and a ChatChecker client's
    ``set_up_class()`` (loading a bot can be slow; ``timeout`` bounds every other call)."""


def _takes_session_id(function: Callable[..., Any]) -> bool:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = [
        p
        for p in parameters
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
    ]
    return len(positional) >= 2 or any(p.kind == p.VAR_POSITIONAL for p in positional)


def to_reply(answer: Any) -> Reply:
    """A ``Reply`` from what a Python bot returned (see the module docstring)."""
    if isinstance(answer, Reply):
        return answer.model_copy()
    if answer is None:
        return Reply()
    if isinstance(answer, str):
        return Reply(messages=[answer] if answer else [], raw=answer)
    if isinstance(answer, list) and all(isinstance(a, str) for a in answer):
        return Reply(messages=[a for a in answer if a], raw=answer)
    if isinstance(answer, dict):
        return _dict_reply(answer)
    raise BadPayload(f"the Python bot returned {type(answer).__name__}, not a reply")


def _dict_reply(answer: dict[str, Any]) -> Reply:
    messages = answer.get("messages", answer.get("text", []))
    messages = [messages] if isinstance(messages, str) else messages
    buttons: list[Button] = []
    listed = answer.get("buttons")
    for item in listed if isinstance(listed, list) else []:
        if isinstance(item, str):
            buttons.append(Button(text=item))
        elif isinstance(item, dict):
            text = item.get("text", item.get("title", ""))
            link = item.get("link", item.get("payload"))
            buttons.append(Button(text=str(text), link=None if link is None else str(link)))
    images = answer.get("images")
    images = images if isinstance(images, list) else []
    if not (isinstance(messages, list) and all(isinstance(m, str) for m in messages)):
        raise BadPayload("the Python bot's `messages` must be text or a list of texts")
    return Reply(
        messages=[m for m in messages if m],
        buttons=buttons,
        images=[str(i) for i in images],
        raw=answer,
    )


class PythonConversation:
    """One dialogue: a session id and, for a class target, its own instance."""

    greeting: Reply | None = None

    def __init__(
        self,
        owner: PythonConnector,
        respond: Callable[..., Any],
        bot: Any,
        parse: Callable[[Any], Reply] = to_reply,
    ) -> None:
        self._owner = owner
        self._respond = respond
        self._bot = bot
        self._parse = parse
        self._with_session = _takes_session_id(respond)
        self.session_id = uuid.uuid4().hex

    async def _call(self, text: str) -> Any:
        args = (text, self.session_id) if self._with_session else (text,)
        return await call_bot(self._respond, *args, name="the Python bot")

    async def send(self, text: str) -> Reply:
        """Call the bot with ``text``; convert its answer to a ``Reply``."""
        owner = self._owner
        context = owner.context
        return await timed_reply(
            self._call(text), owner.timeout, context.redact, self._parse, limits=context.limits
        )

    async def close(self) -> None:
        """Call the instance's ``close()`` (or ``aclose()``, or a ChatChecker client's
        ``tear_down_chat()``) if it has one; never raises."""
        if self._bot is None:
            return
        closer = next(
            (
                getattr(self._bot, name)
                for name in ("aclose", "close", "tear_down_chat")
                if callable(getattr(self._bot, name, None))
            ),
            None,
        )
        if closer is not None:
            with contextlib.suppress(Exception):  # closing must never fail a run
                await within_timeout(call_bot(closer, name="close()"), self._owner.timeout)


class PythonConnector:
    """Calls one Python bot in process."""

    def __init__(self, params: PythonParams, context: ConnectorContext) -> None:
        self.context = context
        self.timeout = params.timeout
        self.start_timeout = params.start_timeout
        self.target_name = params.target
        self._kwargs = params.kwargs
        self.target = load_target(params.target, params.path, context.base_dir)
        guard_process_exit()
        self.chatchecker = is_chatchecker_client(self.target)
        self._class_ready = False
        self._class_lock = asyncio.Lock()
        if self._kwargs and not inspect.isclass(self.target):
            message = f"{params.target} is not a class: it takes no kwargs"
            raise ConfigError(Problem("", None, "kwargs", message))

    def __repr__(self) -> str:
        return f"PythonConnector({self.target_name!r})"

    async def open(self) -> PythonConversation:
        """A new conversation; a class target is instantiated for it.

        Raises ``ChatbotCrash`` when the constructor raises.
        """
        if not inspect.isclass(self.target):
            return PythonConversation(self, self.target, None)
        if self.chatchecker:
            await self._set_up_class()
        make = functools.partial(self.target, **self._kwargs)
        bot: Any = await within_timeout(
            call_bot(make, name=f"creating {self.target_name}"),
            self.start_timeout,
            "new conversation",
        )
        if self.chatchecker:
            return await self._open_chatchecker(bot)
        respond: Any = getattr(bot, "respond", None)
        if not callable(respond):
            respond = bot
        conversation = PythonConversation(self, respond, bot)
        greet = getattr(bot, "greeting", None)
        if callable(greet):
            conversation.greeting = await timed_reply(
                _greet(greet, f"{self.target_name}.greeting"),
                self.timeout,
                self.context.redact,
                to_reply,
                limits=self.context.limits,
            )
        return conversation

    async def _open_chatchecker(self, bot: Any) -> PythonConversation:
        """A conversation with a ChatChecker client: ``set_up_chat()`` is its greeting."""
        conversation = PythonConversation(self, bot.get_response, bot, chatchecker_reply)
        name = f"{self.target_name}.set_up_chat"
        try:
            greeting = await timed_reply(
                _greet(bot.set_up_chat, name),
                self.timeout,
                self.context.redact,
                chatchecker_greeting,
                limits=self.context.limits,
            )
        except BaseException:
            await conversation.close()
            raise
        conversation.greeting = greeting if greeting.messages else None
        return conversation

    async def _set_up_class(self) -> None:
        """Call a ChatChecker client's ``set_up_class()`` once, before its first chat."""
        async with self._class_lock:
            if self._class_ready:
                return
            setup = getattr(self.target, "set_up_class", None)
            if callable(setup):
                await within_timeout(
                    _greet(setup, f"{self.target_name}.set_up_class"),
                    self.start_timeout,
                    "set-up",
                )
            self._class_ready = True

    async def aclose(self) -> None:
        """Call a ChatChecker client's ``tear_down_class()`` when its set-up ran; never
        raises."""
        teardown = getattr(self.target, "tear_down_class", None)
        if self._class_ready and callable(teardown):
            self._class_ready = False
            with contextlib.suppress(Exception):
                await within_timeout(call_bot(teardown, name="tear_down_class()"), self.timeout)


async def _greet(greet: Callable[[], Any], name: str) -> Any:
    """Call a bot's no-argument hook (``greeting()``, ``set_up_chat()``); whatever it
    raises is a ``ChatbotCrash`` naming ``name``."""
    return await call_bot(greet, name=f"{name}()")


@connector("python", runs_code=True)
def python(params: PythonParams, context: ConnectorContext) -> PythonConnector:
    """A Python function or class (module:attr) called in process, sync or async."""
    return PythonConnector(params, context)
