"""In-process chatbots for simulate tests (real Connector implementations, no network)."""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from aiohttp import web

from sparring.connectors import Button, Reply
from sparring.errors import ChatbotCrash
from sparring.simulate._spec import ConversationSpec, StopCondition


class FakeConversation:
    def __init__(self, respond: Callable[[str, int], Reply], latency: float = 0.0) -> None:
        self.respond = respond
        self.latency = latency
        self.turn = 0
        self.closed = False

    async def send(self, text: str) -> Reply:
        if self.latency:
            await asyncio.sleep(self.latency)
        reply = self.respond(text, self.turn)
        self.turn += 1
        return reply

    async def close(self) -> None:
        self.closed = True


class FakeConnector:
    """Opens conversations answered by ``respond(text, turn_index) -> Reply``."""

    def __init__(self, respond: Callable[[str, int], Reply], latency: float = 0.0) -> None:
        self.respond = respond
        self.latency = latency
        self.opened: list[FakeConversation] = []

    async def open(self) -> FakeConversation:
        conversation = FakeConversation(self.respond, self.latency)
        self.opened.append(conversation)
        return conversation

    async def aclose(self) -> None:
        return None


def pizza_bot(text: str, turn: int) -> Reply:
    """A tiny pizzeria: asks the size, then a drink, then confirms with a price and id."""
    low = text.lower()
    if re.search(r"\b(how much|cost|price)\b", low):
        return Reply(messages=["A medium pizza with a drink costs 12.50$."])
    if "pizza" in low and not re.search(r"\b(small|medium|large)\b", low):
        return Reply(
            messages=["Which size would you like? The options are small, medium or large."]
        )
    if re.search(r"\b(small|medium|large)\b", low):
        return Reply(
            messages=["What would you like to drink?"],
            buttons=[Button(text="coke", link="/drink_coke"), Button(text="water", link=None)],
        )
    if "coke" in low or "water" in low or "drink_coke" in low:
        return Reply(messages=["Your order is confirmed. Total price: 12.50$. Order ID is ab12cd."])
    return Reply(messages=["Sorry, I didn't get that."])


def crashing_bot(text: str, turn: int) -> Reply:
    if turn >= 1:
        raise ChatbotCrash("HTTP 500 from chatbot")
    return Reply(messages=["hello"])


def empty_bot(text: str, turn: int) -> Reply:
    return Reply(messages=[])


def parrot_bot(text: str, turn: int) -> Reply:
    return Reply(messages=["I can only talk about the weather."])


Handler = Callable[[web.Request], Awaitable[web.Response]]


@contextlib.contextmanager
def loopback_server(
    routes: dict[str, Callable[[web.Request], Awaitable[web.Response]]],
) -> Iterator[str]:
    """An aiohttp server on 127.0.0.1 serving ``routes`` (path → POST handler) in a
    thread; yields ``host:port``."""
    loop = asyncio.new_event_loop()
    started = threading.Event()
    address: list[str] = []

    async def start() -> web.AppRunner:
        application = web.Application()
        for path, handler in routes.items():
            application.router.add_post(path, handler)
        runner = web.AppRunner(application, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        address.append(f"127.0.0.1:{site._server.sockets[0].getsockname()[1]}")  # type: ignore[union-attr]
        return runner

    def serve() -> None:
        asyncio.set_event_loop(loop)
        runner = loop.run_until_complete(start())
        started.set()
        loop.run_forever()
        loop.run_until_complete(runner.cleanup())

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    started.wait(10)
    try:
        yield address[0]
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


_FRAME = re.compile(r"^(?:It's )?(.*?)(?:, please)?\.?$")


def value_said(utterance: str) -> str:
    """The value of a user's answer without the answer frame its seed drew ("It's 6 pm."
    and "6 pm, please." → "6 pm"; ``simulate._agenda_realise.ANSWER_FRAMES``)."""
    match = _FRAME.match(utterance.strip())
    return match.group(1) if match else utterance


def agenda_spec(
    goals: list[str],
    templates: list[str],
    variables: dict[str, Any],
    alternatives: dict[str, list[Any]] | None = None,
    *,
    limit: int,
) -> ConversationSpec:
    """One conversation's spec for the agenda user: ``goals`` (their ``templates``), the
    picked ``variables`` and their ``alternatives``, ending when all are answered or after
    ``limit`` turns."""
    return ConversationSpec(
        id="p/0", profile="p", goals=tuple(goals), goal_templates=tuple(templates),
        variables=variables, alternatives=alternatives or {},
        stop=StopCondition("all_answered", limit=limit),
    )  # fmt: skip
