"""The scripted provider: file and callable replay, rules, exhaustion, bad files."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from sparring.errors import ConfigError, ModelError, UserInputError
from sparring.llm import ScriptedModel, get_model, load_script

USER = [{"role": "user", "content": "hello there bot"}]


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


async def test_yaml_list_replays_in_order_then_raises(tmp_path: Path) -> None:
    path = _write(tmp_path, "s.yaml", "- first reply\n- second one here\n")
    model = get_model(f"scripted:{path}")
    first = await model.generate(USER, module="test")
    second = await model.generate(USER, module="test")
    assert [first.text, second.text] == ["first reply", "second one here"]
    assert first.model == f"scripted:{path}"
    with pytest.raises(ModelError, match="exhausted after 2 replies"):
        await model.generate(USER, module="test")


async def test_cycle_restarts_from_the_first_reply(tmp_path: Path) -> None:
    path = _write(tmp_path, "s.yaml", "replies: [a, b]\nexhausted: cycle\n")
    model = get_model(f"scripted:{path}")
    texts = [(await model.generate(USER, module="test")).text for _ in range(5)]
    assert texts == ["a", "b", "a", "b", "a"]


async def test_rules_match_the_last_user_message_before_replies(tmp_path: Path) -> None:
    script = {
        "replies": ["fallback reply"],
        "rules": [{"match": "(?i)which size", "reply": "Small, please."}],
    }
    path = _write(tmp_path, "s.json", json.dumps(script))
    model = get_model(f"scripted:{path}")
    asked = [
        {"role": "user", "content": "Which SIZE do you want?"},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "anything else"},
    ]
    assert (await model.generate([*USER[:1], asked[0]], module="test")).text == "Small, please."
    # the rule looks at the LAST user message only
    assert (await model.generate(asked, module="test")).text == "fallback reply"


async def test_mapping_replies_are_sent_as_json(tmp_path: Path) -> None:
    path = _write(tmp_path, "s.yaml", "- {size: small, count: 2}\n")
    gen = await get_model(f"scripted:{path}").generate(USER, module="test")
    assert json.loads(gen.text) == {"size": "small", "count": 2}


async def test_tokens_are_whitespace_words_and_cost_per_call(tmp_path: Path) -> None:
    path = _write(tmp_path, "s.yaml", "replies: ['one two three']\ncost_per_call: 0.25\n")
    messages = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "a b c d"},
    ]
    gen = await get_model(f"scripted:{path}").generate(messages, module="test")
    assert (gen.prompt_tokens, gen.completion_tokens, gen.cost) == (6, 3, 0.25)


async def test_latency_is_simulated() -> None:
    model = ScriptedModel(["x"], latency=0.2)
    started = time.perf_counter()
    gen = await model.generate(USER, module="test")
    assert time.perf_counter() - started >= 0.2
    assert gen.latency >= 0.2


async def test_callable_sees_the_messages_and_rules_still_apply() -> None:
    def respond(messages: list[dict[str, str]]) -> str:
        return f"echo: {messages[-1]['content']} ({len(messages)})"

    model = ScriptedModel(respond, rules=[{"match": "^stop$", "reply": "bye"}])
    assert (await model.generate(USER, module="test")).text == "echo: hello there bot (1)"
    assert (
        await model.generate([{"role": "user", "content": "stop"}], module="test")
    ).text == "bye"
    assert model.requests == [USER, [{"role": "user", "content": "stop"}]]


async def test_bad_messages_are_refused_before_the_provider() -> None:
    model = ScriptedModel(["x"])
    with pytest.raises(ModelError, match="at least one message"):
        await model.generate([], module="test")
    with pytest.raises(ModelError, match="bad message"):
        await model.generate([{"role": "robot", "content": "hi"}], module="test")
    assert model.requests == []


def test_script_with_unknown_key_and_bad_regex_is_located(tmp_path: Path) -> None:
    path = _write(tmp_path, "s.yaml", "replys: [a]\nrules:\n  - {match: '(', reply: x}\n")
    with pytest.raises(ConfigError) as caught:
        load_script(path)
    keys = {p.key for p in caught.value.problems}
    assert keys == {"replys", "rules[0].match"}
    assert all(p.file == str(path) for p in caught.value.problems)


def test_missing_or_unparsable_script_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserInputError, match="cannot read file"):
        get_model(f"scripted:{tmp_path / 'absent.yaml'}")
    path = _write(tmp_path, "s.yaml", "replies: [a\n")
    with pytest.raises(UserInputError, match="not valid YAML"):
        get_model(f"scripted:{path}")


def test_bare_scripted_spec_and_empty_spec_explain_themselves() -> None:
    with pytest.raises(UserInputError, match=r"scripted:<path\.yaml>"):
        get_model("scripted")
    with pytest.raises(UserInputError, match="empty model spec"):
        get_model("  ")
