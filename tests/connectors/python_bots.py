"""Python chatbots the `python` connector tests import (by `bots:<name>`)."""

from __future__ import annotations

import asyncio
import time
from typing import Any, ClassVar


def echo(text: str) -> str:
    return f"echo: {text}"


def with_session(text: str, session_id: str) -> list[str]:
    return [text.upper(), session_id]


async def async_bot(text: str) -> dict[str, Any]:
    await asyncio.sleep(0)
    return {
        "text": "Pick one",
        "buttons": [{"title": "A", "payload": "/a"}, "B", {"text": "C", "link": "http://c"}],
        "images": ["x.png"],
    }


def broken(text: str) -> str:
    raise ValueError("bot bug")


def slow(text: str) -> str:
    time.sleep(1.0)
    return "late"


def silent(text: str) -> None:
    return None


def weird(text: str) -> int:
    return 42


class Counter:
    """A class bot: one instance per conversation, so counts are per conversation."""

    instances: ClassVar[list[Counter]] = []

    def __init__(self, start: int = 0) -> None:
        self.count = start
        self.closed = False
        Counter.instances.append(self)

    def respond(self, text: str) -> str:
        self.count += 1
        return f"{self.count}: {text}"

    def close(self) -> None:
        self.closed = True


class AsyncCallable:
    async def __call__(self, text: str, session_id: str) -> str:
        return f"{session_id[:4]}|{text}"


class BadInit:
    def __init__(self) -> None:
        raise RuntimeError("cannot start")

    def respond(self, text: str) -> str:
        return text


NOT_CALLABLE = 3


# Hostile bots (issue 26): each misbehaves in a way that used to take the job with it.


def exits(text: str) -> str:
    raise SystemExit(0)


def exits_with_3(text: str) -> str:
    raise SystemExit(3)


def interrupts(text: str) -> str:
    raise KeyboardInterrupt


async def async_exits(text: str) -> str:
    raise SystemExit(0)


def hard_exit(text: str) -> str:
    import os

    os._exit(3)


def frozen(text: str) -> str:
    threading_event().wait()  # never set: the call never returns
    return "never"


def threading_event() -> Any:
    import threading

    return threading.Event()


def surrogate(text: str) -> dict[str, Any]:
    return {"text": "bad \ud800 text", "buttons": [{"title": "\udfff", "payload": "/x"}]}


def huge(text: str) -> str:
    return "x" * 2_000_000


def deep(text: str) -> dict[str, Any]:
    value: Any = "bottom"
    for _ in range(100_000):
        value = [value]
    return {"text": "deep", "extra": value}


class FrozenGreeting:
    def greeting(self) -> str:
        threading_event().wait()
        return "never"

    def respond(self, text: str) -> str:
        return text


class FrozenInit:
    def __init__(self) -> None:
        threading_event().wait()

    def respond(self, text: str) -> str:
        return text
