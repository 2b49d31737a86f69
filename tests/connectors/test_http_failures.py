"""Failure modes of the HTTP connectors against a real loopback server."""

from __future__ import annotations

import time
from typing import Any

import pytest
from connector_helpers import Answer, LoopbackServer, send_once

from sparring.connectors import ChatbotConfig, Connector, create_connector
from sparring.errors import BadPayload, ChatbotCrash, ChatbotTimeout


def _rasa(server: LoopbackServer, timeout: float = 2.0) -> Connector:
    config = ChatbotConfig.model_validate(
        {"connector": "rasa", "params": {"url": server.url, "timeout": timeout}}
    )
    return create_connector(config)


def _route(server: LoopbackServer, answer: Answer) -> None:
    server.routes["/webhooks/rest/webhook"] = lambda _request: answer


_send = send_once


async def test_rasa_happy_path_over_a_real_socket(loopback: LoopbackServer) -> None:
    _route(loopback, Answer(body=[{"recipient_id": "x", "text": "Hello!"}]))
    reply = await _send(_rasa(loopback), "hi there")
    assert reply.messages == ["Hello!"]
    assert reply.latency > 0
    assert loopback.received[0].body["message"] == "hi there"


async def test_http_500_is_a_crash(loopback: LoopbackServer) -> None:
    _route(loopback, Answer(500, {"error": "kaboom"}))
    with pytest.raises(ChatbotCrash, match=r"HTTP 500.*kaboom"):
        await _send(_rasa(loopback))


async def test_http_404_is_a_crash(loopback: LoopbackServer) -> None:
    loopback.routes.clear()
    with pytest.raises(ChatbotCrash, match="HTTP 404"):
        await _send(_rasa(loopback))


async def test_hang_becomes_a_timeout_after_params_timeout(loopback: LoopbackServer) -> None:
    _route(loopback, Answer(hang=True))
    started = time.perf_counter()
    with pytest.raises(ChatbotTimeout, match=r"within 0\.3 s") as info:
        await _send(_rasa(loopback, timeout=0.3))
    assert time.perf_counter() - started >= 0.25  # it waited for the timeout it was given
    assert info.value.code == 504


async def test_connection_closed_without_answer_is_a_crash(loopback: LoopbackServer) -> None:
    _route(loopback, Answer(close=True))
    with pytest.raises(ChatbotCrash) as info:
        await _send(_rasa(loopback))
    assert info.value.__cause__ is not None  # translated `from` the httpx error


async def test_connection_refused_is_a_crash() -> None:
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = ChatbotConfig.model_validate(
        {"connector": "rasa", "params": {"url": f"http://127.0.0.1:{port}"}}
    )
    with pytest.raises(ChatbotCrash, match="failed"):
        await _send(create_connector(config))


async def test_non_json_body_is_a_bad_payload(loopback: LoopbackServer) -> None:
    _route(loopback, Answer(body="<html>Internal error</html>"))
    with pytest.raises(BadPayload, match="not JSON"):
        await _send(_rasa(loopback))


@pytest.mark.parametrize("body", [b"", b"[]", b"  \n"])
async def test_empty_answer_is_an_empty_reply_not_an_error(
    loopback: LoopbackServer, body: bytes
) -> None:
    _route(loopback, Answer(body=body))
    reply = await _send(_rasa(loopback))
    assert reply.messages == [] and reply.buttons == []
    assert reply.text == ""


async def test_wrong_json_shape_is_a_bad_payload(loopback: LoopbackServer) -> None:
    _route(loopback, Answer(body={"text": "not a list"}))
    with pytest.raises(BadPayload, match="expected a list"):
        await _send(_rasa(loopback))


async def test_secret_header_never_reaches_raw_or_errors(
    loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOT_TOKEN", "s3cr3t-token-value")

    def echo(request: Any) -> Answer:
        return Answer(body=[{"text": "ok", "custom": {"seen": request.headers["Authorization"]}}])

    loopback.routes["/webhooks/rest/webhook"] = echo
    config = ChatbotConfig.model_validate(
        {
            "connector": "rasa",
            "params": {"url": loopback.url, "headers": {"Authorization": "Bearer ${BOT_TOKEN}"}},
        }
    )
    assert "s3cr3t" not in repr(config)
    connector = create_connector(config)
    assert "s3cr3t" not in repr(connector)
    reply = await _send(connector)
    assert loopback.received[0].headers["Authorization"] == "Bearer s3cr3t-token-value"
    assert "s3cr3t" not in str(reply.raw)
    assert reply.raw[0]["custom"]["seen"] == "Bearer ***"

    loopback.routes["/webhooks/rest/webhook"] = lambda r: Answer(500, r.headers["Authorization"])
    with pytest.raises(ChatbotCrash) as info:
        await _send(create_connector(config))
    assert "s3cr3t" not in str(info.value) and "***" in str(info.value)


def _other(kind: str, server: LoopbackServer, timeout: float = 2.0) -> Connector:
    params: dict[str, Any] = {"timeout": timeout}
    if kind == "taskyto":
        params["url"] = server.url
    else:
        params.update(base_url=server.url, send_message={"path": "/conversation/new"})
    return create_connector(ChatbotConfig.model_validate({"connector": kind, "params": params}))


@pytest.mark.parametrize("kind", ["taskyto", "rest"])
@pytest.mark.parametrize(
    ("answer", "failure"),
    [
        (Answer(503, "busy"), ChatbotCrash),
        (Answer(hang=True), ChatbotTimeout),
        (Answer(close=True), ChatbotCrash),
        (Answer(body="not json"), BadPayload),
    ],
)
async def test_failures_of_taskyto_and_rest(
    loopback: LoopbackServer, kind: str, answer: Answer, failure: type[Exception]
) -> None:
    loopback.routes["/conversation/new"] = lambda _request: answer
    timeout = 0.3 if answer.hang else 10.0  # only the hang waits for it (a loaded machine)
    with pytest.raises(failure):
        await _send(_other(kind, loopback, timeout=timeout))
