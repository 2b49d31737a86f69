"""The generic REST connector, fed SENSEI custom-connector YAML as is."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import httpx
import pytest
from connector_helpers import Answer, LoopbackServer

from sparring.connectors import ChatbotConfig, create_connector, greeting_of, load_chatbot_config
from sparring.connectors._rest import render_template
from sparring.errors import BadPayload, ConfigError

# A custom-connector file in SENSEI's format (chatbot-connectors' CustomConfig), unchanged.
SENSEI_CUSTOM = """\
name: "Example bot"
base_url: "http://bot.test/api"
send_message:
  path: "/chat"
  method: "POST"
  headers:
    Content-Type: "application/json"
    Authorization: "Bearer ${EXAMPLE_API_KEY}"
  payload_template:
    message:
      text: "{user_msg}"
    conversation: "fixed-42"
    options: [1, true, null]
response_path: "responses.-1.text"
"""


def _chatbot_yaml(tmp_path: Path, params: str, connector: str = "rest") -> Path:
    path = tmp_path / "chatbot.yaml"
    body = textwrap.indent(params, "  ")
    path.write_text(f"connector: {connector}\nparams:\n{body}", encoding="utf-8")
    return path


async def test_sensei_custom_connector_yaml_as_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EXAMPLE_API_KEY", "key-123456")
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"responses": [{"text": "first"}, {"text": "last"}]})

    config = load_chatbot_config(_chatbot_yaml(tmp_path, SENSEI_CUSTOM))
    connector = create_connector(config, transport=httpx.MockTransport(handler))
    reply = await (await connector.open()).send('say "hi" {session_id}')
    assert reply.messages == ["last"]
    request = seen[0]
    assert str(request.url) == "http://bot.test/api/chat"
    assert request.headers["Authorization"] == "Bearer key-123456"
    assert json.loads(request.content) == {
        "message": {"text": 'say "hi" {session_id}'},
        "conversation": "fixed-42",
        "options": [1, True, None],
    }
    assert "key-123456" not in repr(connector)


async def test_jsonpath_messages_buttons_and_images() -> None:
    body = {
        "messages": [{"type": "text", "text": "Hi"}, {"type": "text", "text": "Choose"}],
        "quick": [{"label": "Yes", "value": "/yes"}, "Maybe"],
        "media": {"urls": ["a.png", "b.png"]},
    }
    config = ChatbotConfig.model_validate(
        {
            "connector": "rest",
            "params": {
                "base_url": "http://bot.test",
                "send_message": {"payload_template": {"q": "{message}"}},
                "response_path": "$.messages[?(@.type == 'text')].text",
                "buttons_path": "$.quick",
                "images_path": "media.urls",
            },
        }
    )
    connector = create_connector(
        config, transport=httpx.MockTransport(lambda r: httpx.Response(200, json=body))
    )
    reply = await (await connector.open()).send("x")
    assert reply.messages == ["Hi", "Choose"]
    assert [(b.text, b.link) for b in reply.buttons] == [("Yes", "/yes"), ("Maybe", None)]
    assert reply.images == ["a.png", "b.png"]


async def test_new_conversation_session_id_and_get_query() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path == "/sessions":
            return httpx.Response(200, json={"data": {"sid": "S-9"}, "hello": "Welcome"})
        return httpx.Response(200, json={"answer": {"text": f"got {request.url.params['q']}"}})

    config = ChatbotConfig.model_validate(
        {
            "connector": "rest",
            "params": {
                "base_url": "http://bot.test",
                "new_conversation": {"path": "/sessions", "payload_template": {"client": "x"}},
                "session_id_path": "data.sid",
                "send_message": {
                    "path": "/sessions/{session_id}/ask",
                    "method": "get",
                    "payload_template": {"q": "{message}", "sid": "{session_id}"},
                },
                "response_path": "answer.text",
            },
        }
    )
    connector = create_connector(config, transport=httpx.MockTransport(handler))
    conversation = await connector.open()
    assert conversation.session_id == "S-9"
    assert greeting_of(conversation) is None  # "hello" is not at response_path
    reply = await conversation.send("pizza")
    assert reply.messages == ["got pizza"]
    assert seen[1].method == "GET"
    assert seen[1].url.path == "/sessions/S-9/ask"
    assert dict(seen[1].url.params) == {"q": "pizza", "sid": "S-9"}


async def test_new_conversation_without_session_id_is_a_bad_payload() -> None:
    config = ChatbotConfig.model_validate(
        {
            "connector": "rest",
            "params": {"base_url": "http://bot.test", "new_conversation": {"path": "/new"}},
        }
    )
    transport = httpx.MockTransport(lambda r: httpx.Response(200, json={"nothing": 1}))
    with pytest.raises(BadPayload, match="session id"):
        await create_connector(config, transport=transport).open()


@pytest.mark.parametrize(
    ("body", "path", "messages"),
    [
        ({"a": {"b": "x"}}, "a.missing", []),  # no match: an empty reply
        ({"a": [1, 2.5, None, ""]}, "a", ["1", "2.5"]),
        ("plain string body", None, ["plain string body"]),
        (["one", "two"], "", ["one", "two"]),
    ],
)
async def test_reply_extraction(body: Any, path: str | None, messages: list[str]) -> None:
    config = ChatbotConfig.model_validate(
        {"connector": "rest", "params": {"base_url": "http://bot.test", "response_path": path}}
    )
    transport = httpx.MockTransport(lambda r: httpx.Response(200, json=body))
    reply = await (await create_connector(config, transport=transport).open()).send("x")
    assert reply.messages == messages


async def test_path_selecting_an_object_is_a_bad_payload() -> None:
    config = ChatbotConfig.model_validate(
        {"connector": "rest", "params": {"base_url": "http://bot.test", "response_path": "a"}}
    )
    transport = httpx.MockTransport(lambda r: httpx.Response(200, json={"a": {"b": 1}}))
    with pytest.raises(BadPayload, match="dict"):
        await (await create_connector(config, transport=transport).open()).send("x")


async def test_text_response_format_over_loopback(loopback: LoopbackServer) -> None:
    loopback.routes["/talk"] = lambda r: Answer(body=f"echo: {r.body['m']}")
    config = ChatbotConfig.model_validate(
        {
            "connector": "rest",
            "params": {
                "base_url": loopback.url,
                "send_message": {"path": "talk", "payload_template": {"m": "{message}"}},
                "response_format": "text",
            },
        }
    )
    connector = create_connector(config)
    reply = await (await connector.open()).send("ping")
    await connector.aclose()
    assert reply.messages == ["echo: ping"]


def test_invalid_jsonpath_is_located_in_chatbot_yaml(tmp_path: Path) -> None:
    path = _chatbot_yaml(tmp_path, 'base_url: "http://x"\nresponse_path: "$.a[["\n')
    with pytest.raises(ConfigError) as info:
        load_chatbot_config(path)
    [problem] = info.value.problems
    assert (problem.key, problem.line) == ("params.response_path", 4)
    assert "invalid path" in problem.message


def test_unknown_sensei_key_is_reported(tmp_path: Path) -> None:
    path = _chatbot_yaml(tmp_path, SENSEI_CUSTOM + "send_mesage: {}\n")
    with pytest.raises(ConfigError) as info:
        load_chatbot_config(path)
    assert [(p.key, p.message) for p in info.value.problems] == [
        ("params.send_mesage", "unknown key 'send_mesage' (did you mean 'send_message'?)")
    ]


def test_render_template_is_one_pass() -> None:
    fields = {"message": "{session_id}", "session_id": "S"}
    assert render_template({"a": ["{message}-{session_id}", 3]}, fields) == {
        "a": ["{session_id}-S", 3]
    }


async def test_get_query_encodes_objects_as_json() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json="ok")

    config = ChatbotConfig.model_validate(
        {
            "connector": "rest",
            "params": {
                "base_url": "http://bot.test",
                "send_message": {
                    "method": "GET",
                    "payload_template": {"q": "{message}", "ctx": {"a": 1}, "n": 2},
                },
            },
        }
    )
    connector = create_connector(config, transport=httpx.MockTransport(handler))
    assert (await (await connector.open()).send("hi")).messages == ["ok"]
    assert dict(seen[0].url.params) == {"q": "hi", "ctx": '{"a": 1}', "n": "2"}
