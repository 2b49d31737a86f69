"""A persona playing alone, offline: its task is an instruction to the user, not words to
send.

Persona files (ChatChecker's, and the tester personas ``sparring personas`` writes) state
a task for a model to follow: "To see how well the chatbot can guide you…", "Use the
chatbot (…) as a real user would, and steer the conversation so that it shows this
breakdown…". Sent to the chatbot they are a tester's notes, not a user's turn. The agenda
user reads such a task as an instruction (``is_instruction``) and instead opens with a
plain request for help with the chatbot's service, then keeps the conversation going as
a curious user would (``follow_up``): it picks one of the offered options, says yes to a
yes/no question, asks for more after an answer, and answers a question it cannot answer
vaguely, for the persona's number of turns. A task written as a request ("Order a pizza
and a drink.") is an ordinary goal and is said like one (``_phrasing``).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from sparring.dialogue_acts import DialogueAct

_INSTRUCTION = re.compile(
    r"\b(?:chat ?bot|the bot|assistant|steer|breakdown|see how|find out how|test(?:ing)?|"
    r"try to|as a real user|pretend|act as|role-?play|your (?:goal|task|aim)|evaluate|"
    r"check (?:whether|if|how))\b|^(?:to|you|use)\b",
    re.IGNORECASE,
)
_OPENINGS = (
    "Hi! Can you help me with {about}?",
    "Hello, I need some help with {about}.",
    "Hi there. What can you do for me regarding {about}?",
)
_OPENINGS_PLAIN = ("Hi! Can you help me?", "Hello, I need some help.", "Hi, what can you do?")
_MORE = (
    "Can you tell me more about that?",
    "OK. What else can you do for me?",
    "I see. What are my options?",
    "And how does that work?",
    "Thanks. Is there anything else I should know?",
)
_UNSURE = (
    "I'm not sure, what would you suggest?",
    "Hmm, I don't know yet.",
    "Not sure. Any ideas?",
)


def is_instruction(task: str) -> bool:
    """Whether a persona's task is an instruction to the user (about the chatbot, a test,
    a breakdown, "to see how…") rather than a request a user would make."""
    return bool(_INSTRUCTION.search(task.strip()))


def opening(about: str | None, rng: random.Random) -> str:
    """The first turn of a persona playing alone: a plain request for help."""
    if about:
        return rng.choice(_OPENINGS).format(about=about.strip().rstrip(".").lower())
    return rng.choice(_OPENINGS_PLAIN)


def follow_up(act: DialogueAct, options: Sequence[str], said: Sequence[str],
              rng: random.Random) -> str | None:  # fmt: skip
    """The next turn of a persona playing alone after a chatbot turn with ``act`` and
    ``options``; ``said`` is what the user said so far (not repeated). ``None`` after a
    closing."""
    if act is DialogueAct.CLOSING:
        return None
    if options and act in {DialogueAct.OFFER, DialogueAct.REQUEST}:
        return rng.choice(list(options))
    if act in {DialogueAct.YES_NO_QUESTION, DialogueAct.CONFIRMATION}:
        return "Yes, please."
    if act is DialogueAct.REQUEST:
        return rng.choice(_UNSURE)
    fresh = [m for m in _MORE if m not in said] or list(_MORE)
    return rng.choice(fresh)
