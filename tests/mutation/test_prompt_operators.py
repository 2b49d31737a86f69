"""Prompt mutation operators on an ``openai``-connector bot's system prompt and on a
prompt text file: locations and exact diffs."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from sparring.mutation import Location, operators_for, unified_diff
from sparring.mutation._operators import prompt as prompt_operators
from sparring.mutation._operators.prompt_text import units
from sparring.mutation._registry import OPERATORS

CHATBOT = """\
# the pizzeria's assistant: a model and its prompt
connector: openai
params:
  model: llama3.2
  system_prompt: |
    You are the assistant of Fast Pizza. Answer only about pizza.
    Prices:
    - Small pizza: 10$
    - Large pizza: 15.50$

    Opening hours: every day from 1pm to 11pm
    Delivery: not available
    Payment: cash only
  temperature: 0.2
"""

HEAD = "--- a/chatbot.yaml\n+++ b/chatbot.yaml\n"


@pytest.fixture
def bot(tmp_path: Path) -> Path:
    (tmp_path / "chatbot.yaml").write_text(CHATBOT, encoding="utf-8")
    return tmp_path


def located(name: str, project: Path) -> list[tuple[str, int | None]]:
    return [(loc.tag(), loc.line) for loc in OPERATORS.get(name).locations(project)]


def mutate(name: str, project: Path, tag: str) -> tuple[str, str]:
    file, key = tag.split("#")
    files, description = OPERATORS.get(name).apply(project, Location(file=file, key=key))
    return unified_diff(project, files), description


def test_registered() -> None:
    assert prompt_operators.ChangeNumber.name == "prompt.change_number"
    assert [op.name for op in operators_for("prompt")] == [
        "prompt.change_number",
        "prompt.delete_instruction",
        "prompt.swap_facts",
    ]


def test_units_are_bullets_lines_and_sentences() -> None:
    text = "Be kind. Be brief!\n- Small: 10$\n\n1. Never swear.\nCity: Málaga"
    assert [text[u.start : u.end] for u in units(text)] == [
        "Be kind.",
        "Be brief!",
        "- Small: 10$",
        "1. Never swear.",
        "City: Málaga",
    ]
    assert [u.value and text[u.value[0] : u.value[1]] for u in units(text)] == [
        None,
        None,
        "10",
        "1",
        "Málaga",
    ]


def test_locations(bot: Path) -> None:
    assert located("prompt.delete_instruction", bot) == [
        ("chatbot.yaml#instruction 1", 6),
        ("chatbot.yaml#instruction 2", 6),
        ("chatbot.yaml#instruction 3", 7),
        ("chatbot.yaml#instruction 4", 8),
        ("chatbot.yaml#instruction 5", 9),
        ("chatbot.yaml#instruction 6", 11),
        ("chatbot.yaml#instruction 7", 12),
        ("chatbot.yaml#instruction 8", 13),
    ]
    assert located("prompt.swap_facts", bot) == [
        ("chatbot.yaml#facts 4,5", 8),
        ("chatbot.yaml#facts 4,6", 8),
        ("chatbot.yaml#facts 5,6", 9),
        ("chatbot.yaml#facts 7,8", 12),
    ]
    assert located("prompt.change_number", bot) == [
        ("chatbot.yaml#number 1", 8),
        ("chatbot.yaml#number 2", 9),
        ("chatbot.yaml#number 3", 11),
        ("chatbot.yaml#number 4", 11),
    ]


def test_delete_a_sentence(bot: Path) -> None:
    assert mutate("prompt.delete_instruction", bot, "chatbot.yaml#instruction 2") == (
        HEAD + "@@ -3,7 +3,7 @@\n params:\n   model: llama3.2\n   system_prompt: |\n"
        "-    You are the assistant of Fast Pizza. Answer only about pizza.\n"
        "+    You are the assistant of Fast Pizza.\n"
        "     Prices:\n     - Small pizza: 10$\n     - Large pizza: 15.50$\n",
        "deleted the instruction 'Answer only about pizza.'",
    )


def test_delete_a_bullet(bot: Path) -> None:
    diff, _ = mutate("prompt.delete_instruction", bot, "chatbot.yaml#instruction 4")
    assert diff == HEAD + (
        "@@ -5,7 +5,6 @@\n   system_prompt: |\n"
        "     You are the assistant of Fast Pizza. Answer only about pizza.\n"
        "     Prices:\n-    - Small pizza: 10$\n     - Large pizza: 15.50$\n \n"
        "     Opening hours: every day from 1pm to 11pm\n"
    )


def test_swap_numbers_and_named_values(bot: Path) -> None:
    assert mutate("prompt.swap_facts", bot, "chatbot.yaml#facts 4,5") == (
        HEAD + "@@ -5,8 +5,8 @@\n   system_prompt: |\n"
        "     You are the assistant of Fast Pizza. Answer only about pizza.\n"
        "     Prices:\n-    - Small pizza: 10$\n-    - Large pizza: 15.50$\n"
        "+    - Small pizza: 15.50$\n+    - Large pizza: 10$\n \n"
        "     Opening hours: every day from 1pm to 11pm\n     Delivery: not available\n",
        "swapped the values '10' and '15.50' of instructions 4 and 5",
    )
    diff, _ = mutate("prompt.swap_facts", bot, "chatbot.yaml#facts 7,8")
    assert diff.endswith(
        "-    Delivery: not available\n-    Payment: cash only\n"
        "+    Delivery: cash only\n+    Payment: not available\n   temperature: 0.2\n"
    )


def test_change_number(bot: Path) -> None:
    assert mutate("prompt.change_number", bot, "chatbot.yaml#number 2") == (
        HEAD + "@@ -6,7 +6,7 @@\n"
        "     You are the assistant of Fast Pizza. Answer only about pizza.\n"
        "     Prices:\n     - Small pizza: 10$\n-    - Large pizza: 15.50$\n"
        "+    - Large pizza: 16.50$\n \n     Opening hours: every day from 1pm to 11pm\n"
        "     Delivery: not available\n",
        "changed the number 15.50 to 16.50",
    )


def test_every_mutant_keeps_the_rest_of_the_config(bot: Path) -> None:
    original = yaml.safe_load(CHATBOT)
    prompt = original["params"].pop("system_prompt")
    for operator in operators_for("prompt"):
        for location in operator.locations(bot):
            files, description = operator.apply(bot, location)
            assert (files, description) == operator.apply(bot, location)
            config = yaml.safe_load(files["chatbot.yaml"])
            assert config["params"].pop("system_prompt") != prompt
            assert config == original


@pytest.mark.parametrize(
    ("written", "mutated"),
    [
        ("You sell pizza. It costs 10 dollars.", "You sell pizza. It costs 11 dollars."),
        ("'You sell pizza. It''s 10 dollars.'", "'You sell pizza. It''s 11 dollars.'"),
        ('"You sell pizza.\\nIt costs 10 dollars."', '"You sell pizza.\\nIt costs 11 dollars."'),
    ],
)
def test_a_flow_scalar_keeps_its_style(tmp_path: Path, written: str, mutated: str) -> None:
    config = f"connector: openai\nparams:\n  model: m\n  system_prompt: {written}\n"
    (tmp_path / "chatbot.yaml").write_text(config, encoding="utf-8")
    files, _ = OPERATORS.get("prompt.change_number").apply(
        tmp_path, Location(file="chatbot.yaml", key="number 1")
    )
    assert files["chatbot.yaml"] == config.replace(written, mutated)


def test_a_prompt_file(tmp_path: Path) -> None:
    (tmp_path / "prompt.txt").write_text("Be brief.\nShop: Fast Pizza\nCity: Málaga\n")
    assert located("prompt.swap_facts", tmp_path) == [("prompt.txt#facts 2,3", 2)]
    assert mutate("prompt.swap_facts", tmp_path, "prompt.txt#facts 2,3")[0] == (
        "--- a/prompt.txt\n+++ b/prompt.txt\n@@ -1,3 +1,3 @@\n Be brief.\n"
        "-Shop: Fast Pizza\n-City: Málaga\n+Shop: Málaga\n+City: Fast Pizza\n"
    )


def test_only_openai_bots_have_a_prompt(tmp_path: Path) -> None:
    (tmp_path / "chatbot.yaml").write_text(
        "connector: python\nparams:\n  target: bot:Bot\n  system_prompt: Be brief. Say 1.\n"
    )
    for operator in operators_for("prompt"):
        assert operator.locations(tmp_path) == []
        with pytest.raises(ValueError, match="does not apply"):
            operator.apply(tmp_path, Location(file="chatbot.yaml", key="number 1"))
