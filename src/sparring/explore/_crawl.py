"""The offline exploration strategy: a breadth-first crawler over what the chatbot offers.

For menu- and button-driven bots and bots that announce their options in text (no model):
every state the bot reaches is identified by what it says and offers; a state is reached
again by replaying its shortest path from a fresh conversation. The frontier is every
(state, option) pair not yet tried, taken breadth-first; within one session the crawler
then keeps pressing untried options while the turn limit allows, so each session goes as
deep as it can. A free question (no options) is answered from ``_answers``: values from
the bot's own words, then typed placeholders, never the same answer twice to one question;
a rejection that lists values ("Sorry, we do not serve X. We have A or B") gives the
question those options, and a rejection that repeats the question ("X is not available.
What topping?") is the same state (the rejected value masked), so the next answer is
another value. A free answer the bot takes for another request (it replies what it says
at the start to another option: "time" answered with the opening hours) is neither a value
nor an edge of the question's flow. A reply that contains the fallback but asks a question
of its own (a form asking again) is not the fallback. A fallback reply after an option's
text is retried with the button's payload. A statement that offers a choice without asking
("I can tell you the price of tune-up, new tire and new seat") offers those options.
``_build`` turns the crawl into the functionality model.

A start that offers nothing (a free-text bot: "What can I do for you?") is given options
by one ``capabilities`` session: the capability probes are sent and the greeting, the
fallback and their replies are parsed for what they list (``_capabilities``); the common
requests follow what was listed. Free answers the bot accepted are kept per question
(``Crawl.accepted``): the parameter's examples, the values generated profiles use.
``Crawl.origins`` keeps the evidence for every option of the start.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from sparring.connectors import Reply
from sparring.dialogue_acts import DialogueAct, asks_something, classify_dialogue_act
from sparring.explore._answers import asks_several, free_answers
from sparring.explore._capabilities import COMMON_REQUESTS, PROBES, TASK_PROBES, capabilities
from sparring.explore._options import Offer, read_offer
from sparring.explore._session import ExplorationContext, Session
from sparring.fallback import is_fallback
from sparring.similarity import indel_similarity
from sparring.types import Strategy

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
        """Whether the state asks the user something (its question ends with ``?`` or is
        a request without one: ``sparring.dialogue_acts.asks_something``)."""
        return bool(self.offer.question and asks_something(self.offer.question))


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
    accepted: dict[str, list[str]] = field(default_factory=dict)
    """State key → free answers the bot accepted there (it moved on without refusing)."""
    led: dict[tuple[str, str], str] = field(default_factory=dict)
    """(state key, accepted free answer) → the state it led to (the first time)."""
    replies: dict[tuple[str, str], str] = field(default_factory=dict)
    """(state key, accepted free answer) → the bot's reply to it (the first time)."""
    origins: dict[str, str] = field(default_factory=dict)
    """Evidence for options the start did not offer itself (lower-cased option → how it
    was found: listed in the greeting, the fallback or a probe's reply, or a common
    request)."""


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
        self.answered: dict[str, set[str]] = {}
        self.refusals: dict[str, list[str]] = {}
        """Per state, the bot's refusals of free answers there ("Sorry, we only cover
        Leeds, Bradford and Wakefield. Is there another address?"): what they name is
        tried next (``free_answers``)."""

    async def run(self) -> Crawl:
        """Crawl until the frontier is empty or the sessions are used up."""
        discovered = False
        while self.crawl.sessions < self.ctx.sessions and not self.ctx.stopping():
            root = self.crawl.states.get(self.crawl.root or "")
            seeded = bool(self.ctx.seeds)
            if root is not None and (seeded or not root.offer.options) and not discovered:
                discovered = True
                await self._discover(root)
                continue
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

    async def _discover(self, root: State) -> None:
        """One session of capability probes; the seeds (``--project``, ``--docs``) and what
        the texts list become the start's options (the common requests when nothing is
        listed or seeded)."""
        self.crawl.sessions += 1
        for utterance, origin in self.ctx.seeds:
            self.crawl.origins.setdefault(utterance.lower(), origin)
        texts: dict[str, str] = {"the greeting": root.text}
        if self.ctx.findings.fallback:
            texts["the fallback"] = self.ctx.findings.fallback
        async with self.ctx.session("capabilities", Strategy.OFFLINE) as session:
            for probe in PROBES:
                reply = await session.send(probe)
                self.crawl.turns += 1
                if reply is None:
                    break
                said = _said(reply)
                texts[f"the reply to {probe!r}"] = said
                answered = said.strip() and not is_fallback(said, self.ctx.findings.fallback)
                if answered and probe in TASK_PROBES and indel_similarity(said, root.text) < 0.8:
                    self.crawl.origins.setdefault(probe, f"the probe {probe!r} was answered")
        for where, text in texts.items():
            for item in capabilities(text):
                if not re.search(r"\d", item):  # "espresso 2.00 €" is content, not a task
                    self.crawl.origins.setdefault(item.lower(), f"listed in {where}")
        listed = any(o.startswith("listed in") for o in self.crawl.origins.values())
        why = "a common request" + ("" if listed else " (nothing was listed)")
        for request in COMMON_REQUESTS:  # after what was listed: the frontier is breadth-first
            self.crawl.origins.setdefault(request.lower(), why)
        found = list(self.crawl.origins)
        spelt = (*(u for u, _ in self.ctx.seeds), *COMMON_REQUESTS)
        known = {o.lower() for o in root.offer.options}
        fresh = tuple(_original(o, texts.values(), spelt) for o in found if o.lower() not in known)
        root.offer = Offer(
            (*root.offer.options, *fresh),
            (*root.offer.payloads, *(None for _ in fresh)),
            root.offer.from_buttons,
            root.offer.question,
        )
        self.frontier.extend((root.key, o) for o in fresh)
        if self.on_session is not None:
            self.on_session(self.crawl)

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
        stuck: set[str] = set()
        while current is not None and session.user_turns < self.ctx.turns:
            option = self._untried(current)
            if option is None:
                # Everything here was tried, maybe on another path: go on, since the bot may
                # remember that path and answer differently — but only once per state in a
                # session (back at the start, or answering the same again, is no progress).
                if current.key in stuck or current.key == self.crawl.root:
                    break
                stuck.add(current.key)
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
            # Keyed by the question, not the state: a rejection that repeats the question
            # ("The topping X is not available. What topping?") is asked the same question.
            asked = re.sub(r"\d+", "#", (state.offer.question or state.key).lower())
            tried = self.answered.setdefault(asked, set())
            candidates = [
                *self.ctx.values_for(state.offer.question),
                *free_answers(state.offer.question, state.text, *self.refusals.get(state.key, [])),
            ]
            untried = [a for a in dict.fromkeys(candidates) if a not in tried]
            if not untried:
                return None  # every answer we have was given to this question
            tried.add(untried[0])
            step = Step(untried[0])
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
        if option == FREE and self._rejection_with_options(state, reply):
            return state
        if option == FREE and _reasks(reply, self.ctx.findings.fallback):
            # "The return date must be after the pick-up date. When will you bring the car
            # back?": the answer is refused and the same question asked in other words
            self.attempted.discard((state.key, FREE))
            self.frontier.append((state.key, FREE))
            self.refusals.setdefault(state.key, []).append(_said(reply))
            return state
        switched = self._switched(state, reply) if option == FREE else None
        if switched is not None:  # taken for another request: neither accepted nor an edge;
            self.attempted.discard((state.key, FREE))  # the question waits for another answer
            self.frontier.append((state.key, FREE))
            return switched
        nxt = self._state(reply, (*state.path, step), session, previous=state, said=step.text)
        if option == FREE and _accepted(state, nxt):
            answers = self.crawl.accepted.setdefault(state.key, [])
            if step.text not in answers:
                answers.append(step.text)
            self.crawl.led.setdefault((state.key, step.text), nxt.key)
            self.crawl.replies.setdefault((state.key, step.text), _said(reply))
        if record:
            self.crawl.transitions.setdefault((state.key, option), nxt.key)
            self.crawl.edges.add((state.key, option, nxt.key))
            self.crawl.utterances[(state.key, option)] = step.text
        return None if nxt.fallback else nxt

    def _switched(self, state: State, reply: Reply) -> State | None:
        """The start-level answer ``reply`` repeats, when the bot took a free answer for
        another request ("time" answered with the opening hours): the question's flow was
        left, so the answer is no value of it."""
        text = _said(reply)
        root = self.crawl.root
        for source, _, target in sorted(self.crawl.edges):
            known = self.crawl.states[target]
            if source != root or target == state.key or known.asks or known.offer.options:
                continue
            if known.text.strip() and indel_similarity(known.text, text) >= 0.8:
                return known
        return None

    def _free_question(self, question: str | None) -> bool:
        """A question whose listed words are what to give, not values to pick ("the date,
        time and the service you need?"), or one the definition has values for."""
        return bool(self.ctx.values_for(question)) or asks_several(question)

    def _rejection_with_options(self, state: State, reply: Reply) -> bool:
        """A reply to a free answer that asks nothing new but lists values ("Sorry, we do
        not serve X. We have A, B or C") gives ``state``'s question those options."""
        offer = read_offer(reply)
        text = _said(reply)
        if not offer.options or "?" in text or is_fallback(text, self.ctx.findings.fallback):
            return False
        known = {o.lower() for o in state.offer.options}
        fresh = tuple(o for o in offer.options if o.lower() not in known)
        options = (*state.offer.options, *fresh)
        state.offer = Offer(
            options, (*state.offer.payloads, *(None for _ in fresh)), False, state.offer.question
        )
        self.frontier.extend((state.key, o) for o in fresh)
        return True

    def _state(
        self,
        reply: Reply,
        path: tuple[Step, ...],
        session: Session,
        previous: State | None,
        said: str = "",
    ) -> State:
        offer = _offer(reply)
        asks = asks_something(offer.question or "")  # a statement's options: its only way on
        if (
            not offer.from_buttons
            and offer.options
            and asks
            and self._free_question(offer.question)
        ):
            offer = Offer((), (), False, offer.question)
        text = _said(reply)
        fallback = _is_fallback(text, self.ctx.findings.fallback)
        # the answer said back is masked ("X is not available"), not one the bot lists
        listed = previous is not None and said.lower() in previous.text.lower()
        masked = text.replace(said, "<value>") if len(said) > 2 and not listed else text
        key = _key(masked, offer, previous, self.crawl.states, fallback)
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


_REFUSAL = re.compile(
    r"\b(?:can ?not|can't|cannot|not (?:available|valid|possible)|try again|"
    r"invalid|sorry|unfortunately|(?:select|choose|pick) (?:an)?other|is clos|"
    r"(?:must|has to|needs to) be\b|in the past|already (?:passed|gone|over|taken)|"
    r"(?:we're|we are|is|are) closed|i'm afraid|(?:only|don't|do not) (?:cover|serve|work)|"
    r"(?:doesn't|does not|don't|do not) (?:look|seem) (?:like|right|valid)|not a valid|"
    r"isn't (?:a )?valid)",
    re.IGNORECASE,
)


def _reasks(reply: Reply, fallback: str | None) -> bool:
    """Whether ``reply`` refuses a free answer and asks again (``_REFUSAL``, then a
    question, offering nothing to pick): the question asked before, in other words."""
    text = _said(reply)
    offer = read_offer(reply)
    asks = (offer.question or "").endswith("?")
    refused = _REFUSAL.search(text) is not None or is_fallback(text, fallback) is not None
    return asks and refused and not offer.options and not reply.buttons


def _accepted(question: State, answer: State) -> bool:
    """Whether the bot took the free answer: it moved on (another state, not the
    fallback, even one that asks again, not the same question again) without refusing."""
    if not answer.text.strip() or answer.fallback or answer.key == question.key:
        return False
    if is_fallback(answer.text) is not None:
        return False
    if _REFUSAL.search(answer.text):
        return False
    asked = (question.offer.question or "").lower()
    return not asked or asked not in answer.text.lower()


def _offer(reply: Reply) -> Offer:
    """What ``reply`` offers to press: its buttons, or the options its text announces when
    it asks something ("Which size? Small, medium or large") or its dialogue act is an
    offer or a request ("Pick one: red, green or blue.") — an answer that only lists
    things ("We treat dogs, cats and birds.", "You can pick up at our Airport, Central
    Station or Downtown branch.") offers nothing to press, and neither does a closing
    question after it ("Anything else?")."""
    offer = read_offer(reply)
    text = _said(reply)
    asks = (offer.question or "").endswith("?")  # closing questions left out (_options)
    act = classify_dialogue_act(text)
    if offer.from_buttons or (offer.options and (asks or act in _OFFERS)):
        return offer
    offering = _OFFERING.search(text)
    if offering:  # "I can tell you the price of tune-up, new tire and new seat"
        items = capabilities(offering.group(0))
        if len(items) >= 2:
            items[0] = re.sub(r"^.*\bof\s+", "", items[0])  # "price of tune-up" → "tune-up"
            return Offer(tuple(items), tuple(None for _ in items), False, offering.group(0))
    return Offer((), (), False, offer.question)


_OFFERS = (DialogueAct.OFFER, DialogueAct.REQUEST)
"""The dialogue acts whose listed options are a choice (``sparring.dialogue_acts``); a list
in an answer ("You can pick up at our Airport, Central Station or Downtown branch.") is
information."""
_OFFERING = re.compile(
    r"\b(?:I|we)\s+can\s+(?:tell|give|show)\s+you\s+(?:about\s+)?[^.!?\n]*\bof\b[^.!?\n]+",
    re.IGNORECASE,
)
"""A statement that offers a choice without asking ("I can tell you the price of X, Y and
Z"): a form's question written as a statement."""


def _is_fallback(text: str, fallback: str | None) -> bool:
    """Whether ``text`` is the fallback (``sparring.fallback``): not when, beside the
    fallback, it asks a question of its own (a form asking for its slot again is a
    question, not the fallback)."""
    match = is_fallback(text, fallback)
    return match is not None and not match.reprompt


def _original(item: str, texts: Iterable[str], requests: tuple[str, ...]) -> str:
    """``item`` (lower-cased) as the seeds, the request list or the bot spelt it."""
    for request in requests:
        if request.lower() == item:
            return request
    for text in texts:
        at = text.lower().find(item)
        if at >= 0:
            return text[at : at + len(item)]
    return item


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
        if key.startswith(f"answer<{origin}>") and indel_similarity(state.text, text) >= 0.5:
            return key
    return f"answer<{origin}>#{len(states)}"
