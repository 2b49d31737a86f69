"""Local bots, a CoQA story with pronouns and its hand-worked answerability, shared by
the metamorphic tests."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from sparring import __version__
from sparring.conversations import ConversationRecord, RunManifest, RunStore, Turn
from sparring.metamorphic._answerability import DialogueAnalysis, RoundAnalysis, SeedDialogue
from sparring.types import Strategy

BOT = '''
import time

class StoryBot:
    """Answers questions about Anna's bike; pronouns need the bike mentioned before
    (``forgetful``: ignores the context, answers as if it knew; ``suffix`` ends every
    reply, e.g. with Rich markup or terminal escapes)."""

    def __init__(self, forgetful=False, delay=0.0, suffix=""):
        self.knows_bike = False
        self.forgetful = forgetful
        self.delay = delay
        self.suffix = suffix

    def respond(self, text):
        return self.answer(text) + self.suffix

    def answer(self, text):
        if self.delay:
            time.sleep(self.delay)
        t = text.lower()
        if t.startswith("story:"):
            return "OK, I have read the story."
        if "what does anna have" in t:
            self.knows_bike = True
            return "Anna has a red bike."
        if "colour" in t:
            return "It is red." if self.knows_bike or self.forgetful else "Which thing do you mean?"
        if "where does she ride" in t:
            if self.knows_bike or self.forgetful:
                return "She rides it to school."
            return "Sorry, who is she and what is it?"
        if "my name is" in t:
            return "Nice to meet you, " + text.split()[-1] + "."
        if "price" in t:
            return "A large pizza costs $12.50. Your order id is PZ-1234."
        if "crash" in t:
            raise RuntimeError("boom")
        return "You said: " + text


class OrderBot:
    """A task bot whose answers depend on its state, not on pronouns: the total exists
    only once a pizza is ordered (``amnesic``: it also forgets the menu's prices)."""

    def __init__(self, amnesic=False):
        self.ordered = False
        self.amnesic = amnesic

    def respond(self, text):
        t = text.lower()
        if "menu" in t:
            return "We have margherita and pepperoni."
        if "want a pizza" in t:
            self.ordered = True
            return "One margherita, ordered."
        if "cost" in t:
            if self.ordered:
                return "Your order costs $9.50 in total."
            return "I do not know." if self.amnesic else "Pizzas cost from $8.00."
        return "Sorry?"


ORDERS = [0]  # shared by every conversation of the process, as a real order counter is


class TicketBot:
    """A correct deterministic task bot with identifiers and state: each order gets the
    next number of a counter shared by all conversations (C-7, then C-8 … C-13), a
    receipt code made from that number (as random-looking as a uuid fragment) and the
    clock time it was placed; the status and the total depend on the order placed."""

    def __init__(self):
        self.order = None

    def respond(self, text):
        t = text.lower()
        if "menu" in t:
            return "We have margherita at $8.00 and pepperoni at $9.50."
        if "want a pizza" in t:
            ORDERS[0] += 1
            n = ORDERS[0] * 3 + 1
            receipt = format(n * 2654435761 % 2**32, "08x")
            self.order = f"C-{n}"
            return (f"Order {self.order} placed at {time.strftime('%H:%M:%S')}, "
                    f"receipt {receipt}. Total $8.00.")
        if "status" in t or "my order" in t:
            if self.order is None:
                return "You have no order yet."
            return f"Order {self.order} is in the oven."
        if "cost" in t or "total" in t:
            return "Your total is $8.00." if self.order else "Pizzas cost from $8.00."
        if "open" in t:
            return "We are open every day from 1pm to 11pm."
        return "Sorry?"
'''

STORY = {
    "data": [
        {
            "id": "anna",
            "story": "Story: Anna has a red bike. She rides it to school every day.",
            "questions": [
                {"input_text": "What does Anna have?", "turn_id": 1},
                {"input_text": "What colour is it?", "turn_id": 2},
                {"input_text": "Where does she ride it?", "turn_id": 3},
            ],
            "answers": [
                {"input_text": "A red bike", "turn_id": 1},
                {"input_text": "Red", "turn_id": 2},
                {"input_text": "To school", "turn_id": 3},
            ],
        },
        {
            "id": "lonely",
            "story": "Story: Tom.",
            "questions": [{"input_text": "Who is Tom?", "turn_id": 1}],
            "answers": [{"input_text": "A boy", "turn_id": 1}],
        },
    ]
}


def anna_analysis(dialogue_id: str = "anna") -> DialogueAnalysis:
    """Hand-worked: round 0 is self-contained and introduces Anna and the bike; round 1
    ("it") needs the bike; round 2 ("she", "it") needs Anna and the bike."""
    return DialogueAnalysis(
        dialogue_id=dialogue_id,
        strategy=Strategy.OFFLINE,
        rounds=[
            RoundAnalysis(
                index=0,
                question="What does Anna have?",
                self_contained=True,
                introduces=["anna", "bike", "anna|have|bike"],
            ),
            RoundAnalysis(
                index=1, question="What colour is it?", self_contained=False, needs=["bike"]
            ),
            RoundAnalysis(
                index=2,
                question="Where does she ride it?",
                self_contained=False,
                needs=["anna", "bike"],
            ),
        ],
    )


async def hand_analyser(dialogues: Sequence[SeedDialogue]) -> list[DialogueAnalysis]:
    """The hand-worked analysis for Anna's story; every other question self-contained."""
    out = []
    for d in dialogues:
        if d.id == "anna":
            out.append(anna_analysis())
        else:
            rounds = [
                RoundAnalysis(index=i, question=r.question, self_contained=True)
                for i, r in enumerate(d.rounds)
            ]
            out.append(DialogueAnalysis(dialogue_id=d.id, strategy=Strategy.OFFLINE, rounds=rounds))
    return out


def write_bot(folder: Path, bot: str = "StoryBot", **kwargs: object) -> Path:
    """A local bot (``StoryBot`` or ``OrderBot``) in ``folder`` and its chatbot.yaml
    (python connector)."""
    (folder / "storybot.py").write_text(BOT)
    lines = "".join(f"    {k}: {json.dumps(v)}\n" for k, v in kwargs.items())
    chatbot = folder / "chatbot.yaml"
    chatbot.write_text(
        f"connector: python\nparams:\n  target: storybot:{bot}\n  path: .\n"
        + ("  kwargs:\n" + lines if lines else "")
    )
    return chatbot


def make_run(folder: Path, conversations: dict[str, list[tuple[str, str]]]) -> Path:
    """A run of seed conversations (question, reply) rounds; the replies are replayed."""
    now = datetime.now(UTC)
    store = RunStore.create(
        folder, RunManifest(run_id="seeds", created_at=now, sparring_version=__version__)
    )
    for name, rounds in conversations.items():
        turns = [
            Turn(role=role, text=text)  # type: ignore[arg-type]
            for question, answer in rounds
            for role, text in (("user", question), ("assistant", answer))
        ]
        store.write(
            ConversationRecord(
                id=name, profile="pizza", turns=turns, variables={"size": "large"}, started_at=now
            )
        )
    return folder
