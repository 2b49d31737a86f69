"""Property-based fuzzing of the connectors' reply parsing (issue 26): whatever a chatbot
answers, parsing at the boundary gives a ``Reply`` that can be recorded, or raises a
``ChatbotFailure`` — never anything else."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sparring.connectors import ChatbotConfig, Reply, create_connector
from sparring.connectors._base import timed_reply
from sparring.connectors._boundary import DEFAULT_LIMITS, decode_json
from sparring.connectors._chatchecker_client import chatchecker_reply
from sparring.connectors._openai import completion_reply
from sparring.connectors._python import to_reply
from sparring.connectors._rasa import parse_rasa_messages
from sparring.connectors._rest import RestConnector
from sparring.connectors._secrets import Redactor
from sparring.errors import ChatbotFailure

# Text with lone surrogates and control characters mixed in, as a hostile bot sends.
TEXT = st.text(
    st.one_of(st.characters(), st.sampled_from(["\ud800", "\udfff", "\x00", "\x1b", "\u202e"]))
)
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), TEXT)
KEYS = st.one_of(
    st.sampled_from(["text", "buttons", "title", "payload", "image", "custom", "choices"]),
    st.sampled_from(["message", "content", "messages", "images", "link", "url"]),
    TEXT,
)
JSON = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(KEYS, children, max_size=4)
    ),
    max_leaves=30,
)
FUZZ = settings(
    max_examples=int(os.environ.get("SPARRING_FUZZ_EXAMPLES", "300")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def _rest() -> RestConnector:
    params = {
        "url": "http://bot.invalid",
        "response_path": "$..text",
        "buttons_path": "$..buttons",
        "images_path": "$..image",
    }
    config = ChatbotConfig.model_validate({"connector": "rest", "params": params})
    connector = create_connector(config)
    assert isinstance(connector, RestConnector)
    return connector


REST = _rest()
PARSERS = [parse_rasa_messages, REST.parse, to_reply, completion_reply, chatchecker_reply]


async def _ready(value: Any) -> Any:
    return value


def _at_the_boundary(payload: Any, parse: Any) -> Reply | None:
    with contextlib.suppress(ChatbotFailure):
        parse(payload)  # the parser itself: a Reply or a ChatbotFailure, nothing else
    try:
        reply = asyncio.run(timed_reply(_ready(payload), 5.0, Redactor(), parse))
    except ChatbotFailure:
        return None
    json.loads(reply.model_dump_json())  # recordable: no lone surrogate survives
    return reply


@FUZZ
@given(JSON, st.sampled_from(range(len(PARSERS))))
def test_any_payload_is_a_recordable_reply_or_a_chatbot_failure(payload: Any, which: int) -> None:
    _at_the_boundary(payload, PARSERS[which])


@FUZZ
@given(st.lists(st.fixed_dictionaries({"text": TEXT}), min_size=1, max_size=3))
def test_rasa_text_survives_the_boundary(messages: list[dict[str, str]]) -> None:
    reply = _at_the_boundary(messages, parse_rasa_messages)
    assert reply is not None
    expected = [m["text"] for m in messages if m["text"]]
    assert len(reply.messages) == len(expected)
    for got, sent in zip(reply.messages, expected, strict=True):
        assert len(got) == len(sent)


@FUZZ
@given(st.binary(max_size=300) | JSON.map(lambda v: json.dumps(v).encode()))
def test_any_body_decodes_or_is_a_chatbot_failure(body: bytes) -> None:
    try:
        value = decode_json(body, DEFAULT_LIMITS, "POST http://bot")
    except ChatbotFailure:
        return
    assert value == json.loads(body) or value != value  # NaN is never equal to itself
