"""ChatChecker chatbot clients run unchanged behind the ``python`` connector; the bot
ending the chat and the bot crashing are finish reasons like ChatChecker's."""

from __future__ import annotations

from pathlib import Path

import pytest
from chatchecker_bot import calls, write_chatchecker_bot, write_profile

from sparring.connectors import ChatbotConfig, Reply, create_connector, load_chatbot_config
from sparring.connectors._chatchecker_client import chatchecker_reply, is_chatchecker_client
from sparring.conversations import (
    ErrorCode,
    FailureCause,
    FinishReason,
    codes_of_finish_reason,
    finish_reason_of_code,
)
from sparring.errors import BadPayload
from sparring.runner import start
from sparring.simulate import SimulateJob, SimulateSettings


async def test_the_client_is_adapted_greeting_reply_ended_and_teardown(tmp_path: Path) -> None:
    bot = write_chatchecker_bot(tmp_path / "pizza_bot")
    connector = create_connector(load_chatbot_config(bot / "config.yaml"))
    conversation = await connector.open()
    greeting = getattr(conversation, "greeting", None)
    assert isinstance(greeting, Reply) and greeting.messages[0].startswith("Hi!")
    first = await conversation.send("I want a pizza")
    last = await conversation.send("small")
    assert first.messages == ["Sure. Which size would you like?"] and not first.ended
    assert last.ended and last.raw == ["Your order is placed. Goodbye!", True]
    await conversation.close()
    await connector.aclose()
    assert calls(bot) == ["set_up_class", "set_up_chat", "tear_down_chat", "tear_down_class"]


def test_the_bot_ending_the_chat_is_the_finish_reason(tmp_path: Path) -> None:
    bot = write_chatchecker_bot(tmp_path / "pizza_bot")
    settings = SimulateSettings(profiles=[write_profile(tmp_path / "profiles")], chatbot=bot)
    result = start(SimulateJob(), settings, tmp_path / "run").result
    (record,) = result.store.iter_records()
    assert record.finish_reason is FinishReason.CHATBOT_ENDED and not record.errors
    assert [t.role for t in record.turns] == ["assistant", "user", "assistant", "user", "assistant"]
    assert record.turns[-1].text == "Your order is placed. Goodbye!"
    assert calls(bot).count("set_up_class") == 1 and calls(bot)[-1] == "tear_down_class"
    assert result.store.manifest.chatbot["info"]["description"].startswith("A bot that takes")


def test_a_crashing_client_is_a_chatbot_error(tmp_path: Path) -> None:
    bot = write_chatchecker_bot(tmp_path / "pizza_bot", mode="crash")
    (tmp_path / "chatbot.yaml").write_text(
        "connector: python\n"
        "params:\n"
        "  target: pizza_bot/chatbot_client.py:ChatbotClient\n"
        "info:\n"
        "  chatchecker: pizza_bot/config.yaml\n",
        encoding="utf-8",
    )
    settings = SimulateSettings(
        profiles=[write_profile(tmp_path / "profiles")], chatbot=tmp_path / "chatbot.yaml"
    )
    (record,) = start(SimulateJob(), settings, tmp_path / "run").result.store.iter_records()
    assert record.finish_reason is FinishReason.CHATBOT_ERROR
    (error,) = record.errors
    assert error.code == ErrorCode.NO_RESPONSE and error.cause == FailureCause.CRASH
    assert "the pizza server is down" in error.message
    assert "tear_down_chat" in calls(bot)


def test_a_class_with_the_three_chat_methods_is_a_client() -> None:
    class Client:
        def set_up_chat(self) -> None: ...
        def get_response(self, text: str) -> tuple[str, bool]: ...
        def tear_down_chat(self) -> None: ...

    class Bot:
        def respond(self, text: str) -> str: ...

    assert is_chatchecker_client(Client) and not is_chatchecker_client(Bot)
    assert not is_chatchecker_client(Client())


@pytest.mark.parametrize("answer", [("text", "yes"), 42, ("a", True, 3)])
def test_an_answer_that_is_not_text_and_flag_is_a_bad_payload(answer: object) -> None:
    with pytest.raises(BadPayload, match=r"\(text, is_finished\)"):
        chatchecker_reply(answer)


def test_a_plain_string_answer_does_not_end_the_chat() -> None:
    assert chatchecker_reply("hello") == Reply(messages=["hello"], raw="hello")


def test_a_file_target_is_loaded_once_per_file(tmp_path: Path) -> None:
    one = write_chatchecker_bot(tmp_path / "one")
    two = write_chatchecker_bot(tmp_path / "two", mode="crash")
    first = create_connector(load_chatbot_config(one))
    second = create_connector(load_chatbot_config(two))
    again = create_connector(load_chatbot_config(one))
    targets = [getattr(c, "target", None) for c in (first, second, again)]
    assert targets[0] is targets[2] and targets[0] is not targets[1]
    assert isinstance(load_chatbot_config(one), ChatbotConfig)


def test_the_turn_cap_is_max_turns_reached_with_the_loop_limit(tmp_path: Path) -> None:
    bot = write_chatchecker_bot(tmp_path / "pizza_bot")
    settings = SimulateSettings(
        profiles=[write_profile(tmp_path / "profiles")], chatbot=bot, max_turns=1
    )
    (record,) = start(SimulateJob(), settings, tmp_path / "run").result.store.iter_records()
    assert record.finish_reason is FinishReason.MAX_TURNS_REACHED
    assert [e.code for e in record.errors] == [ErrorCode.EXCEEDED_LOOP_LIMIT]


def test_finish_reasons_and_failure_codes_map_both_ways() -> None:
    for reason in FinishReason:
        for code in codes_of_finish_reason(reason):
            assert finish_reason_of_code(code) is reason
    assert codes_of_finish_reason(FinishReason.CHATBOT_ERROR) == (500, 504)
    assert codes_of_finish_reason(FinishReason.USER_ENDED) == ()
    assert finish_reason_of_code(1001) is None and finish_reason_of_code(777) is None


def test_a_user_who_is_done_ends_the_chat(tmp_path: Path) -> None:
    data = Path(__file__).parent.parent / "simulate" / "data"
    settings = SimulateSettings(profiles=[data / "profiles"], chatbot=data / "chatbot.yaml")
    records = list(start(SimulateJob(), settings, tmp_path / "run").result.store.iter_records())
    assert {r.finish_reason for r in records} == {FinishReason.USER_ENDED}
