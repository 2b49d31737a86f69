"""The limits every reply passes before anything else in sparring sees it.

A chatbot under test may answer anything: a body of gigabytes, JSON nested 100,000 levels
deep, text holding lone UTF-16 surrogates (``"\\ud800"``, valid in a JSON escape, invalid
in UTF-8, so no record could be written). Each connector's answer goes through here —
``HttpClient`` caps and decodes the body, ``timed_reply`` checks and normalises the parsed
``Reply`` — so such a reply becomes a recorded chatbot failure, or a reply with a note,
and the run goes on:

- a body over ``ReplyLimits.max_bytes`` bytes (HTTP), or a reply whose texts and raw
  payload hold more characters (in-process bots), is ``ReplyTooLarge`` (code 500, cause
  ``too_large``), read no further than the limit;
- a JSON body or payload nested deeper than ``ReplyLimits.max_depth``, or holding an
  integer of more than 4,300 digits (Python refuses to read it), is ``BadPayload``;
- a lone surrogate anywhere in the reply is replaced with U+FFFD and the reply carries
  a note saying so (``Reply.notes``, copied to the conversation's ``notes``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sparring._json import replace_surrogates
from sparring.connectors._reply import Reply
from sparring.errors import BadPayload, ReplyTooLarge
from sparring.types import Button

DEFAULT_MAX_REPLY_BYTES = 1_000_000
"""Largest reply body read (bytes; 1 MB, some 150,000 words): ``max_reply_bytes``."""

DEFAULT_MAX_DEPTH = 64
"""Deepest nesting of lists and objects accepted in a reply payload."""

SURROGATE_NOTE = "the chatbot's reply held lone UTF-16 surrogates, replaced with U+FFFD"


@dataclass(frozen=True)
class ReplyLimits:
    """How large (``max_bytes``: bytes of a body, characters of an in-process answer) and
    how deeply nested (``max_depth``: levels of lists and objects) a reply may be."""

    max_bytes: int = DEFAULT_MAX_REPLY_BYTES
    max_depth: int = DEFAULT_MAX_DEPTH


DEFAULT_LIMITS = ReplyLimits()


def too_large(limit: int, where: str = "the chatbot") -> ReplyTooLarge:
    """The failure for a reply over ``limit`` (bytes or characters)."""
    return ReplyTooLarge(
        f"{where} answered more than {limit:,} bytes (the max_reply_bytes limit); "
        "the rest was not read"
    )


def decode_json(body: bytes, limits: ReplyLimits, where: str) -> Any:
    """The JSON value of ``body`` (UTF-8, -16 or -32), at most ``limits.max_depth`` deep.

    Raises ``BadPayload`` for a body that is not JSON, not text, nested too deeply or
    holding a number Python cannot read.
    """
    try:
        value = json.loads(body)
    except RecursionError as exc:
        raise _too_deep(limits, where) from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        snippet = body[:200].decode("utf-8", errors="replace")
        raise BadPayload(f"{where} answered with a body that is not JSON: {snippet!r}") from exc
    except ValueError as exc:  # an integer of more than sys.get_int_max_str_digits() digits
        raise BadPayload(f"{where} answered JSON with a number that cannot be read: {exc}") from exc
    check_shape(value, limits, where)
    return value


def _too_deep(limits: ReplyLimits, where: str) -> BadPayload:
    return BadPayload(f"{where} answered JSON nested deeper than {limits.max_depth} levels")


def check_shape(value: Any, limits: ReplyLimits, where: str = "the chatbot") -> None:
    """Raise ``BadPayload`` when ``value`` nests lists, tuples and mappings deeper than
    ``limits.max_depth``, ``ReplyTooLarge`` when its strings hold more than
    ``limits.max_bytes`` characters. Iterative: any depth is safe to check."""
    chars = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            chars += len(item)
        elif isinstance(item, Mapping | list | tuple):
            if depth >= limits.max_depth:
                raise _too_deep(limits, where)
            children = [*item.keys(), *item.values()] if isinstance(item, Mapping) else item
            stack.extend((child, depth + 1) for child in children)
        if chars > limits.max_bytes:
            raise too_large(limits.max_bytes, where)


def guard_reply(reply: Reply, limits: ReplyLimits = DEFAULT_LIMITS) -> Reply:
    """``reply`` checked against ``limits`` (see ``check_shape``) and normalised: lone
    surrogates replaced with U+FFFD in its messages, buttons, images and raw payload, with
    ``SURROGATE_NOTE`` added to its ``notes``. Raises ``BadPayload`` or ``ReplyTooLarge``."""
    texts = [*reply.messages, *reply.images, *(b.text for b in reply.buttons)]
    check_shape([texts, reply.raw], limits)
    found: list[bool] = []
    reply.messages = replace_surrogates(reply.messages, found)
    reply.images = replace_surrogates(reply.images, found)
    reply.buttons = [
        Button(text=replace_surrogates(b.text, found), link=replace_surrogates(b.link, found))
        for b in reply.buttons
    ]
    reply.raw = replace_surrogates(reply.raw, found)
    if found and SURROGATE_NOTE not in reply.notes:
        reply.notes.append(SURROGATE_NOTE)
    return reply
