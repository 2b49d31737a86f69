"""The `python` connector: callables and classes, sync and async, failures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sparring.connectors import ChatbotConfig, Connector, create_connector
from sparring.errors import BadPayload, ChatbotCrash, ChatbotTimeout, ConfigError

HERE = Path(__file__).parent


def _connector(target: str, **params: Any) -> Connector:
    config = ChatbotConfig.model_validate(
        {"connector": "python", "params": {"target": target, "path": ".", **params}}
    )
    return create_connector(config, base_dir=HERE)


async def _ask(target: str, text: str = "hi", **params: Any) -> Any:
    return await (await _connector(target, **params).open()).send(text)


async def test_plain_function() -> None:
    reply = await _ask("python_bots:echo", "pizza")
    assert reply.messages == ["echo: pizza"]
    assert reply.raw == "echo: pizza"


async def test_function_with_session_id_gets_a_stable_id_per_conversation() -> None:
    conversation = await _connector("python_bots:with_session").open()
    first = await conversation.send("a")
    second = await conversation.send("b")
    other = await (await _connector("python_bots:with_session").open()).send("c")
    assert first.messages[0] == "A"
    assert first.messages[1] == second.messages[1] != other.messages[1]


async def test_async_function_with_structured_answer() -> None:
    reply = await _ask("python_bots:async_bot")
    assert reply.messages == ["Pick one"]
    assert [(b.text, b.link) for b in reply.buttons] == [
        ("A", "/a"),
        ("B", None),
        ("C", "http://c"),
    ]
    assert reply.images == ["x.png"]


async def test_class_is_instantiated_per_conversation_and_closed() -> None:
    connector = _connector("python_bots:Counter", kwargs={"start": 10})
    first = await connector.open()
    await first.send("a")
    reply = await first.send("b")
    other = await (await connector.open()).send("c")
    assert reply.messages == ["12: b"] and other.messages == ["11: c"]
    import python_bots

    await first.close()
    assert python_bots.Counter.instances[-2].closed and not python_bots.Counter.instances[-1].closed


async def test_async_callable_instance_with_session() -> None:
    reply = await _ask("python_bots:AsyncCallable", "x")
    assert reply.messages[0].endswith("|x") and len(reply.messages[0]) == 6


async def test_exception_in_bot_is_a_crash() -> None:
    with pytest.raises(ChatbotCrash, match="ValueError: bot bug") as info:
        await _ask("python_bots:broken")
    assert isinstance(info.value.__cause__, ValueError)


async def test_constructor_failure_is_a_crash() -> None:
    with pytest.raises(ChatbotCrash, match="cannot start"):
        await _connector("python_bots:BadInit").open()


async def test_slow_sync_bot_times_out_without_blocking_the_loop() -> None:
    with pytest.raises(ChatbotTimeout):
        await _ask("python_bots:slow", timeout=0.2)


async def test_none_is_an_empty_reply_and_other_types_are_bad_payloads() -> None:
    assert (await _ask("python_bots:silent")).messages == []
    with pytest.raises(BadPayload, match="int"):
        await _ask("python_bots:weird")


@pytest.mark.parametrize(
    ("target", "params", "key", "message"),
    [
        ("no_such_module_xyz:f", {}, "params.target", "cannot import"),
        ("python_bots:missing", {}, "params.target", "cannot import"),
        ("python_bots:NOT_CALLABLE", {}, "params.target", "not callable"),
        ("python_bots:echo", {"kwargs": {"a": 1}}, "params.kwargs", "not a class"),
    ],
)
def test_bad_targets_are_config_errors(
    target: str, params: dict[str, Any], key: str, message: str
) -> None:
    with pytest.raises(ConfigError) as info:
        _connector(target, **params)
    [problem] = info.value.problems
    assert problem.key == key and message in problem.message


def test_target_must_look_like_module_colon_attr() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        ChatbotConfig.model_validate(
            {"connector": "python", "params": {"target": "python_bots.echo"}}
        )
