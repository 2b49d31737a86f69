"""The scripted connector: rules, greeting, fallback, latency, failure drills, script files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sparring.connectors import (
    ChatbotConfig,
    Connector,
    create_connector,
    greeting_of,
    load_chatbot_config,
)
from sparring.errors import BadPayload, ChatbotCrash, ChatbotTimeout, ConfigError

SCRIPT: dict[str, Any] = {
    "greeting": "Hi! I take pizza orders.",
    "greeting_buttons": ["Order", {"text": "Menu", "link": "/menu"}],
    "rules": [
        {"match": r"\b(hi|hello)\b", "reply": "Hello! What would you like?"},
        {
            "match": r"my name is (?P<name>\w+)",
            "reply": ["Nice to meet you, {name}.", "You said: {message} ({1}, {9})"],
        },
        {"match": "size", "reply": "Which size?", "buttons": ["Small", "Large"]},
        {"match": "boom", "error": "crash"},
        {"match": "garbage", "error": "bad_payload"},
        {"match": "hang", "error": "timeout"},
        {"match": "silence", "reply": []},
    ],
    "fallback": "Sorry, I did not understand.",
}


def _connector(**params: Any) -> Connector:
    config = ChatbotConfig.model_validate({"connector": "scripted", "params": params})
    return create_connector(config)


async def test_greeting_rules_and_fallback() -> None:
    conversation = await _connector(**SCRIPT).open()
    greeting = greeting_of(conversation)
    assert greeting is not None
    assert greeting.text == (
        "Hi! I take pizza orders.\nAVAILABLE BUTTONS:\n"
        "- BUTTON TEXT: Order LINK: <empty>\n- BUTTON TEXT: Menu LINK: /menu"
    )
    assert (await conversation.send("HELLO there")).messages == ["Hello! What would you like?"]
    named = await conversation.send("well my name is Ann")
    assert named.messages == [
        "Nice to meet you, Ann.",
        "You said: well my name is Ann (Ann, {9})",
    ]
    assert named.raw == {"rule": 1}
    sized = await conversation.send("what size?")
    assert [b.text for b in sized.buttons] == ["Small", "Large"]
    fallback = await conversation.send("banana")
    assert fallback.messages == ["Sorry, I did not understand."]
    assert fallback.raw == {"rule": None}
    assert (await conversation.send("silence please")).messages == []


async def test_failure_drills() -> None:
    conversation = await _connector(**SCRIPT, timeout=0.2).open()
    with pytest.raises(ChatbotCrash):
        await conversation.send("boom")
    with pytest.raises(BadPayload):
        await conversation.send("garbage")
    with pytest.raises(ChatbotTimeout, match=r"within 0\.2 s"):  # the timeout configured
        await conversation.send("hang")


async def test_latency_is_waited_and_measured() -> None:
    conversation = await _connector(rules=[], latency=0.1).open()
    reply = await conversation.send("x")
    assert reply.latency >= 0.1
    assert greeting_of(conversation) is None


async def test_latency_beyond_timeout_is_a_timeout() -> None:
    with pytest.raises(ChatbotTimeout):
        await (await _connector(latency=0.5, timeout=0.1).open()).send("x")


async def test_script_file_relative_to_chatbot_yaml(tmp_path: Path) -> None:
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "pizza.yaml").write_text(
        "greeting: Welcome\nrules:\n  - match: pizza\n    reply: Which one?\n", encoding="utf-8"
    )
    chatbot = tmp_path / "chatbot.yaml"
    chatbot.write_text("connector: scripted\nparams:\n  script: bots/pizza.yaml\n")
    connector = create_connector(load_chatbot_config(chatbot))
    conversation = await connector.open()
    assert (await conversation.send("a pizza")).messages == ["Which one?"]


def test_bad_script_file_is_located_in_that_file(tmp_path: Path) -> None:
    (tmp_path / "script.yaml").write_text("rules:\n  - match: '('\n    reply: x\n")
    chatbot = tmp_path / "chatbot.yaml"
    chatbot.write_text("connector: scripted\nparams:\n  script: script.yaml\n")
    with pytest.raises(ConfigError) as info:
        create_connector(load_chatbot_config(chatbot))
    [problem] = info.value.problems
    assert problem.file == str(tmp_path / "script.yaml")
    assert (problem.line, problem.key) == (2, "rules[0].match")
    assert "regular expression" in problem.message


def test_missing_script_file_is_located_in_chatbot_yaml(tmp_path: Path) -> None:
    chatbot = tmp_path / "chatbot.yaml"
    chatbot.write_text("connector: scripted\nparams:\n  script: nowhere.yaml\n")
    with pytest.raises(ConfigError) as info:
        create_connector(load_chatbot_config(chatbot))
    [problem] = info.value.problems
    assert (problem.file, problem.line, problem.key) == (str(chatbot), 3, "params.script")


def test_script_and_inline_rules_are_exclusive(tmp_path: Path) -> None:
    chatbot = tmp_path / "chatbot.yaml"
    chatbot.write_text("connector: scripted\nparams:\n  script: s.yaml\n  fallback: No\n")
    with pytest.raises(ConfigError, match="either `script` or inline fallback"):
        load_chatbot_config(chatbot)
