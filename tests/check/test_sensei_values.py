"""Values as SENSEI-check hands them to rules: scalars and lists as stored, outputs recorded
as ``None``, and the warning for rules that index a single value."""

from __future__ import annotations

from pathlib import Path

from check_builders import record, run

from sparring.check import check, load_rules
from sparring.conversations import import_sensei

PRICE_IS = "name: r\noracle: extract_float(price) == 10.5\n"


def test_a_scalar_goal_variable_compares_as_written(tmp_path: Path) -> None:
    rule = "name: r\nwhen: ap_date == 'tomorrow'\noracle: service.lower() == confirmed.lower()\n"
    records = [
        record("a", variables={"ap_date": "tomorrow", "service": "Vaccination"},
               outputs={"confirmed": "vaccination"}),
        record("b", variables={"ap_date": "tomorrow", "service": "Surgery"},
               outputs={"confirmed": "vaccination"}),
        record("c", variables={"ap_date": "10-10-2025", "service": "Surgery"},
               outputs={"confirmed": "surgery"}),
    ]  # fmt: skip
    counts = run(tmp_path, rule, records).result("r").counts
    assert (counts.passed, counts.fail, counts.not_applicable) == (1, 1, 1)


def test_a_scalar_is_a_dictionary_key(tmp_path: Path) -> None:
    rule = "name: r\noracle: \"{'dog': 'woof', 'cat': 'meow'}[animal] in chatbot_phrases[0]\"\n"
    records = [record("a", variables={"animal": "dog"}, turns=[("assistant", "woof!")])]
    assert run(tmp_path, rule, records).result("r").counts.passed == 1


def test_an_output_recorded_as_none_is_not_applicable(tmp_path: Path) -> None:
    records = [record("a", outputs={"price": "10.5$"}), record("b", outputs={"price": None})]
    verdicts = run(tmp_path, PRICE_IS, records).result("r").verdicts
    assert [v.status for v in verdicts] == ["pass", "not_applicable"]
    assert "price, recorded as None" in (verdicts[1].reason or "")


def test_an_oracle_raising_on_a_none_output_is_not_applicable(tmp_path: Path) -> None:
    rule = "name: r\noracle: price.lower() == 'free'\n"
    [verdict] = run(tmp_path, rule, [record("b", outputs={"price": None})]).result("r").verdicts
    assert verdict.status == "not_applicable"


def test_a_broken_rule_is_still_an_error(tmp_path: Path) -> None:
    # only a None output excuses a raising oracle; a rule that raises otherwise is broken
    rule = "name: r\noracle: price.lower() == 1 / 0\n"
    [verdict] = run(tmp_path, rule, [record("b", outputs={"price": "1$"})]).result("r").verdicts
    assert verdict.status == "error"


def test_asking_whether_an_output_is_missing_still_fails(tmp_path: Path) -> None:
    rule = "name: r\noracle: price is not None\n"
    [verdict] = run(tmp_path, rule, [record("b", outputs={"price": None})]).result("r").verdicts
    assert verdict.status == "fail"


def test_indexing_a_single_value_is_warned_with_its_place(tmp_path: Path) -> None:
    rule = "name: r\nwhen: size[0] == 'small'\noracle: conv[0].drink[0] != 'c'\n"
    records = [
        record("a", variables={"size": "small", "drink": ["coke"]}),
        record("b", variables={"size": ["small"], "drink": ["water"]}),
    ]
    warnings = run(tmp_path, rule, records).warnings
    assert len(warnings) == 1
    assert "rule.yaml:2 [when]" in warnings[0] and "'size' holds one value" in warnings[0]
    assert "in 1 of 2 conversations" in warnings[0]


def test_an_imported_older_sensei_file_keeps_its_one_element_lists(shared_data: Path) -> None:
    """SENSEI before 1.1.5 wrote ``size: [small]``; its rules index it (``size[0]``)."""
    folder = shared_data / "sensei-pizza/conversations/mutant_ChangeRephrase_1/conversations"
    imported = import_sensei(next(iter(sorted(folder.rglob("*.yml")))))
    assert isinstance(imported.variables["size"], list)
    rules = load_rules([shared_data / "sensei-pizza/rules/small_pizza_price.yaml"])
    assert check(rules, [imported]).warnings == []
