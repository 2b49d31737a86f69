"""LiteLLM and llama.cpp providers: the test guard, offline mock replies, error classes.

No test here reaches the network: the guard refuses real requests, and the LiteLLM
calls use its ``mock_response`` (answered inside LiteLLM) with the conftest socket guard
still in force.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from sparring.errors import ModelError, UserInputError
from sparring.llm import Meter, _litellm, _llamacpp, get_model, model_requests_allowed

HI = [{"role": "user", "content": "hello"}]


class Verdict(BaseModel):
    passed: bool


@pytest.fixture
def litellm_calls(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Allow model requests and record every ``litellm.acompletion`` keyword set."""
    monkeypatch.setenv("SPARRING_ALLOW_MODEL_REQUESTS", "1")
    litellm = _litellm.import_litellm()
    real = litellm.acompletion
    calls: list[dict[str, Any]] = []

    async def spy(**kwargs: Any) -> Any:
        calls.append(kwargs)
        return await real(**kwargs)

    monkeypatch.setattr(litellm, "acompletion", spy)
    return calls


@pytest.mark.parametrize(("value", "allowed"), [("0", False), ("false", False), ("1", True)])
def test_model_requests_allowed_reads_the_environment(
    monkeypatch: pytest.MonkeyPatch, value: str, allowed: bool
) -> None:
    monkeypatch.setenv("SPARRING_ALLOW_MODEL_REQUESTS", value)
    assert model_requests_allowed() is allowed


async def test_guard_refuses_litellm_before_importing_it(monkeypatch: pytest.MonkeyPatch) -> None:
    assert not model_requests_allowed()  # set by tests/conftest.py

    def boom() -> None:
        raise AssertionError("litellm was reached")

    monkeypatch.setattr(_litellm, "import_litellm", boom)
    model = get_model("gpt-4o-mini", options={"mock_response": "never"})
    meter = Meter()
    with pytest.raises(ModelError, match="real model requests are disabled in tests"):
        await model.generate(HI, meter=meter, module="test")
    assert meter.usage == {}


async def test_mock_reply_gives_tokens_and_cost_from_the_price_map(
    litellm_calls: list[dict[str, Any]],
) -> None:
    model = get_model("gpt-4o-mini", options={"mock_response": "hello world"})
    meter = Meter()
    gen = await model.generate(HI, module="checker", meter=meter, temperature=0.2)
    prices = _litellm.import_litellm().model_cost["gpt-4o-mini"]
    expected = (
        gen.prompt_tokens * prices["input_cost_per_token"]
        + gen.completion_tokens * prices["output_cost_per_token"]
    )
    assert gen.text == "hello world"
    assert gen.prompt_tokens > 0 and gen.completion_tokens > 0
    assert gen.cost == pytest.approx(expected) and gen.cost > 0
    assert meter.usage["checker"].cost == pytest.approx(expected)
    assert litellm_calls[0]["temperature"] == 0.2
    assert litellm_calls[0]["messages"] == HI


async def test_schema_uses_response_format_where_supported(
    litellm_calls: list[dict[str, Any]],
) -> None:
    model = get_model("gpt-4o-mini", options={"mock_response": '{"passed": true}'})
    gen = await model.generate(HI, schema=Verdict, module="test")
    assert gen.parsed == Verdict(passed=True)
    fmt = litellm_calls[0]["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["schema"] == Verdict.model_json_schema()
    assert litellm_calls[0]["messages"] == HI


async def test_schema_goes_into_the_prompt_elsewhere(litellm_calls: list[dict[str, Any]]) -> None:
    model = get_model(
        "openai/local-model",
        base_url="http://127.0.0.1:9/v1",
        api_key="dummy",
        options={"mock_response": '{"passed": false}'},
    )
    system = {"role": "system", "content": "You judge."}
    gen = await model.generate([system, *HI], schema=Verdict, module="test")
    assert gen.parsed == Verdict(passed=False)
    sent = litellm_calls[0]
    assert "response_format" not in sent
    assert sent["api_base"] == "http://127.0.0.1:9/v1" and sent["api_key"] == "dummy"
    assert sent["messages"][0]["content"].startswith("You judge.")
    assert '"passed"' in sent["messages"][0]["content"]
    assert sent["messages"][1:] == HI


async def test_rate_limit_is_retried_then_reported(litellm_calls: list[dict[str, Any]]) -> None:
    litellm = _litellm.import_litellm()
    error = litellm.RateLimitError("slow down", llm_provider="openai", model="gpt-4o-mini")
    model = get_model("gpt-4o-mini", retries=2, backoff=0.001, options={"mock_response": error})
    with pytest.raises(ModelError, match="gave up after 3 attempts") as caught:
        await model.generate(HI, module="test")
    assert len(litellm_calls) == 3
    assert isinstance(caught.value.__cause__, _litellm.TransientModelError)


async def test_authentication_error_is_not_retried(litellm_calls: list[dict[str, Any]]) -> None:
    litellm = _litellm.import_litellm()
    error = litellm.AuthenticationError("bad key", llm_provider="openai", model="gpt-4o-mini")
    model = get_model("gpt-4o-mini", retries=3, backoff=0.001, options={"mock_response": error})
    with pytest.raises(ModelError, match="AuthenticationError"):
        await model.generate(HI, module="test")
    assert len(litellm_calls) == 1


def test_llamacpp_without_the_extra_gives_the_install_hint(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(_llamacpp, "llamacpp_available", lambda: False)
    with pytest.raises(UserInputError, match=r'pip install "sparring\[llamacpp\]"'):
        get_model(f"llamacpp/{tmp_path / 'm.gguf'}")


async def test_llamacpp_missing_file_and_guard(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(_llamacpp, "llamacpp_available", lambda: True)
    with pytest.raises(UserInputError, match="GGUF model file not found"):
        get_model(f"llamacpp/{tmp_path / 'absent.gguf'}")
    with pytest.raises(UserInputError, match="names no model"):
        get_model("llamacpp/")
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF")
    model = get_model(f"llamacpp/{gguf}")
    with pytest.raises(ModelError, match="disabled in tests"):
        await model.generate(HI, module="test")


async def test_a_missing_key_reported_as_a_server_error_is_not_retried_and_named(
    litellm_calls: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    litellm = _litellm.import_litellm()
    error = litellm.InternalServerError(
        "OpenAIException - Missing credentials. Please pass an `api_key`",
        llm_provider="openai",
        model="gpt-4o-mini",
    )  # what LiteLLM 1.x raises for OpenAI without a key: a 500, which looks transient
    model = get_model("gpt-4o-mini", retries=3, backoff=0.001, options={"mock_response": error})
    with pytest.raises(ModelError, match="set OPENAI_API_KEY in the environment"):
        await model.generate(HI, module="test")
    assert len(litellm_calls) == 1
