"""The offline exploration strategy: a breadth-first crawler over what the chatbot offers.

For menu- and button-driven bots and bots that announce their options in text (no model):
every state the bot reaches is identified by what it says and offers; a state is reached
again by replaying its shortest path from a fresh conversation. The frontier is every
(state, option) pair not yet tried, taken breadth-first; within one session the crawler
then keeps pressing untried options while the turn limit allows, so each session goes as
deep as it can. A free question (no options) is answered with a neutral value of the kind
it asks for; a fallback reply after an option's text is retried with the button's payload.
``_build`` turns the crawl into the functionality model.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from sparring.connectors import Reply
from sparring.explore._options import Offer, read_offer
from sparring.explore._probing import is_fallback, similar
from sparring.explore._session import ExplorationContext, Session
from sparring.types import Strategy

FREE_ANSWERS: tuple[tuple[str, str], ...] = (
    (r"\b(e-?mail)\b", "alex@example.com"),
    (r"\b(phone|number to call)\b", "+1 555 0100"),
    (r"\b(name)\b", "Alex Smith"),
    (r"\b(date|day|when)\b", "tomorrow"),
    (r"\b(time|hour)\b", "6 pm"),
    (r"\b(how many|quantity|number)\b", "2"),
    (r"\b(address|where)\b", "12 Main Street"),
)
"""Neutral answers to free questions, by what the question asks; ``GENERIC_ANSWER`` else."""
GENERIC_ANSWER = "the usual, please"
START_MESSAGE = "Hello"
"""Sent first when the bot does not greet, or greets without offering anything."""
FREE = "<free input>"
"""The option key of a free question's answer."""


@dataclass(frozen=True)
class Step:
    """One user turn of a path: what is said, and the payload to retry with."""

    text: str
    payload: str | None = None


@dataclass
class State:
    """A place in the bot's flow: what it said, what it offers, how to get there."""

    key: str
    text: str
    offer: Offer
    path: tuple[Step, ...]
    fallback: bool = False
    sessions: set[str] = field(default_factory=set)

    @property
    def options(self) -> tuple[str, ...]:
        """What can be pressed here: the offered options, or ``FREE`` for a question."""
        if self.offer.options:
            return self.offer.options
        return (FREE,) if self.asks and not self.fallback else ()

    @property
    def asks(self) -> bool:
        """Whether the state asks the user something (ends its question with ``?``)."""
        return bool(self.offer.question and self.offer.question.endswith("?"))


@dataclass
class Crawl:
    """The crawl's result: states by key, transitions ``(state, option) → state`` (the
    first seen), every edge ``(state, option, state)`` seen (the same option may lead
    elsewhere on another path: state the bot keeps, such as a custom pizza's toppings
    asked after its size), the root (where conversations start), the sessions used and
    user turns sent."""

    states: dict[str, State] = field(default_factory=dict)
    transitions: dict[tuple[str, str], str] = field(default_factory=dict)
    edges: set[tuple[str, str, str]] = field(default_factory=set)
    utterances: dict[tuple[str, str], str] = field(default_factory=dict)
    root: str | None = None
    sessions: int = 0
    turns: int = 0
    notes: list[str] = field(default_factory=list)


def free_answer(question: str | None) -> str:
    """A neutral answer to a free question (see ``FREE_ANSWERS``)."""
    for pattern, answer in FREE_ANSWERS:
        if question and re.search(pattern, question, re.IGNORECASE):
            return answer
    return GENERIC_ANSWER


class Crawler:
    """Breadth-first crawl within ``ctx.sessions`` sessions of ``ctx.turns`` user turns."""

    def __init__(
        self, ctx: ExplorationContext, on_session: Callable[[Crawl], None] | None = None
    ) -> None:
        self.ctx = ctx
        self.on_session = on_session
        self.crawl = Crawl()
        self.frontier: deque[tuple[str, str]] = deque()
        self.attempted: set[tuple[str, str]] = set()

    async def run(self) -> Crawl:
        """Crawl until the frontier is empty or the sessions are used up."""
        while self.crawl.sessions < self.ctx.sessions:
            if self.crawl.root is not None and not self._next_target():
                break
            self.crawl.sessions += 1
            name = f"crawl-{self.crawl.sessions:03d}"
            async with self.ctx.session(name, Strategy.OFFLINE) as session:
                await self._session(session)
            if self.on_session is not None:
                self.on_session(self.crawl)
            if session.failed and self.crawl.root is None:
                self.crawl.notes.append("the chatbot failed before the crawl could start")
                break
        return self.crawl

    def _next_target(self) -> tuple[str, str] | None:
        while self.frontier:
            target = self.frontier[0]
            if target not in self.crawl.transitions and target not in self.attempted:
                return target
            self.frontier.popleft()
        return None

    async def _session(self, session: Session) -> None:
        current = await self._start(session)
        if current is None:
            return
        target = self._next_target()
        if target is not None:
            self.attempted.add(target)
            current = await self._replay(session, current, self.crawl.states[target[0]].path)
        while current is not None and session.user_turns < self.ctx.turns:
            option = self._untried(current)
            if option is None:
                # Everything here was tried, maybe on another path: go on, since the bot may
                # remember that path and answer differently.
                option = current.options[0] if current.options else None
            if option is None:
                break
            current = await self._press(session, current, option)

    async def _start(self, session: Session) -> State | None:
        greeting = session.greeting
        path: tuple[Step, ...] = ()
        if greeting is None or not (read_offer(greeting).options or greeting.messages):
            greeting = await session.send(START_MESSAGE)
            self.crawl.turns += 1
            path = (Step(START_MESSAGE),)
        if greeting is None:
            return None
        state = self._state(greeting, path, session, previous=None)
        if self.crawl.root is None:
            self.crawl.root = state.key
        return state

    async def _replay(self, session: Session, start: State, path: tuple[Step, ...]) -> State | None:
        current: State | None = start
        skip = 1 if path and path[0].text == START_MESSAGE and start.path else 0
        for step in path[skip:]:
            if current is None or session.user_turns >= self.ctx.turns:
                return None
            current = await self._send(session, current, step, record=False)
        return current

    def _untried(self, state: State) -> str | None:
        tried = self.crawl.transitions
        return next((o for o in state.options if (state.key, o) not in tried), None)

    async def _press(self, session: Session, state: State, option: str) -> State | None:
        if option == FREE:
            step = Step(free_answer(state.offer.question))
        else:
            index = state.offer.options.index(option)
            step = Step(option, state.offer.payloads[index])
        nxt = await self._send(session, state, step, record=True, option=option)
        return nxt

    async def _send(
        self, session: Session, state: State, step: Step, *, record: bool, option: str = ""
    ) -> State | None:
        reply = await session.send(step.text)
        self.crawl.turns += 1
        fallback = self.ctx.findings.fallback
        if reply is not None and step.payload and is_fallback(_said(reply), fallback):
            retried = await session.send(step.payload)
            self.crawl.turns += 1
            reply = retried if retried is not None else reply
        if reply is None:
            return None
        nxt = self._state(reply, (*state.path, step), session, previous=state)
        if record:
            self.crawl.transitions.setdefault((state.key, option), nxt.key)
            self.crawl.edges.add((state.key, option, nxt.key))
            self.crawl.utterances[(state.key, option)] = step.text
        return None if nxt.fallback else nxt

    def _state(
        self, reply: Reply, path: tuple[Step, ...], session: Session, previous: State | None
    ) -> State:
        offer = read_offer(reply)
        text = _said(reply)
        fallback = is_fallback(text, self.ctx.findings.fallback)
        key = _key(text, offer, previous, self.crawl.states, fallback)
        state = self.crawl.states.get(key)
        if state is None:
            state = State(key, text, offer, path, fallback)
            self.crawl.states[key] = state
            for option in state.options:
                self.frontier.append((key, option))
        state.sessions.add(session.id)
        return state


def _said(reply: Reply) -> str:
    return "\n".join(reply.messages)


def _key(
    text: str, offer: Offer, previous: State | None, states: dict[str, State], fallback: bool
) -> str:
    """A state's identity: the fallback is one state; a state that offers or asks is its
    text (digits masked) plus its options; an answer (offers and asks nothing) is
    identified by the state before it, merged with a similar earlier answer from there."""
    if fallback:
        return "fallback"
    masked = re.sub(r"\d+", "#", text.lower()).strip()
    if offer.options or (offer.question or "").endswith("?"):
        return masked + " | " + " / ".join(o.lower() for o in offer.options)
    origin = previous.key if previous is not None else ""
    for key, state in states.items():
        if key.startswith(f"answer<{origin}>") and similar(state.text, text) >= 0.5:
            return key
    return f"answer<{origin}>#{len(states)}"
