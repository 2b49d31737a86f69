"""chatbot.yaml: loading, located errors, ${ENV} interpolation and redaction."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import SecretStr, ValidationError

from sparring.connectors import (
    ChatbotConfig,
    ChatbotInfo,
    ConnectorParams,
    Redactor,
    create_connector,
    load_chatbot_config,
)
from sparring.connectors._config import REPLY_TIMEOUT_MARGIN
from sparring.connectors._openai import OpenAIParams
from sparring.connectors._rasa import RasaParams
from sparring.connectors._secrets import MissingVariable, interpolate, resolve_params
from sparring.errors import ConfigError


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "chatbot.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_full_config_loads(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        """\
connector: rasa
params:
  url: http://localhost:5005
  timeout: 5
info:
  name: Pizzeria
  description: Orders pizzas.
  type: task-oriented
  languages: [en, es]
  fallback: "Sorry, I did not understand."
""",
    )
    config = load_chatbot_config(path)
    assert isinstance(config.params, RasaParams)
    assert config.params.timeout == 5.0 and config.params.url == "http://localhost:5005"
    assert config.info == ChatbotInfo(
        name="Pizzeria",
        description="Orders pizzas.",
        type="task-oriented",
        languages=["en", "es"],
        fallback="Sorry, I did not understand.",
    )
    assert config.source == path
    assert config.model_dump()["params"]["url"] == "http://localhost:5005"


def test_every_problem_is_reported_with_line_and_key(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        """\
connector: rasa
params:
  url: http://localhost:5005
  timout: 5
  headers: nope
info:
  type: chit-chat
extra: 1
""",
    )
    with pytest.raises(ConfigError) as info:
        load_chatbot_config(path)
    found = {(p.key, p.line) for p in info.value.problems}
    assert found == {("params.timout", 4), ("params.headers", 5), ("info.type", 7), ("extra", 8)}
    assert all(p.file == str(path) for p in info.value.problems)
    timout = next(p for p in info.value.problems if p.key == "params.timout")
    assert timout.message == "unknown key 'timout' (did you mean 'timeout'?)"


def test_unknown_connector_names_the_available_ones(tmp_path: Path) -> None:
    path = _write(tmp_path, "connector: rasaa\nparams: {}\n")
    with pytest.raises(ConfigError) as info:
        load_chatbot_config(path)
    [problem] = info.value.problems
    assert (problem.key, problem.line) == ("connector", 1)
    assert "rasaa" in problem.message and "rasa, rest" in problem.message


def test_missing_connector_and_required_param(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_chatbot_config(_write(tmp_path, "params:\n  url: x\n"))
    assert [p.key for p in info.value.problems] == ["connector"]
    with pytest.raises(ConfigError) as info:
        load_chatbot_config(_write(tmp_path, "connector: openai\nparams:\n  base_url: x\n"))
    [problem] = info.value.problems
    assert (problem.key, problem.line, problem.message) == (
        "params.model",
        2,
        "required key is missing",
    )


@pytest.mark.parametrize("text", ["", "- a\n- b\n", "just text\n"])
def test_top_level_must_be_a_mapping(tmp_path: Path, text: str) -> None:
    with pytest.raises(ConfigError, match="mapping"):
        load_chatbot_config(_write(tmp_path, text))


def test_yaml_syntax_error_has_a_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_chatbot_config(_write(tmp_path, "connector: rasa\nparams: {url: x\n"))
    assert info.value.problems[0].line is not None


def test_params_can_be_omitted_when_all_have_defaults(tmp_path: Path) -> None:
    config = load_chatbot_config(_write(tmp_path, "connector: rasa\n"))
    assert isinstance(config.params, RasaParams)


def test_config_built_in_code_from_a_params_instance() -> None:
    config = ChatbotConfig(connector="rasa", params=RasaParams(url="http://x"))
    assert config.params.url == "http://x"  # type: ignore[attr-defined]
    with pytest.raises(ValidationError) as info:
        ChatbotConfig.model_validate({"connector": "rasa", "params": {"bogus": 1}})
    assert info.value.errors()[0]["loc"] == ("params", "bogus")


def test_env_interpolation_at_creation_not_at_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(
        tmp_path,
        "connector: rasa\nparams:\n  url: ${RASA_URL}\n  headers:\n    X-Key: ${RASA_KEY}\n",
    )
    config = load_chatbot_config(path)  # loads without the variables
    assert config.params.url == "${RASA_URL}"  # type: ignore[attr-defined]
    with pytest.raises(ConfigError) as info:
        create_connector(config)
    assert [(p.key, p.line) for p in info.value.problems] == [
        ("params.url", 3),
        ("params.headers.X-Key", 5),
    ]
    assert "RASA_URL" in info.value.problems[0].message
    monkeypatch.setenv("RASA_URL", "http://127.0.0.1:1")
    with pytest.raises(ConfigError) as info:
        create_connector(config)
    assert info.value.problems[0].key == "params.headers.X-Key"
    assert info.value.problems[0].line == 5
    monkeypatch.setenv("RASA_KEY", "key-value-1")
    connector = create_connector(config)
    assert "key-value-1" not in repr(connector)
    assert config.params.url == "${RASA_URL}"  # type: ignore[attr-defined]  # unchanged


def test_interpolate_defaults_escapes_and_missing() -> None:
    found: list[str] = []
    env = {"A": "alpha"}
    assert interpolate("x${A}y ${B:-beta} $${A}", ("k",), env, found) == "xalphay beta ${A}"
    assert found == ["alpha"]
    with pytest.raises(MissingVariable) as info:
        interpolate("${NOPE}", ("headers", "X"), env, found)
    assert info.value.path == ("headers", "X") and info.value.name == "NOPE"


def test_resolve_params_keeps_unset_fields_and_collects_secrets() -> None:
    params = OpenAIParams(model="m", api_key=SecretStr("literal-key"), system_prompt="${P}")
    resolved, redact = resolve_params(params, {"P": "prompt-text"})
    assert resolved.system_prompt == "prompt-text"
    assert resolved.model_fields_set == params.model_fields_set
    assert redact("literal-key and prompt-text") == "*** and ***"
    assert "literal-key" not in repr(resolved)


def test_redactor_walks_data_and_ignores_short_values() -> None:
    redact = Redactor(["tok-123456", "ab"])
    assert redact({"a": ["x tok-123456 y"], "tok-123456": 1, "n": 2}) == {
        "a": ["x *** y"],
        "***": 1,
        "n": 2,
    }
    assert redact("ab") == "ab"
    assert not Redactor([]) and redact


def test_base_params_forbid_unknown_keys_and_bad_timeout() -> None:
    with pytest.raises(ValidationError):
        ConnectorParams.model_validate({"x": 1})
    with pytest.raises(ValidationError):
        ConnectorParams.model_validate({"timeout": 0})


def test_a_jobs_reply_timeout_is_the_given_one_or_the_connectors_plus_the_margin(
    tmp_path: Path,
) -> None:
    """One default for every job that caps a reply (simulate, adversarial test, probes):
    the setting when given, else the connector's ``timeout`` plus ``REPLY_TIMEOUT_MARGIN``."""
    path = _write(
        tmp_path, "connector: rasa\nparams:\n  url: http://localhost:5005\n  timeout: 7\n"
    )
    config = load_chatbot_config(path)
    assert config.reply_timeout() == 7.0 + REPLY_TIMEOUT_MARGIN
    assert config.reply_timeout(3.5) == 3.5
    default = load_chatbot_config(_write(tmp_path, "connector: rasa\nparams: {url: http://h}\n"))
    assert default.reply_timeout() == ConnectorParams().timeout + REPLY_TIMEOUT_MARGIN
