"""Metamorphic rules: the planned evaluation (filters, hash join, lifted sub-expressions,
memoised glue) gives exactly the verdicts of trying every ordered tuple."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest
from check_builders import record, rule_set

from sparring.check import Rule
from sparring.check._engine import Runner
from sparring.check._plan import plan_rule
from sparring.check._tuples import run_tuples
from sparring.conversations import ConversationRecord


def brute_force(runner: Runner, rule: Rule) -> dict[tuple[str, ...], str]:
    """SENSEI's way: every ordered tuple of distinct conversations, fully evaluated."""
    found = {}
    assert rule.arity is not None
    for indices in itertools.permutations(range(len(runner.records)), rule.arity):
        scope = runner.tuple_scope(indices)
        holds = runner.holds(rule.when, scope, "when")[0] and runner.holds(rule.if_, scope, "if")[0]
        if holds:
            status, _ = runner.outcome(rule.then, scope)
            if status != "not_applicable":
                found[tuple(runner.ids[i] for i in indices)] = status
    return found


def planned(runner: Runner, rule: Rule) -> dict[tuple[str, ...], str]:
    result = run_tuples(runner, rule)
    found = {tuple(ids): "pass" for ids in result.passed}
    found.update({tuple(v.conversations): v.status for v in result.verdicts})
    total = len(list(itertools.permutations(range(len(runner.records)), rule.arity or 2)))
    assert result.counts.total == total
    assert result.counts.not_applicable == total - len(found)
    return found


def random_records(seed: int, n: int) -> list[ConversationRecord]:
    rng = random.Random(seed)
    records = []
    for i in range(n):
        variables = {}
        if rng.random() < 0.9:
            variables["size"] = [rng.choice(["small", "medium", "big"])]
        variables["drink"] = rng.choice([["coke"], ["water"], ["coke", "water"], []])
        variables["toppings"] = rng.sample(["ham", "cheese", "corn", "olives"], rng.randint(0, 3))
        outputs = {}
        if rng.random() < 0.85:
            outputs["price"] = rng.choice(["10$", "12.5$", "15$", "n/a", None, 12, 12.0, True])
        records.append(record(f"c{i}", variables=variables, outputs=outputs))
    return records


RULES = {
    "join and lift": """
        name: r
        conversations: 2
        when: conv[0].size == conv[1].size and conv[0].drink == conv[1].drink
        if: len(conv[0].toppings) > len(conv[1].toppings)
        then: extract_float(conv[0].price) > extract_float(conv[1].price)
        """,
    "filters and residual": """
        name: r
        conversations: 2
        when: |
          (conv[0].size[0] == 'small' and len(conv[1].toppings) > 0
           and conv[0].price != conv[1].price)
        then: conv[0].price == conv[1].price or len(conv[0].drink) >= len(conv[1].drink)
        """,
    "short-circuit over a raising side": """
        name: r
        conversations: 2
        when: conv[1].drink == conv[0].drink
        then: conv[0].size[0] == 'big' or extract_float(conv[1].price) > 11
        """,
    "identity and f-strings stay exact": """
        name: r
        conversations: 2
        if: conv[0].price is not None and f"{conv[0].price}" != f"{conv[1].price}"
        then: conv[0].price == conv[1].price
        """,
    "calls mixing both sides": """
        name: r
        conversations: 2
        when: conv[0].size == conv[1].size
        then: |
          (len(set(conv[0].toppings) | set(conv[1].toppings)) <= 4
           and max(conv[0].toppings + conv[1].toppings) != 'olives')
        """,
    "multi-line then": """
        name: r
        conversations: 2
        when: conv[0].size == conv[1].size
        then: |
          a = extract_float(conv[0].price)
          b = extract_float(conv[1].price)
          a is None or b is None or a <= b
        """,
    "three conversations": """
        name: r
        conversations: 3
        when: conv[0].size == conv[1].size and conv[1].size == conv[2].size
        then: len(conv[0].toppings) + len(conv[1].toppings) >= len(conv[2].toppings)
        """,
}


@pytest.mark.parametrize("source", RULES.values(), ids=RULES.keys())
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_planned_equals_brute_force(tmp_path: Path, source: str, seed: int) -> None:
    [rule] = rule_set(tmp_path, source).rules
    n = 12 if rule.arity == 3 else 24
    runner = Runner(random_records(seed, n))
    expected = brute_force(runner, rule)
    assert planned(runner, rule) == expected
    assert len(set(expected.values())) >= 1


def test_the_plan_joins_on_equalities_and_lifts_single_sides(tmp_path: Path) -> None:
    [rule] = rule_set(tmp_path, RULES["join and lift"]).rules
    plan = plan_rule(rule)
    assert len(plan.joins) == 2 and not plan.residual and plan.pure
    assert [lifted.expression.source for lifted in plan.lifted[0]] == [
        "len(conv[0].toppings)",
        "extract_float(conv[0].price)",
    ]
    [rule] = rule_set(tmp_path, RULES["calls mixing both sides"], name="mix").rules
    assert not plan_rule(rule).pure


def test_a_failing_pair_gets_its_message_and_evidence(tmp_path: Path) -> None:
    source = """
    name: more_toppings_cost_more
    conversations: 2
    when: conv[0].size == conv[1].size
    if: len(conv[0].toppings) > len(conv[1].toppings)
    then: extract_float(conv[0].price) > extract_float(conv[1].price)
    yields: f"{conv[0].price} is not more than {conv[1].price}"
    """
    records = [
        record("two", variables={"size": ["s"], "toppings": ["a", "b"]}, outputs={"price": "9$"}),
        record("one", variables={"size": ["s"], "toppings": ["a"]}, outputs={"price": "10$"}),
    ]
    result = run_tuples(Runner(records), rule_set(tmp_path, source).rules[0])
    [verdict] = result.verdicts
    assert verdict.conversations == ["two", "one"] and verdict.status == "fail"
    assert verdict.message == "9$ is not more than 10$"
    assert result.sensei_row() == {
        "rule": "more_toppings_cost_more", "checks": 2, "pass": 0, "fail": 1,
        "not_applicable": 1, "fail_rate": "100.00%", "errors": 0,
    }  # fmt: skip


def test_an_oracle_raising_on_a_pair_is_an_error_counted_as_failure(tmp_path: Path) -> None:
    source = "name: r\nconversations: 2\nthen: conv[0].price / conv[1].price >= 0\n"
    records = [record("a", outputs={"price": 1}), record("b", outputs={"price": 0})]
    result = run_tuples(Runner(records), rule_set(tmp_path, source).rules[0])
    statuses = {tuple(v.conversations): v.status for v in result.verdicts}
    assert statuses == {("a", "b"): "error"}
    assert result.passed == [["b", "a"]]
    assert result.sensei_row()["fail"] == 1  # SENSEI meant a failure (1.1.5 aborts instead)


def test_a_thousand_conversations_with_a_join_are_fast(tmp_path: Path) -> None:
    [rule] = rule_set(tmp_path, RULES["join and lift"]).rules
    runner = Runner(random_records(7, 1000))
    result = run_tuples(runner, rule)
    assert result.counts.total == 1000 * 999
    assert result.counts.passed + result.counts.fail + result.counts.error > 1000
