"""Hostile replies at the connector boundary (issue 26, defects 1–5): nothing a chatbot
answers crashes, stalls or exhausts the job; each becomes a reply or a recorded failure."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from connector_helpers import Answer, LoopbackServer, send_once

from sparring.connectors import ChatbotConfig, Connector, create_connector
from sparring.connectors._boundary import SURROGATE_NOTE
from sparring.conversations import ConversationRecord, play_utterances
from sparring.errors import BadPayload, ChatbotCrash, ChatbotTimeout, ReplyTooLarge

HERE = Path(__file__).parent
ROOT = HERE.parent.parent


def _http(kind: str, server: LoopbackServer, **params: Any) -> Connector:
    base: dict[str, Any] = {"url": server.url, "timeout": 5.0, **params}
    if kind == "rest":
        base.update(response_path="text", send_message={"path": "/webhooks/rest/webhook"})
    config = ChatbotConfig.model_validate({"connector": kind, "params": base})
    return create_connector(config)


def _python(target: str, **params: Any) -> Connector:
    config = ChatbotConfig.model_validate(
        {"connector": "python", "params": {"target": target, "path": ".", **params}}
    )
    return create_connector(config, base_dir=HERE)


_send = send_once


def _route(server: LoopbackServer, body: Any) -> None:
    server.routes["/webhooks/rest/webhook"] = lambda _request: Answer(body=body)


@pytest.mark.parametrize(
    ("kind", "body"),
    [
        ("rasa", b'[{"text": "bad \\ud800 text"}]'),
        ("rest", b'{"text": "bad \\ud800 text"}'),
    ],
)
async def test_a_lone_surrogate_is_replaced_and_noted(
    kind: str, body: bytes, loopback: LoopbackServer
) -> None:
    _route(loopback, body)
    record = ConversationRecord(id="c1", profile="p")
    await play_utterances(_http(kind, loopback), record, ["hi"])
    assert record.errors == []
    assert record.turns[-1].text == "bad \ufffd text"
    assert SURROGATE_NOTE in record.notes
    json.loads(record.model_dump_json())  # defect 1: this raised PydanticSerializationError


@pytest.mark.parametrize("kind", ["rasa", "rest"])
async def test_json_nested_100000_deep_is_a_bad_payload(
    kind: str, loopback: LoopbackServer
) -> None:
    _route(loopback, b"[" * 100_000 + b"]" * 100_000)
    with pytest.raises(BadPayload, match="nested deeper than 64 levels"):
        await _send(_http(kind, loopback))


@pytest.mark.parametrize("kind", ["rasa", "rest"])
async def test_a_number_of_5000_digits_is_a_bad_payload(
    kind: str, loopback: LoopbackServer
) -> None:
    """Python refuses to read an integer of more than 4,300 digits: the ``ValueError``
    escaped the connector (an internal error, exit 70) instead of the chatbot's failure."""
    number = b"7" * 5000
    _route(
        loopback,
        b'[{"text": "hi", "n": ' + number + b"}]"
        if kind == "rasa"
        else b'{"text": "hi", "n": ' + number + b"}",
    )
    with pytest.raises(BadPayload, match="number that cannot be read"):
        await _send(_http(kind, loopback))


async def test_json_nested_under_the_recursion_limit_but_too_deep_is_refused(
    loopback: LoopbackServer,
) -> None:
    _route(loopback, b'{"text": "x", "a": ' + b"[" * 500 + b"]" * 500 + b"}")
    with pytest.raises(BadPayload, match="nested deeper"):
        await _send(_http("rest", loopback))


@pytest.mark.parametrize("kind", ["rasa", "rest"])
async def test_a_body_over_the_limit_is_too_large_not_a_timeout(
    kind: str, loopback: LoopbackServer
) -> None:
    _route(loopback, json.dumps([{"text": "x" * 2_000_000}]).encode())
    with pytest.raises(ReplyTooLarge, match="more than 1,000,000 bytes") as info:
        await _send(_http(kind, loopback))
    assert info.value.code == 500 and info.value.cause == "too_large"


async def test_max_reply_bytes_is_the_users_setting(loopback: LoopbackServer) -> None:
    _route(loopback, json.dumps([{"text": "x" * 300}]).encode())
    with pytest.raises(ReplyTooLarge, match="more than 100 bytes"):
        await _send(_http("rasa", loopback, max_reply_bytes=100))
    _route(loopback, json.dumps([{"text": "x" * 30}]).encode())
    reply = await _send(_http("rasa", loopback, max_reply_bytes=100))
    assert reply.messages == ["x" * 30]


async def test_an_in_process_answer_over_the_limit_is_too_large() -> None:
    with pytest.raises(ReplyTooLarge):
        await _send(_python("python_bots:huge"))


async def test_an_in_process_answer_nested_too_deeply_is_a_bad_payload() -> None:
    with pytest.raises(BadPayload, match="nested deeper"):
        await _send(_python("python_bots:deep"))


async def test_an_in_process_surrogate_is_replaced_in_messages_and_buttons() -> None:
    reply = await _send(_python("python_bots:surrogate"))
    assert reply.messages == ["bad \ufffd text"]
    assert reply.buttons[0].text == "\ufffd"
    assert reply.notes == [SURROGATE_NOTE]
    reply.model_dump_json()


@pytest.mark.parametrize(
    ("target", "said"),
    [
        ("python_bots:exits", "SystemExit(0)"),
        ("python_bots:exits_with_3", "SystemExit(3)"),
        ("python_bots:interrupts", "KeyboardInterrupt"),
        ("python_bots:async_exits", "SystemExit(0)"),
        ("python_bots:hard_exit", "os._exit(3)"),
    ],
)
async def test_a_bot_that_exits_is_a_crash_not_the_end_of_the_job(target: str, said: str) -> None:
    with pytest.raises(ChatbotCrash, match=re.escape(said)):
        await _send(_python(target))


async def test_a_frozen_synchronous_bot_times_out() -> None:
    with pytest.raises(ChatbotTimeout, match=r"within 0\.3 s"):  # the timeout configured
        await _send(_python("python_bots:frozen", timeout=0.3))


async def test_a_frozen_greeting_times_out() -> None:
    with pytest.raises(ChatbotTimeout):
        await _python("python_bots:FrozenGreeting", timeout=0.3).open()


async def test_a_frozen_constructor_times_out_after_start_timeout() -> None:
    with pytest.raises(ChatbotTimeout, match=r"no new conversation within 0\.3 s"):
        await _python("python_bots:FrozenInit", start_timeout=0.3).open()


def test_a_process_with_a_frozen_bot_exits_when_its_job_ends() -> None:
    """Defect 4: the frozen call's thread used to keep the process alive forever."""
    script = textwrap.dedent(
        """
        import asyncio
        from sparring.connectors import ChatbotConfig, create_connector
        from sparring.errors import ChatbotTimeout

        async def main():
            config = ChatbotConfig.model_validate(
                {"connector": "python",
                 "params": {"target": "python_bots:frozen", "path": ".", "timeout": 0.2}})
            connector = create_connector(config, base_dir=".")
            for _ in range(8):
                conversation = await connector.open()
                try:
                    await conversation.send("hi")
                except ChatbotTimeout:
                    pass
                await conversation.close()
            print("done")

        asyncio.run(main())
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=HERE, env=env, capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().strip() == "done"
