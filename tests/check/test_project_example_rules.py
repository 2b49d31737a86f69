"""The rule sets shipped with the project's examples load, and the pizzeria's metamorphic
rule is evaluated as a join on hand-built conversations."""

from __future__ import annotations

from pathlib import Path

import pytest
from check_builders import record

from sparring.check import check, load_rules

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("bot", ["alice", "pizzeria"])
def test_example_rule_sets_load(bot: str) -> None:
    rules = load_rules([EXAMPLES / bot / "rules"])
    assert len(rules.rules) >= 4


def test_bigger_pizzas_cost_more_catches_a_cheaper_large_pizza() -> None:
    rules = load_rules([EXAMPLES / "pizzeria" / "rules" / "bigger_pizzas_cost_more.yaml"])
    conversations = [
        record(
            "s",
            variables={"size": "small", "pizza": "pepperoni", "drink": "coke"},
            outputs={"price": "11.50 USD"},
        ),
        record(
            "m",
            variables={"size": "medium", "pizza": "pepperoni", "drink": "coke"},
            outputs={"price": "14.00 USD"},
        ),
        record(
            "l",
            variables={"size": "large", "pizza": "pepperoni", "drink": "coke"},
            outputs={"price": "9.00 USD"},
        ),
        record(
            "x",
            variables={"size": "large", "pizza": "hawaiian", "drink": "coke"},
            outputs={"price": "1.00 USD"},
        ),
    ]
    result = check(rules, conversations).results[0]
    failed = sorted(tuple(v.conversations) for v in result.verdicts if v.status == "fail")
    assert failed == [("l", "m"), ("l", "s")]
    assert result.counts.passed == 1  # medium > small


def test_bigger_pizzas_cost_more_compares_orders_with_the_same_cans() -> None:
    """Issue 21: a small pizza with three cans may cost more than a medium one with one."""
    rules = load_rules([EXAMPLES / "pizzeria" / "rules" / "bigger_pizzas_cost_more.yaml"])
    conversations = [
        record(
            "small-3",
            variables={"size": "small", "pizza": "pepperoni", "drink": "coke", "cans": 3},
            outputs={"price": "15.50 USD"},
        ),
        record(
            "medium",  # a profile without cans orders one
            variables={"size": "medium", "pizza": "pepperoni", "drink": "coke"},
            outputs={"price": "14.00 USD"},
        ),
        record(
            "large-1",
            variables={"size": "large", "pizza": "pepperoni", "drink": "coke", "cans": 1},
            outputs={"price": "13.00 USD"},
        ),
    ]
    result = check(rules, conversations).results[0]
    failed = sorted(tuple(v.conversations) for v in result.verdicts if v.status == "fail")
    assert failed == [("large-1", "medium")]  # 13.00 < 14.00 with one can each
