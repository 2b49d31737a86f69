"""Taskyto's mutation operators (SENSEI §7.1.1) on a small pizza bot: locations and
exact diffs."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from sparring.mutation import Location, operators_for, unified_diff
from sparring.mutation._operators import taskyto, taskyto_flow
from sparring.mutation._registry import OPERATORS

TOP_LEVEL = """\
modules:
- name: top-level
  kind: menu
  presentation: |
    You are a chatbot which helps users of a pizza shop to order a pizza.
  fallback: I'm sorry, I did not get what you said. Can you rephrase?

  items:
  - title: Pizza Q&A
    kind: module
    reference: pizza_qa
  - title: Order a pizza
    kind: sequence
    references:
      - order_pizza
      - calculate_price
  - title: Welcome
    kind: answer
    answer: Welcome to Fast Pizza!
"""

PIZZA_QA = """\
name: pizza_qa
kind: question_answering
description: Useful for answering questions on the pizza shop.
questions:
- question: What are the opening hours?
  answer: Every day from 1pm to 11:30pm
- question: How much do they cost?
  answer: |
    Margarita pizzas are 10$ for small
    and 15$ for medium.
- question: Do you deliver?
  answer: We do not do delivery.
"""

ORDER_PIZZA = """\
name: order_pizza
kind: data_gathering
description: Asks the pizza type and size.
data:
  - pizza_size:
      type: enum
      values:
        - small
        - large
  - pizza_type:
      type: enum
      required: false
      values: [margherita, hawaiian]
  - phone: string

on-success:
  response:
    text: "Thanks for ordering a {pizza_size} {pizza_type} pizza!"
    rephrase: in-caller
"""

CALCULATE_PRICE = """\
name: calculate_price
kind: action
data:
  - pizza_size: string
on-success:
  execute:
    language: python
    code: calculate_price.py
  response:
    text: "{{result}}"
"""

SEQUENCE = """\
name: checkout
kind: sequence
memory: full
references: [order_pizza, calculate_price]
"""


@pytest.fixture
def bot(tmp_path: Path) -> Path:
    files = {
        "top_level.yaml": TOP_LEVEL,
        "pizza_qa.yaml": PIZZA_QA,
        "order_pizza.yaml": ORDER_PIZZA,
        "calculate_price.yaml": CALCULATE_PRICE,
        "checkout.yaml": SEQUENCE,
        "chatbot.yaml": "connector: taskyto\nparams: {url: http://localhost:5000}\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def keys(name: str, project: Path) -> list[str]:
    return [location.tag() for location in OPERATORS.get(name).locations(project)]


def diff(name: str, project: Path, tag: str) -> str:
    operator = OPERATORS.get(name)
    (location,) = [loc for loc in operator.locations(project) if loc.tag() == tag]
    files, _ = operator.apply(project, location)
    return unified_diff(project, files)


def test_the_eleven_operators_are_registered() -> None:
    assert taskyto.DeleteEnumValue.name in OPERATORS.names()
    assert taskyto_flow.ChangeMemoryScope.name in OPERATORS.names()
    assert [op.name for op in operators_for("taskyto")] == [
        "taskyto.change_memory_scope",
        "taskyto.change_rephrase",
        "taskyto.delete_enum_value",
        "taskyto.delete_fallback",
        "taskyto.delete_menu_item",
        "taskyto.delete_question",
        "taskyto.delete_response_data",
        "taskyto.delete_sequence_step",
        "taskyto.swap_answers",
        "taskyto.swap_sequence_steps",
        "taskyto.toggle_required",
    ]


def test_locations(bot: Path) -> None:
    assert keys("taskyto.delete_enum_value", bot) == [
        "order_pizza.yaml#order_pizza/pizza_size/values/0",
        "order_pizza.yaml#order_pizza/pizza_size/values/1",
        "order_pizza.yaml#order_pizza/pizza_type/values/0",
        "order_pizza.yaml#order_pizza/pizza_type/values/1",
    ]
    assert keys("taskyto.toggle_required", bot) == [
        "order_pizza.yaml#order_pizza/pizza_size/required",
        "order_pizza.yaml#order_pizza/pizza_type/required",
    ]
    assert keys("taskyto.swap_answers", bot) == [
        "pizza_qa.yaml#pizza_qa/questions/0,1",
        "pizza_qa.yaml#pizza_qa/questions/0,2",
        "pizza_qa.yaml#pizza_qa/questions/1,2",
    ]
    assert keys("taskyto.delete_fallback", bot) == ["top_level.yaml#top-level/fallback"]
    assert len(keys("taskyto.delete_menu_item", bot)) == 3
    assert len(keys("taskyto.delete_question", bot)) == 3
    assert keys("taskyto.delete_sequence_step", bot) == [
        "checkout.yaml#checkout/references/0",
        "checkout.yaml#checkout/references/1",
        "top_level.yaml#top-level/items/1/references/0",
        "top_level.yaml#top-level/items/1/references/1",
    ]
    assert keys("taskyto.swap_sequence_steps", bot) == [
        "checkout.yaml#checkout/references/0,1",
        "top_level.yaml#top-level/items/1/references/0,1",
    ]
    assert keys("taskyto.delete_response_data", bot) == [
        "calculate_price.yaml#calculate_price/on-success/response/0",
        "order_pizza.yaml#order_pizza/on-success/response/0",
        "order_pizza.yaml#order_pizza/on-success/response/1",
    ]
    assert keys("taskyto.change_rephrase", bot) == [
        "calculate_price.yaml#calculate_price/on-success/response/rephrase=simple",
        "calculate_price.yaml#calculate_price/on-success/response/rephrase=in-caller",
        "order_pizza.yaml#order_pizza/on-success/response/rephrase=direct",
        "order_pizza.yaml#order_pizza/on-success/response/rephrase=simple",
    ]
    assert keys("taskyto.change_memory_scope", bot) == [
        "checkout.yaml#checkout/memory",
        "top_level.yaml#top-level/items/1/memory",
    ]


def test_delete_enum_value(bot: Path) -> None:
    assert diff(
        "taskyto.delete_enum_value", bot, "order_pizza.yaml#order_pizza/pizza_size/values/0"
    ) == (
        "--- a/order_pizza.yaml\n+++ b/order_pizza.yaml\n@@ -5,7 +5,6 @@\n"
        "   - pizza_size:\n       type: enum\n       values:\n-        - small\n"
        "         - large\n   - pizza_type:\n       type: enum\n"
    )
    assert diff(
        "taskyto.delete_enum_value", bot, "order_pizza.yaml#order_pizza/pizza_type/values/1"
    ) == (
        "--- a/order_pizza.yaml\n+++ b/order_pizza.yaml\n@@ -10,7 +10,7 @@\n"
        "   - pizza_type:\n       type: enum\n       required: false\n"
        "-      values: [margherita, hawaiian]\n+      values: [margherita]\n"
        "   - phone: string\n \n on-success:\n"
    )


def test_toggle_required(bot: Path) -> None:
    assert diff(
        "taskyto.toggle_required", bot, "order_pizza.yaml#order_pizza/pizza_size/required"
    ) == (
        "--- a/order_pizza.yaml\n+++ b/order_pizza.yaml\n@@ -4,6 +4,7 @@\n"
        " data:\n   - pizza_size:\n       type: enum\n+      required: false\n"
        "       values:\n         - small\n         - large\n"
    )
    assert diff(
        "taskyto.toggle_required", bot, "order_pizza.yaml#order_pizza/pizza_type/required"
    ) == (
        "--- a/order_pizza.yaml\n+++ b/order_pizza.yaml\n@@ -9,7 +9,7 @@\n"
        "         - large\n   - pizza_type:\n       type: enum\n"
        "-      required: false\n+      required: true\n"
        "       values: [margherita, hawaiian]\n   - phone: string\n \n"
    )


def test_delete_question(bot: Path) -> None:
    assert diff("taskyto.delete_question", bot, "pizza_qa.yaml#pizza_qa/questions/2") == (
        "--- a/pizza_qa.yaml\n+++ b/pizza_qa.yaml\n@@ -8,5 +8,3 @@\n"
        "   answer: |\n     Margarita pizzas are 10$ for small\n     and 15$ for medium.\n"
        "-- question: Do you deliver?\n-  answer: We do not do delivery.\n"
    )


def test_swap_answers_moves_a_block_scalar(bot: Path) -> None:
    assert diff("taskyto.swap_answers", bot, "pizza_qa.yaml#pizza_qa/questions/0,1") == (
        "--- a/pizza_qa.yaml\n+++ b/pizza_qa.yaml\n@@ -3,10 +3,10 @@\n"
        " description: Useful for answering questions on the pizza shop.\n questions:\n"
        " - question: What are the opening hours?\n"
        "-  answer: Every day from 1pm to 11:30pm\n-- question: How much do they cost?\n"
        "   answer: |\n     Margarita pizzas are 10$ for small\n     and 15$ for medium.\n"
        "+- question: How much do they cost?\n+  answer: Every day from 1pm to 11:30pm\n"
        " - question: Do you deliver?\n   answer: We do not do delivery.\n"
    )
    files, description = OPERATORS.get("taskyto.swap_answers").apply(
        bot, Location(file="pizza_qa.yaml", key="pizza_qa/questions/0,1")
    )
    questions = yaml.safe_load(files["pizza_qa.yaml"])["questions"]
    assert questions[1]["answer"] == "Every day from 1pm to 11:30pm"
    assert questions[0]["answer"].startswith("Margarita")
    assert description == (
        "swapped the answers of the questions 'What are the opening hours?' and "
        "'How much do they cost?' in module 'pizza_qa'"
    )


def test_delete_fallback_keeps_the_blank_line(bot: Path) -> None:
    assert diff("taskyto.delete_fallback", bot, "top_level.yaml#top-level/fallback") == (
        "--- a/top_level.yaml\n+++ b/top_level.yaml\n@@ -3,7 +3,6 @@\n"
        "   kind: menu\n   presentation: |\n"
        "     You are a chatbot which helps users of a pizza shop to order a pizza.\n"
        "-  fallback: I'm sorry, I did not get what you said. Can you rephrase?\n"
        " \n   items:\n   - title: Pizza Q&A\n"
    )


def test_delete_menu_item(bot: Path) -> None:
    assert diff("taskyto.delete_menu_item", bot, "top_level.yaml#top-level/items/2") == (
        "--- a/top_level.yaml\n+++ b/top_level.yaml\n@@ -14,6 +14,3 @@\n"
        "     references:\n       - order_pizza\n       - calculate_price\n"
        "-  - title: Welcome\n-    kind: answer\n-    answer: Welcome to Fast Pizza!\n"
    )


def test_sequence_steps(bot: Path) -> None:
    tag = "top_level.yaml#top-level/items/1/references/0"
    assert diff("taskyto.delete_sequence_step", bot, tag) == (
        "--- a/top_level.yaml\n+++ b/top_level.yaml\n@@ -12,7 +12,6 @@\n"
        "   - title: Order a pizza\n     kind: sequence\n     references:\n"
        "-      - order_pizza\n       - calculate_price\n   - title: Welcome\n"
        "     kind: answer\n"
    )
    assert diff("taskyto.delete_sequence_step", bot, "checkout.yaml#checkout/references/1") == (
        "--- a/checkout.yaml\n+++ b/checkout.yaml\n@@ -1,4 +1,4 @@\n"
        " name: checkout\n kind: sequence\n memory: full\n"
        "-references: [order_pizza, calculate_price]\n+references: [order_pizza]\n"
    )
    assert diff("taskyto.swap_sequence_steps", bot, "checkout.yaml#checkout/references/0,1") == (
        "--- a/checkout.yaml\n+++ b/checkout.yaml\n@@ -1,4 +1,4 @@\n"
        " name: checkout\n kind: sequence\n memory: full\n"
        "-references: [order_pizza, calculate_price]\n+references: [calculate_price, order_pizza]\n"
    )


def test_delete_response_data(bot: Path) -> None:
    tag = "order_pizza.yaml#order_pizza/on-success/response/0"
    assert diff("taskyto.delete_response_data", bot, tag) == (
        "--- a/order_pizza.yaml\n+++ b/order_pizza.yaml\n@@ -15,5 +15,5 @@\n"
        " \n on-success:\n   response:\n"
        '-    text: "Thanks for ordering a {pizza_size} {pizza_type} pizza!"\n'
        '+    text: "Thanks for ordering a {pizza_type} pizza!"\n'
        "     rephrase: in-caller\n"
    )
    tag = "calculate_price.yaml#calculate_price/on-success/response/0"
    assert '-    text: "{{result}}"\n+    text: ""\n' in diff(
        "taskyto.delete_response_data", bot, tag
    )


def test_change_rephrase_inserts_an_absent_mode(bot: Path) -> None:
    tag = "calculate_price.yaml#calculate_price/on-success/response/rephrase=simple"
    assert diff("taskyto.change_rephrase", bot, tag) == (
        "--- a/calculate_price.yaml\n+++ b/calculate_price.yaml\n@@ -8,3 +8,4 @@\n"
        "     code: calculate_price.py\n   response:\n"
        '     text: "{{result}}"\n+    rephrase: simple\n'
    )
    tag = "order_pizza.yaml#order_pizza/on-success/response/rephrase=direct"
    assert "-    rephrase: in-caller\n+    rephrase: direct\n" in diff(
        "taskyto.change_rephrase", bot, tag
    )


def test_change_memory_scope(bot: Path) -> None:
    assert diff("taskyto.change_memory_scope", bot, "top_level.yaml#top-level/items/1/memory") == (
        "--- a/top_level.yaml\n+++ b/top_level.yaml\n@@ -11,6 +11,7 @@\n"
        "     reference: pizza_qa\n   - title: Order a pizza\n     kind: sequence\n"
        "+    memory: full\n     references:\n       - order_pizza\n"
        "       - calculate_price\n"
    )
    assert "-memory: full\n+memory: individual\n" in diff(
        "taskyto.change_memory_scope", bot, "checkout.yaml#checkout/memory"
    )


def test_every_mutant_is_yaml_and_reproducible(bot: Path) -> None:
    for operator in operators_for("taskyto"):
        for location in operator.locations(bot):
            files, description = operator.apply(bot, location)
            assert files and description
            assert (files, description) == operator.apply(bot, location)
            for text in files.values():
                yaml.safe_load(text)


def test_the_last_item_of_a_list_leaves_an_empty_list(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text(
        "name: m\nkind: data_gathering\ndata:\n  - size:\n      type: enum\n"
        "      values:\n        - small\n",
        encoding="utf-8",
    )
    operator = OPERATORS.get("taskyto.delete_enum_value")
    (location,) = operator.locations(tmp_path)
    files, _ = operator.apply(tmp_path, location)
    assert files["m.yaml"].endswith("      type: enum\n      values: []\n")


def test_an_absent_location_is_a_value_error(bot: Path) -> None:
    with pytest.raises(ValueError, match="does not apply"):
        OPERATORS.get("taskyto.delete_fallback").apply(
            bot, Location(file="top_level.yaml", key="nope/fallback")
        )
