"""Endpoint settings named alike across HTTP connectors; old names accepted as aliases."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from sparring.cli import app
from sparring.connectors import ChatbotConfig, load_chatbot_config
from sparring.errors import ConfigError, UserInputError

HTTP_CONNECTORS = {
    "rasa": {},
    "taskyto": {},
    "rest": {},
    "openai": {"model": "m"},
}


@pytest.mark.parametrize(("name", "extra"), HTTP_CONNECTORS.items())
def test_every_http_connector_takes_url_headers_timeout(name: str, extra: dict[str, str]) -> None:
    params = {"url": "http://bot.test", "headers": {"X-Key": "k"}, "timeout": 3, **extra}
    config = ChatbotConfig.model_validate({"connector": name, "params": params})
    assert config.params.url == "http://bot.test"  # type: ignore[attr-defined]
    assert config.params.headers == {"X-Key": "k"}  # type: ignore[attr-defined]
    assert config.params.timeout == 3


@pytest.mark.parametrize(("name", "extra"), [("rest", {}), ("openai", {"model": "m"})])
def test_base_url_is_an_alias_of_url(name: str, extra: dict[str, str]) -> None:
    params = {"base_url": "http://old.test", **extra}
    config = ChatbotConfig.model_validate({"connector": name, "params": params})
    assert config.params.url == "http://old.test"  # type: ignore[attr-defined]


def test_url_and_its_alias_together_are_an_error(tmp_path: Path) -> None:
    path = tmp_path / "chatbot.yaml"
    path.write_text(
        "connector: rest\nparams:\n  url: http://a\n  base_url: http://b\n", encoding="utf-8"
    )
    with pytest.raises(ConfigError) as info:
        load_chatbot_config(path)
    assert [(p.key, p.line) for p in info.value.problems] == [("params.base_url", 4)]


def test_a_missing_url_is_reported_under_its_name(tmp_path: Path) -> None:
    path = tmp_path / "chatbot.yaml"
    path.write_text("connector: rest\nparams: {}\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_chatbot_config(path)
    assert [p.key for p in info.value.problems] == ["params.url"]


def test_connectors_show_lists_url_and_its_alias() -> None:
    result = CliRunner().invoke(app, ["connectors", "show", "openai"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    row = next(line for line in result.stdout.splitlines() if " url " in f" {line} ")
    assert "base_url" in row


def test_an_unknown_connector_is_a_located_user_error_with_a_suggestion(tmp_path: Path) -> None:
    path = tmp_path / "chatbot.yaml"
    path.write_text("connector: openia\nparams: {}\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_chatbot_config(path)
    assert isinstance(info.value, UserInputError)
    [problem] = info.value.problems
    assert (problem.file, problem.line, problem.key) == (str(path), 1, "connector")
    assert "did you mean 'openai'" in problem.message
