"""ChatChecker's chatbot ``config.yaml`` is read as is and mapped onto ``ChatbotInfo``."""

from __future__ import annotations

from pathlib import Path

import pytest
from chatchecker_bot import CONFIG, write_chatchecker_bot

from sparring.connectors import ChatbotInfo, load_chatbot_config
from sparring.connectors._chatchecker import language_code, load_chatchecker_config
from sparring.errors import ConfigError


def test_a_chatchecker_config_is_a_chatbot_config(tmp_path: Path) -> None:
    bot = write_chatchecker_bot(tmp_path / "pizza_bot")
    config = load_chatbot_config(bot / "config.yaml")
    info = config.info
    assert info.name == "Pizza Bot" and info.type == "task-oriented"
    assert info.description == "A bot that takes pizza orders for a small pizzeria."
    assert info.task == "The chatbot must take an order with a size and confirm it."
    assert info.constraints == [
        "The chatbot should redirect off-topic requests to the pizzeria's phone line."
    ]
    assert info.known_limitations == ["Can NOT take payments."]
    assert info.interaction_method == "text-based chat interface"
    assert info.languages == ["en", "es"]
    assert config.connector == "python"
    assert config.params.model_dump()["target"] == "chatbot_client.py:ChatbotClient"
    assert config.source == bot / "config.yaml"
    simulation = config.user_simulation
    assert simulation is not None and simulation.max_user_turns == 12
    assert (simulation.typical_words, simulation.max_words) == (8, 30)
    assert load_chatbot_config(bot).info == info  # the folder works too


def test_info_chatchecker_in_chatbot_yaml_fills_info_and_its_keys_win(tmp_path: Path) -> None:
    write_chatchecker_bot(tmp_path / "pizza_bot")
    (tmp_path / "chatbot.yaml").write_text(
        "connector: python\n"
        "params:\n"
        "  target: pizza_bot/chatbot_client.py:ChatbotClient\n"
        "info:\n"
        "  chatchecker: pizza_bot/config.yaml\n"
        "  name: Luigi's\n"
        "  fallback: Sorry?\n",
        encoding="utf-8",
    )
    config = load_chatbot_config(tmp_path / "chatbot.yaml")
    assert config.info.name == "Luigi's" and config.info.fallback == "Sorry?"
    assert config.info.description == "A bot that takes pizza orders for a small pizzeria."
    assert config.user_simulation is not None and config.user_simulation.turn_limit == 12


def test_the_description_reaches_prompt_text(tmp_path: Path) -> None:
    info = load_chatbot_config(write_chatchecker_bot(tmp_path / "bot")).info
    text = info.prompt_text()
    assert "Description: A bot that takes pizza orders for a small pizzeria." in text
    assert "Task: The chatbot must take an order" in text
    assert "Known limitations:\n- Can NOT take payments." in text
    assert "Task:" not in info.prompt_text(task=False)
    assert ChatbotInfo().prompt_text() == ""


def test_an_unknown_key_names_file_line_and_key(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(CONFIG.replace("  task: ", "  tsak: "), encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_chatbot_config(path)
    (problem,) = info.value.problems
    assert (problem.file, problem.line) == (str(path), 7)
    assert problem.key == "chatbot_info.tsak" and problem.message == "unknown key"


def test_a_missing_key_and_a_bad_value_are_located(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    text = CONFIG.replace("  max_user_turns: 12", "  max_user_turns: many")
    path.write_text(text.replace("  name: Pizza Bot\n", ""), encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_chatchecker_config(path)
    found = {(p.key, p.line) for p in info.value.problems}
    assert found == {("chatbot_info.name", 2), ("user_simulation_config.max_user_turns", 18)}


def test_a_missing_chatchecker_file_is_located_in_chatbot_yaml(tmp_path: Path) -> None:
    path = tmp_path / "chatbot.yaml"
    path.write_text(
        "connector: scripted\nparams: {}\ninfo:\n  chatchecker: nowhere/config.yaml\n",
        encoding="utf-8",
    )
    with pytest.raises(ConfigError, match=r"chatbot.yaml:4 \[info.chatchecker\]"):
        load_chatbot_config(path)


@pytest.mark.parametrize(
    ("name", "code"),
    [("English", "en"), ("german", "de"), ("ES", "es"), ("Klingon", "Klingon")],
)
def test_language_names_become_iso_codes(name: str, code: str) -> None:
    assert language_code(name) == code
