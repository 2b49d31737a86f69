"""Checking rules: SENSEI-check's semantics for single-conversation and global rules,
verdicts, errors that do not stop the check, and unknown variables caught before running."""

from __future__ import annotations

from pathlib import Path

import pytest
from check_builders import record, rule_set, run, write_rules

from sparring.check import check, load_rules, rule_function
from sparring.check._context import FunctionContext
from sparring.errors import ConfigError, ModelRequired


def test_verdicts_of_a_single_conversation_rule(tmp_path: Path) -> None:
    rule = """
    name: small_price
    when: size[0] == 'small'
    oracle: extract_float(price) >= 10
    yields: f"Wrong price {price} for a {size[0]} pizza"
    """
    records = [
        record("cheap", variables={"size": ["small"]}, outputs={"price": "8$"}),
        record("fine", variables={"size": ["small"]}, outputs={"price": "12$"}),
        record("big", variables={"size": ["big"]}, outputs={"price": "1$"}),
        record("no-size", outputs={"price": "1$"}),
        record("no-price", variables={"size": ["small"]}),
    ]
    result = run(tmp_path, rule, records).result("small_price")
    by_id = {v.conversations[0]: v for v in result.verdicts}
    assert by_id["cheap"].status == "fail"
    assert by_id["cheap"].message == "Wrong price 8$ for a small pizza"
    assert by_id["cheap"].reason == "oracle violated"
    assert by_id["fine"].status == "pass"
    assert by_id["big"].status == "not_applicable" and by_id["big"].reason == "`when` is false"
    assert by_id["no-size"].status == "not_applicable"
    assert "'size' is not defined" in (by_id["no-size"].reason or "")
    assert by_id["no-price"].status == "not_applicable"  # SENSEI: NameError → not applicable
    assert result.sensei_row() == {
        "rule": "small_price", "checks": 5, "pass": 1, "fail": 1,
        "not_applicable": 3, "fail_rate": "50.00%", "errors": 0,
    }  # fmt: skip


def test_pass_means_equal_to_true_and_other_values_are_the_reason(tmp_path: Path) -> None:
    rule = "name: value\nthen: chatbot_phrases\n"
    records = [record("some"), record("none", turns=[("user", "hi")])]
    by_id = {v.conversations[0]: v for v in run(tmp_path, rule, records).result("value").verdicts}
    assert by_id["some"].status == "fail" and by_id["some"].reason == "['hello']"
    assert by_id["none"].status == "fail" and by_id["none"].reason == "[]"


def test_an_oracle_that_raises_is_an_error_and_the_check_goes_on(tmp_path: Path) -> None:
    folder = write_rules(
        tmp_path,
        a="name: divides\nthen: 1 / (len(chatbot_phrases) - 1) > 0\n",
        b="name: after\nthen: True\n",
    )
    records = [record("one"), record("two", turns=[("assistant", "a"), ("assistant", "b")])]
    report = check(load_rules([folder]), records)
    divides = report.result("divides")
    assert [v.status for v in divides.verdicts] == ["error", "pass"]
    assert divides.verdicts[0].reason == "ZeroDivisionError: division by zero"
    assert divides.sensei_row()["not_applicable"] == 1  # SENSEI counts it not applicable
    assert report.result("after").counts.passed == 2
    assert report.failed


def test_a_model_backed_function_without_a_model_is_unscored(tmp_path: Path) -> None:
    @rule_function("needs_model_for_test")
    def needs_model(context: FunctionContext) -> bool:
        raise ModelRequired("needs_model_for_test")

    result = run(tmp_path, "name: m\nthen: needs_model_for_test()\n", [record()]).result("m")
    assert result.verdicts[0].status == "unscored"
    assert "--model" in (result.verdicts[0].reason or "")
    assert not result.failed


def test_evidence_and_turns_come_from_the_functions(tmp_path: Path) -> None:
    rule = """
    name: no_repeats
    oracle: not repeated_answers(method='exact', threshold=1)
    yields: f"The chatbot repeats {repeated_answers(method='exact', threshold=1)}"
    """
    turns = [("user", "a"), ("assistant", "Sorry?"), ("user", "b"), ("assistant", "Sorry?")]
    [verdict] = run(tmp_path, rule, [record(turns=turns)]).result("no_repeats").verdicts
    assert verdict.status == "fail" and verdict.turns == [1, 3]
    assert verdict.message is not None and "Sorry?" in verdict.message
    assert [e.function for e in verdict.evidence] == ["repeated_answers"]  # deduplicated
    assert verdict.strategy == "offline"


def test_global_rules_see_only_their_own_population(tmp_path: Path) -> None:
    """SENSEI-check never empties its filtered list between global rules (its
    ``empty_filtered_tests`` assigns a local), so a second ``is_unique`` sees the first
    rule's conversations again and fails on their duplicates; each rule here sees its own."""
    folder = write_rules(
        tmp_path,
        a="name: unique_ids\nconversations: all\nthen: is_unique('order_id')\n",
        b="name: unique_ids_again\nconversations: all\nthen: is_unique('order_id')\n",
        c="""
        name: expensive
        conversations: all
        when: extract_float(price) > 5
        then: num_exist('extract_float(price) > 10') == 1 and exists('size[0] == "big"')
        """,
    )
    records = [
        record("a", variables={"size": ["small"]}, outputs={"order_id": "1", "price": "4$"}),
        record("b", variables={"size": ["big"]}, outputs={"order_id": "2", "price": "12$"}),
        record("c", variables={"size": ["big"]}, outputs={"order_id": "3", "price": "6$"}),
    ]
    report = check(load_rules([folder]), records)
    for name in ("unique_ids", "unique_ids_again"):
        [verdict] = report.result(name).verdicts
        assert verdict.status == "pass" and verdict.conversations == ["a", "b", "c"]
    expensive = report.result("expensive")
    assert [v.status for v in expensive.verdicts] == ["not_applicable", "pass"]
    assert expensive.verdicts[1].conversations == ["b", "c"]
    assert expensive.sensei_row()["checks"] == 2  # SENSEI: excluded ones + one global check


def test_a_global_rule_fails_with_the_function_reason(tmp_path: Path) -> None:
    records = [record(str(i), outputs={"order_id": "same"}) for i in range(3)]
    rule = "name: ids\nconversations: all\nthen: is_unique('order_id')\n"
    [verdict] = run(tmp_path, rule, records).result("ids").verdicts
    assert verdict.status == "fail"
    assert "have value 'same' for order_id" in (verdict.evidence[0].reason or "")


def test_generic_failure_rows(tmp_path: Path) -> None:
    records = [record("a", errors=[1001]), record("b", errors=[500, 2000]), record("c")]
    report = run(tmp_path, "name: t\nthen: True\n", records)
    rows = {row["rule"]: row for row in report.sensei_rows()}
    assert [r.rule for r in report.generic] == [
        "goal_not_completed",
        "no_response",
        "timeout",
        "exceeded_loop_limit",
        "max_cost_exceeded",
        "max_individual_cost_exceeded",
    ]  # fmt: skip  (SENSEI-check 1.1.5's six rows, always written)
    assert rows["goal_not_completed"]["fail"] == 1 and rows["no_response"]["fail"] == 1
    assert rows["timeout"]["pass"] == 3 and rows["max_cost_exceeded"]["fail"] == 1
    assert rows["max_individual_cost_exceeded"]["pass"] == 3
    assert not report.failed  # generic failures alone do not fail the check


def test_unknown_variables_are_reported_before_anything_runs(tmp_path: Path) -> None:
    calls: list[str] = []

    @rule_function("spy_for_test")
    def spy(context: FunctionContext) -> bool:
        calls.append("called")
        return True

    folder = write_rules(
        tmp_path,
        a="name: a\nthen: spy_for_test()\n",
        b="name: b\nwhen: sise[0] == 'small'\nthen: True\n",
        c="name: c\nconversations: 2\nthen: conv[0].prise == size\n",
        d="name: d\nconversations: all\nthen: exists('drnk == 1')\n",
    )
    with pytest.raises(ConfigError) as caught:
        check(load_rules([folder]), [record(variables={"size": ["small"]})])
    messages = {(p.key, p.message) for p in caught.value.problems}
    assert any(k == "then" and "read it as conv[0].size" in m for k, m in messages)
    assert calls == []
    # the names no conversation defines alone: not applicable, with a warning per name
    names_only = write_rules(
        tmp_path / "names",
        b="name: b\nwhen: sise[0] == 'small'\nthen: True\n",
        d="name: d\nconversations: all\nthen: exists('drnk == 1')\n",
    )
    report = check(load_rules([names_only]), [record(variables={"size": ["small"]})])
    assert report.result("b").verdicts[0].status == "not_applicable"
    assert any("unknown variable 'sise'" in w and "did you mean 'size'" in w
               for w in report.warnings)  # fmt: skip
    # with the names the profiles define, a name outside them is named with the closest
    # defined name, and its rules are not applicable (as SENSEI-check counts them)
    typo = check(load_rules([names_only]), [record(variables={"size": ["small"]})],
                 defined=frozenset({"size", "drink"}))  # fmt: skip
    assert typo.result("b").verdicts[0].status == "not_applicable"
    assert any("unknown variable 'sise': no profile defines it (did you mean 'size'?)" in w
               for w in typo.warnings)  # fmt: skip
    assert any("'drnk'" in w and "'drink'" in w and "no profile defines it" in w
               for w in typo.warnings)  # fmt: skip


def test_a_variable_missing_from_a_partial_run_is_not_applicable(tmp_path: Path) -> None:
    rules = write_rules(
        tmp_path, r="name: r\nwhen: drink is not None\nthen: drink[0] in chatbot_phrases[0]\n"
    )
    report = check(load_rules([rules]), [record("a", variables={"size": ["s"]})])
    [verdict] = report.result("r").verdicts
    assert verdict.status == "not_applicable"


def test_inactive_rules_do_not_run(tmp_path: Path) -> None:
    rules = rule_set(tmp_path, "name: off\nactive: false\nthen: undefined_name > 1\n")
    report = check(rules, [record()])
    assert report.results == []
