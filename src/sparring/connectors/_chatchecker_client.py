"""ChatChecker's chatbot clients, run unchanged behind the ``python`` connector.

A ChatChecker chatbot folder holds ``chatbot_client.py`` with a class ``ChatbotClient``
implementing ChatChecker's ``ChatbotClientInterface``:

- ``set_up_class()`` / ``tear_down_class()`` (class methods, optional): once per run;
- ``set_up_chat()`` → the chatbot's greeting, or ``None`` when the user speaks first;
- ``get_response(user_message)`` → ``(text, is_finished)``;
- ``tear_down_chat()``: once per conversation.

The ``python`` connector recognises such a class by its three per-chat methods
(``is_chatchecker_client``) and adapts it; ``is_finished`` becomes ``Reply.ended``, which
ends the conversation with the finish reason ``chatbot_ended_chat``.

The clients import their base class from ``chat_checker.chatbot_connection``. When the
``chat_checker`` package is not installed, ``install_chatchecker_stand_in`` registers a
small stand-in (this module's ``ChatCheckerClient`` and a console ``chat_with_chatbot``)
under those module names, so a client file imports without ChatChecker and its
dependencies.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from abc import ABC, abstractmethod
from typing import Any

from sparring.connectors._reply import Reply
from sparring.errors import BadPayload

CHAT_METHODS = ("set_up_chat", "get_response", "tear_down_chat")
"""The per-conversation methods that make a class a ChatChecker client."""

STAND_IN_MODULES = (
    "chat_checker",
    "chat_checker.chatbot_connection",
    "chat_checker.chatbot_connection.chatbot_client_base",
    "chat_checker.chatbot_connection.chatbot_client_woz_test",
)
"""Module names the stand-in provides when ChatChecker is not installed."""


class ChatCheckerClient(ABC):
    """The interface of a ChatChecker chatbot client (its ``ChatbotClientInterface``)."""

    @classmethod
    def set_up_class(cls) -> Any:
        """Prepare what every conversation shares (API keys, logging); optional."""
        return None

    @classmethod
    def tear_down_class(cls) -> Any:
        """Release what ``set_up_class`` prepared; optional."""
        return None

    @abstractmethod
    def set_up_chat(self, *args: Any) -> str | None:
        """Open one conversation; return the chatbot's greeting or ``None``."""

    @abstractmethod
    def tear_down_chat(self, *args: Any) -> Any:
        """Close the conversation opened by ``set_up_chat``."""

    @abstractmethod
    def get_response(self, user_message: str) -> tuple[str, bool]:
        """The chatbot's answer to ``user_message`` and whether it ended the chat."""


def is_chatchecker_client(target: Any) -> bool:
    """Whether ``target`` is a class with ChatChecker's per-chat methods."""
    return isinstance(target, type) and all(
        callable(getattr(target, name, None)) for name in CHAT_METHODS
    )


def chatchecker_reply(answer: Any) -> Reply:
    """A ``Reply`` from what ``get_response`` returned: ``(text, is_finished)``.

    A bare string is accepted as an answer that does not end the chat. Raises
    ``BadPayload`` for anything else.
    """
    if isinstance(answer, str):
        return Reply(messages=[answer] if answer else [], raw=answer)
    if (
        isinstance(answer, tuple | list)
        and len(answer) == 2
        and isinstance(answer[0], str | None)
        and isinstance(answer[1], bool)
    ):
        text, finished = answer
        return Reply(messages=[text] if text else [], raw=list(answer), ended=finished)
    raise BadPayload(f"get_response() must return (text, is_finished), not {type(answer).__name__}")


def chatchecker_greeting(answer: Any) -> Reply:
    """A ``Reply`` from what ``set_up_chat`` returned (text or ``None``)."""
    if answer is None or isinstance(answer, str):
        return Reply(messages=[answer] if answer else [], raw=answer)
    raise BadPayload(f"set_up_chat() must return text or None, not {type(answer).__name__}")


def chat_with_chatbot(chatbot_client: ChatCheckerClient) -> None:
    """Talk to a client on the console (ChatChecker's manual test helper); ``exit`` ends."""
    chatbot_client.set_up_class()
    print(f"Chatbot: {chatbot_client.set_up_chat()}")
    try:
        while (text := input("You: ")).lower() not in ("exit", "quit"):
            answer, ended = chatbot_client.get_response(text)
            print(f"Chatbot: {answer}")
            if ended:
                break
    except (KeyboardInterrupt, EOFError):
        pass
    chatbot_client.tear_down_chat()
    chatbot_client.tear_down_class()


def install_chatchecker_stand_in() -> bool:
    """Register the stand-in ``chat_checker`` modules unless ChatChecker is installed;
    return whether they are now in place (``False``: the real package is used)."""
    existing = sys.modules.get("chat_checker")
    if existing is not None:
        return bool(getattr(existing, "__sparring_stand_in__", False))
    if importlib.util.find_spec("chat_checker") is not None:
        return False
    modules = {}
    for name in STAND_IN_MODULES:
        module = types.ModuleType(name, "sparring's stand-in for ChatChecker's client modules")
        module.__path__ = []  # a package, so its submodules import
        vars(module)["__sparring_stand_in__"] = True
        modules[name] = module
    vars(modules[STAND_IN_MODULES[2]])["ChatbotClientInterface"] = ChatCheckerClient
    vars(modules[STAND_IN_MODULES[3]])["chat_with_chatbot"] = chat_with_chatbot
    for name, module in modules.items():
        parent, _, child = name.rpartition(".")
        if parent:
            vars(modules[parent])[child] = module
    sys.modules.update(modules)
    return True
