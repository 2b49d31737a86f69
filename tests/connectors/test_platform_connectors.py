"""Connectors for the platforms bots are deployed on, each against a loopback server that
answers as the platform's public API reference specifies (requests checked as sent)."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from connector_helpers import Answer, LoopbackServer, Received

from sparring.connectors import create_connector, greeting_of, load_chatbot_config
from sparring.errors import ChatbotCrash, ChatbotTimeout
from sparring.types import Button


def _chatbot(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "chatbot.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


# A DetectIntentResponse as the ES reference shows it: the default platform's messages,
# a Facebook copy to leave out, quick replies, a card and an image.
ES_RESPONSE = {
    "responseId": "r-1",
    "queryResult": {
        "queryText": "I want a pizza",
        "fulfillmentText": "Which size?",
        "fulfillmentMessages": [
            {"text": {"text": ["Which size?"]}},
            {"text": {"text": ["Facebook only"]}, "platform": "FACEBOOK"},
            {"quickReplies": {"title": "Sizes", "quickReplies": ["Small", "Large"]}},
            {"card": {"title": "Menu", "buttons": [{"text": "Menu", "postback": "/menu"}]}},
            {"image": {"imageUri": "https://bot.test/pizza.png"}},
        ],
        "intent": {"displayName": "order.pizza"},
    },
}


async def test_dialogflow_es_detect_intent(
    tmp_path: Path, loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DF_TOKEN", "ya29.secret-token")
    path_of: list[str] = []

    def detect(request: Received) -> Answer:
        path_of.append(request.path)
        return Answer(body=ES_RESPONSE)

    chatbot = _chatbot(
        tmp_path,
        f"""\
        connector: dialogflow-es
        params:
          project: pizza-bot
          language: es
          token: ${{DF_TOKEN}}
          url: {loopback.url}
        """,
    )
    connector = create_connector(load_chatbot_config(chatbot))
    conversation = await connector.open()
    session = conversation.session_id  # type: ignore[attr-defined]
    route = f"/v2/projects/pizza-bot/agent/sessions/{session}:detectIntent"
    loopback.routes[route] = detect
    reply = await conversation.send("Quiero una pizza")
    await conversation.send("grande")
    await connector.aclose()
    assert reply.messages == ["Which size?"]
    assert reply.buttons == [
        Button(text="Small"),
        Button(text="Large"),
        Button(text="Menu", link="/menu"),
    ]
    assert reply.images == ["https://bot.test/pizza.png"]
    first = loopback.received[0]
    assert first.method == "POST" and len(session) <= 36 and path_of == [route, route]
    assert first.body == {
        "queryInput": {"text": {"text": "Quiero una pizza", "languageCode": "es"}}
    }
    assert first.headers["Authorization"] == "Bearer ya29.secret-token"
    assert "ya29.secret-token" not in str(reply.raw)


async def test_dialogflow_es_regional_environment_and_plain_fulfillment_text(
    tmp_path: Path, loopback: LoopbackServer
) -> None:
    chatbot = _chatbot(
        tmp_path,
        f"""\
        connector: dialogflow-es
        params: {{project: p, location: europe-west1, environment: prod, url: {loopback.url}}}
        """,
    )
    connector = create_connector(load_chatbot_config(chatbot))
    conversation = await connector.open()
    session = conversation.session_id  # type: ignore[attr-defined]
    route = (
        "/v2/projects/p/locations/europe-west1/agent/environments/prod/users/-"
        f"/sessions/{session}:detectIntent"
    )
    loopback.routes[route] = lambda r: Answer(body={"queryResult": {"fulfillmentText": "Hi!"}})
    assert (await conversation.send("hello")).messages == ["Hi!"]
    await connector.aclose()


async def test_dialogflow_cx_detect_intent(tmp_path: Path, loopback: LoopbackServer) -> None:
    chatbot = _chatbot(
        tmp_path,
        f"""\
        connector: dialogflow-cx
        params:
          project: shop
          location: us-central1
          agent: 0d6a3a2c-1b3c-4a8e-9a6e-1f2e3d4c5b6a
          url: {loopback.url}
        """,
    )
    connector = create_connector(load_chatbot_config(chatbot))
    conversation = await connector.open()
    session = conversation.session_id  # type: ignore[attr-defined]
    route = (
        "/v3/projects/shop/locations/us-central1/agents/0d6a3a2c-1b3c-4a8e-9a6e-1f2e3d4c5b6a"
        f"/sessions/{session}:detectIntent"
    )
    chips = {"type": "chips", "options": [{"text": "Track order"}, {"text": "Help"}]}
    loopback.routes[route] = lambda r: Answer(
        body={
            "queryResult": {
                "responseMessages": [
                    {"text": {"text": ["Hello!", "How can I help?"]}},
                    {"payload": {"richContent": [[chips]]}},
                ]
            }
        }
    )
    reply = await conversation.send("hi")
    await connector.aclose()
    assert reply.messages == ["Hello!", "How can I help?"]
    assert [b.text for b in reply.buttons] == ["Track order", "Help"]
    assert loopback.received[0].body == {
        "queryInput": {"text": {"text": "hi"}, "languageCode": "en"}
    }


def test_dialogflow_cx_needs_its_agent(tmp_path: Path) -> None:
    from sparring.errors import ConfigError

    with pytest.raises(ConfigError, match=r"params.agent"):
        load_chatbot_config(_chatbot(tmp_path, "connector: dialogflow-cx\nparams: {project: p}\n"))


class _DirectLine:
    """A Direct Line 3.0 service with one echo bot that welcomes, then answers with a text
    and a hero card, each activity replying to the user's."""

    def __init__(self, server: LoopbackServer, *, silent: bool = False) -> None:
        self.activities: list[dict[str, Any]] = []
        self.silent = silent
        base = "/v3/directline/conversations"
        server.routes[base] = self.start
        server.routes[f"{base}/c1/activities"] = self.activities_route

    def _add(self, activity: dict[str, Any]) -> str:
        activity["id"] = f"c1|{len(self.activities):07d}"
        self.activities.append(activity)
        return str(activity["id"])

    def start(self, request: Received) -> Answer:
        assert request.headers["Authorization"] == "Bearer dl-secret"
        self._add({"type": "message", "from": {"id": "bot"}, "text": "Welcome!"})
        return Answer(201, {"conversationId": "c1", "token": "conv-token", "expires_in": 1800})

    def activities_route(self, request: Received) -> Answer:
        if request.headers["Authorization"] != "Bearer conv-token":
            return Answer(403, {"error": {"code": "BadArgument"}})
        if request.method == "POST":
            sent = self._add(dict(request.body))
            if not self.silent:
                self._add({"type": "typing", "from": {"id": "bot"}})
                self._add(
                    {"type": "message", "from": {"id": "bot"}, "replyToId": sent,
                     "text": f"You said: {request.body['text']}"}
                )  # fmt: skip
                card = {"title": "Pick one", "buttons": [
                    {"type": "imBack", "title": "Yes", "value": "yes"}]}  # fmt: skip
                self._add(
                    {"type": "message", "from": {"id": "bot"}, "replyToId": sent,
                     "attachments": [{"contentType": "application/vnd.microsoft.card.hero",
                                      "content": card}]}
                )  # fmt: skip
            return Answer(200, {"id": sent})
        watermark = int(request.path.partition("watermark=")[2] or -1)
        fresh = self.activities[watermark + 1 :]
        return Answer(200, {"activities": fresh, "watermark": str(len(self.activities) - 1)})


def _directline_yaml(tmp_path: Path, url: str, timeout: float = 5) -> Path:
    return _chatbot(
        tmp_path,
        f"""\
        connector: directline
        params:
          url: {url}
          secret: dl-secret
          locale: en-US
          poll_interval: 0.05
          greeting_wait: 0.05
          timeout: {timeout}
        """,
    )


async def test_directline_conversation(tmp_path: Path, loopback: LoopbackServer) -> None:
    bot = _DirectLine(loopback)
    connector = create_connector(load_chatbot_config(_directline_yaml(tmp_path, loopback.url)))
    conversation = await connector.open()
    greeting = greeting_of(conversation)
    assert greeting is not None and greeting.messages == ["Welcome!"]
    reply = await conversation.send("hello")
    second = await conversation.send("again")
    await connector.aclose()
    assert reply.messages == ["You said: hello", "Pick one"]
    assert reply.buttons == [Button(text="Yes", link="yes")]
    assert second.messages == ["You said: again", "Pick one"]
    user = [a for a in bot.activities if a["from"]["id"] == "sparring-user"]
    assert user[0] == {
        "type": "message",
        "from": {"id": "sparring-user"},
        "text": "hello",
        "locale": "en-US",
        "id": "c1|0000001",
    }


async def test_directline_silent_bot_times_out_and_a_bad_secret_crashes(
    tmp_path: Path, loopback: LoopbackServer
) -> None:
    _DirectLine(loopback, silent=True)
    config = load_chatbot_config(_directline_yaml(tmp_path, loopback.url, timeout=0.5))
    connector = create_connector(config)
    conversation = await connector.open()
    with pytest.raises(ChatbotTimeout):
        await conversation.send("hello?")
    await connector.aclose()
    loopback.routes["/v3/directline/conversations"] = lambda r: Answer(401, {"error": "no"})
    connector = create_connector(config)
    with pytest.raises(ChatbotCrash, match="HTTP 401"):
        await connector.open()
    await connector.aclose()


async def test_botpress_converse_api(tmp_path: Path, loopback: LoopbackServer) -> None:
    answer = {
        "responses": [
            {"type": "typing", "value": True},
            {"type": "text", "markdown": True, "text": "Hey there, welcome!"},
            {"type": "single-choice", "text": "Pick a size",
             "choices": [{"title": "Small", "value": "SMALL"},
                         {"title": "Large", "value": "LARGE"}]},
            {"type": "image", "image": "https://bot.test/menu.png"},
        ]
    }  # fmt: skip
    chatbot = _chatbot(
        tmp_path, f"connector: botpress\nparams: {{url: {loopback.url}, bot: pizza}}\n"
    )
    connector = create_connector(load_chatbot_config(chatbot))
    conversation = await connector.open()
    user = conversation.session_id  # type: ignore[attr-defined]
    loopback.routes[f"/api/v1/bots/pizza/converse/{user}"] = lambda r: Answer(body=answer)
    reply = await conversation.send("hi")
    await connector.aclose()
    assert reply.messages == ["Hey there, welcome!", "Pick a size"]
    assert reply.buttons == [Button(text="Small", link="SMALL"), Button(text="Large", link="LARGE")]
    assert reply.images == ["https://bot.test/menu.png"]
    assert loopback.received[0].body == {"type": "text", "text": "hi"}


def _sigv4_valid(request: Received, url: str, secret: str) -> bool:
    """Whether ``request`` carries a valid AWS SigV4 signature (service lex), checked as
    AWS checks it: over the headers its SignedHeaders name, with its X-Amz-Date."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    authorization = request.headers["Authorization"]
    fields = dict(part.strip().split("=", 1) for part in authorization.split(" ", 1)[1].split(","))
    signed = fields["SignedHeaders"].split(";")
    headers = {k: v for k, v in request.headers.items() if k.lower() in signed and k != "Host"}
    aws = AWSRequest(
        method=request.method, url=url + request.path, data=request.raw, headers=headers
    )
    aws.context["timestamp"] = request.headers["X-Amz-Date"]
    auth = SigV4Auth(Credentials("AKIDEXAMPLE", secret), "lex", "eu-west-1")
    expected = auth.signature(auth.string_to_sign(aws, auth.canonical_request(aws)), aws)
    return fields["Credential"].startswith("AKIDEXAMPLE/") and expected == fields["Signature"]


async def test_lex_v2_recognize_text_is_signed(
    tmp_path: Path, loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("botocore")
    monkeypatch.setenv("LEX_SECRET", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    checked: list[bool] = []

    def recognize(request: Received) -> Answer:
        checked.append(
            _sigv4_valid(request, loopback.url, "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
        )
        card = {"title": "Size?", "buttons": [{"text": "Small", "value": "small"}]}
        return Answer(body={
            "messages": [
                {"content": "Sure, a pizza.", "contentType": "PlainText"},
                {"contentType": "ImageResponseCard", "imageResponseCard": card},
            ],
            "sessionState": {"dialogAction": {"type": "ElicitSlot"}},
        })  # fmt: skip

    chatbot = _chatbot(
        tmp_path,
        f"""\
        connector: lex
        params:
          bot: BOT123
          alias: ALIAS9
          locale: en_GB
          region: eu-west-1
          url: {loopback.url}
          access_key_id: AKIDEXAMPLE
          secret_access_key: ${{LEX_SECRET}}
        """,
    )
    connector = create_connector(load_chatbot_config(chatbot))
    conversation = await connector.open()
    session = conversation.session_id  # type: ignore[attr-defined]
    route = f"/bots/BOT123/botAliases/ALIAS9/botLocales/en_GB/sessions/{session}/text"
    loopback.routes[route] = recognize
    reply = await conversation.send("Une pizza, s'il vous plaît")
    await connector.aclose()
    assert checked == [True]
    assert loopback.received[0].body == {"text": "Une pizza, s'il vous plaît"}
    assert reply.messages == ["Sure, a pizza.", "Size?"]
    assert reply.buttons == [Button(text="Small", link="small")]
    tampered = Received("POST", loopback.received[0].path, loopback.received[0].headers, None,
                        loopback.received[0].raw.replace(b"pizza", b"pasta"))  # fmt: skip
    assert not _sigv4_valid(tampered, loopback.url, "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
