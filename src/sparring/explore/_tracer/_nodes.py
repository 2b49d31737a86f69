"""The functionality nodes found so far, with the evidence the later steps use.

A ``Node`` wraps a ``Functionality`` and keeps, per session, the first user turn that
reached it (the order evidence the workflow step checks) and which focus it was found
under. ``combine`` is the one merge of two nodes (TRACER ``_process_node_group_for_merge``:
parameters by name with their options united, outputs united), used by the session-local
merge, the global merge and consolidation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from sparring.explore._model import Functionality, Output, Parameter


@dataclass
class Node:
    """A node under construction: ``fn`` and its evidence. ``first_turn`` maps a session
    id to the number (1-based) of the first user message that reached the node in that
    session; ``found_while`` is the id of the node whose branch exploration found it
    (``None``: general exploration)."""

    fn: Functionality
    first_turn: dict[str, int] = field(default_factory=dict)
    found_while: str | None = None

    @property
    def id(self) -> str:
        """The node's id."""
        return self.fn.id


def _key(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", " ", text.lower()).strip()


def _unite(first: list[str], second: Iterable[str]) -> list[str]:
    """``first`` then the items of ``second`` not already there (case-insensitive)."""
    seen = {_key(x) for x in first}
    out = list(first)
    for item in second:
        if _key(item) not in seen:
            seen.add(_key(item))
            out.append(item)
    return out


def _merge_parameter(a: Parameter, b: Parameter) -> Parameter:
    return a.model_copy(
        update={
            "description": a.description or b.description,
            "options": _unite(a.options, b.options),
            "type": a.type if a.type != "string" else b.type,
            "question": a.question or b.question,
        }
    )


def _merge_output(a: Output, b: Output) -> Output:
    return a.model_copy(
        update={
            "description": a.description or b.description,
            "type": a.type if a.type != "string" else b.type,
            "example": a.example or b.example,
        }
    )


def unite_parameters(first: list[Parameter], second: list[Parameter]) -> list[Parameter]:
    """Parameters of both lists, one per name (case-insensitive), options united in
    first-seen order."""
    out = list(first)
    for param in second:
        at = next((i for i, p in enumerate(out) if _key(p.name) == _key(param.name)), None)
        if at is None:
            out.append(param)
        else:
            out[at] = _merge_parameter(out[at], param)
    return out


def unite_outputs(first: list[Output], second: list[Output]) -> list[Output]:
    """Outputs of both lists, one per name (case-insensitive)."""
    out = list(first)
    for item in second:
        at = next((i for i, o in enumerate(out) if _key(o.name) == _key(item.name)), None)
        if at is None:
            out.append(item)
        else:
            out[at] = _merge_output(out[at], item)
    return out


def combine(into: Node, other: Node) -> None:
    """Merge ``other`` into ``into`` (which keeps its id, name and, when it has one, its
    description): parameters and outputs united, utterances, sessions and evidence
    joined."""
    fn, add = into.fn, other.fn
    fn.description = fn.description or add.description
    fn.parameters = unite_parameters(fn.parameters, add.parameters)
    fn.outputs = unite_outputs(fn.outputs, add.outputs)
    fn.utterances = list(dict.fromkeys([*fn.utterances, *add.utterances]))
    fn.sessions = list(dict.fromkeys([*fn.sessions, *add.sessions]))
    for session, turn in other.first_turn.items():
        into.first_turn[session] = min(turn, into.first_turn.get(session, turn))


def verbatim(option: str, offered: list[str], bot_texts: list[str]) -> str:
    """``option`` as the chatbot spelt it: the button text it matches (ignoring case and
    punctuation), else the first case-insensitive occurrence in the bot's messages, else
    ``option`` unchanged."""
    wanted = _key(option)
    for text in offered:
        if _key(text) == wanted:
            return text
    pattern = re.compile(rf"(?<!\w){re.escape(option.strip())}(?!\w)", re.IGNORECASE)
    for text in bot_texts:
        found = pattern.search(text)
        if found:
            return found.group(0)
    return option


def same_option(message: str, offered: list[str]) -> str | None:
    """The offered option ``message`` names (ignoring case, quotes and punctuation), or
    ``None``."""
    wanted = _key(message)
    return next((o for o in offered if _key(o) == wanted), None) if wanted else None


def similarity(a: str, b: str) -> float:
    """Word-set overlap of two texts in [0, 1] (Jaccard over lower-case words)."""
    wa, wb = set(_key(a).split()), set(_key(b).split())
    if not wa or not wb:
        return 0.0
    return len(wa & wb) / len(wa | wb)
