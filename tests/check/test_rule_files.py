"""Loading rule files: SENSEI's format, our extensions, and located errors for bad rules."""

from __future__ import annotations

from pathlib import Path

import pytest
from check_builders import write_rules

from sparring.check import load_rules
from sparring.check._rules import rules_schema
from sparring.errors import ConfigError


def problems(folder: Path) -> list[tuple[int | None, str, str]]:
    with pytest.raises(ConfigError) as caught:
        load_rules([folder])
    return [(p.line, p.key, p.message) for p in caught.value.problems]


def test_every_sensei_example_rule_loads(shared_data: Path) -> None:
    folder = shared_data / "sensei" / "examples" / "rules"
    files = sorted(folder.rglob("*.yaml"))
    assert len(files) > 80
    for file in files:
        rule_set = load_rules([file])
        assert len(rule_set.rules) == 1, file
    whole = load_rules([folder])
    assert len(whole.rules) == len(files)
    names = [rule.name for rule in whole.active]
    assert len(names) == len(set(names))  # duplicate active names are told apart
    assert any(name.startswith("chatbot_does_not_repeat (") for name in names)


def test_sensei_wild_and_pizza_rules_load(shared_data: Path) -> None:
    for folder in [*(shared_data / "sensei-wild" / "chatbots").glob("*/rules"),
                   shared_data / "sensei-pizza" / "rules"]:  # fmt: skip
        assert load_rules([folder]).rules


def test_aliases_defaults_and_kinds(tmp_path: Path) -> None:
    folder = write_rules(
        tmp_path,
        a="""
        name: a
        description: oracle and on-error are other names for then and yields
        oracle: True
        on-error: "failed {1 + 1}"
        """,
        b="""
        - name: b
          description: a metamorphic rule
          conversations: 2
          when: conv[0].size == conv[1].size
          if: len(conv[0].toppings) > len(conv[1].toppings)
          then: extract_float(conv[0].price) > extract_float(conv[1].price)
        - name: c
          description: global, inactive
          active: false
          conversations: all
          then: is_unique('order_id')
        """,
    )
    rules = {rule.name: rule for rule in load_rules([folder]).rules}
    assert rules["a"].kind == "single" and rules["a"].then.source == "True"
    assert rules["a"].when.source == "True" and rules["a"].yields is not None
    assert rules["b"].kind == "tuple" and rules["b"].arity == 2
    assert rules["c"].kind == "global" and not rules["c"].active
    assert rules["c"].then.properties == ("order_id",)


def test_a_syntax_error_names_file_line_and_key(tmp_path: Path) -> None:
    folder = write_rules(
        tmp_path,
        broken="""
        name: broken
        description: the oracle is not Python
        conversations: 1
        oracle: |
          x = 1
          extract_float(price) >=
        """,
    )
    [(line, key, message)] = problems(folder)
    assert (line, key) == (7, "oracle")
    assert message.startswith("syntax error")


def test_unknown_function_is_reported_with_a_suggestion(tmp_path: Path) -> None:
    folder = write_rules(
        tmp_path,
        typo="""
        name: typo
        description: a misspelt function
        when: True
        then: extract_flot(price) > 1
        """,
    )
    [(line, key, message)] = problems(folder)
    assert (line, key) == (5, "then")
    assert message == "unknown function 'extract_flot' (did you mean 'extract_float'?)"


@pytest.mark.parametrize("value", ["two", "0", "-1", "1.5", "true"])
def test_a_wrong_conversations_value_is_reported(tmp_path: Path, value: str) -> None:
    folder = write_rules(
        tmp_path,
        wrong=f"""
        name: wrong
        description: x
        conversations: {value}
        then: True
        """,
    )
    [(line, key, message)] = problems(folder)
    assert (line, key) == (4, "conversations")
    assert "positive integer or 'all'" in message


def test_unknown_and_missing_keys_and_duplicate_aliases(tmp_path: Path) -> None:
    folder = write_rules(
        tmp_path,
        keys="""
        - name: unknown key
          oracel: True
        - name: both
          then: True
          oracle: False
        - description: no name
          then: True
        """,
    )
    found = problems(folder)
    assert (3, "[0].oracel", "unknown key 'oracel' (did you mean 'oracle'?)") in found
    assert (2, "[0].then", "required key is missing") in found
    assert any(key == "[1]" and "either `then` or `oracle`" in msg for _, key, msg in found)
    assert (7, "[2].name", "required key is missing") in found


def test_problems_of_every_file_are_collected(tmp_path: Path) -> None:
    folder = write_rules(
        tmp_path,
        one="name: one\nthen: import os\n",
        two="name: two\nthen: __import__('os')\n",
        three="name: three\nthen: [\n",
    )
    found = problems(folder)
    files = {Path(p.file).name for p in _all(folder)}
    assert files == {"one.yaml", "two.yaml", "three.yaml"}
    assert any("not allowed" in message for _, _, message in found)


def _all(folder: Path) -> list:  # type: ignore[type-arg]
    with pytest.raises(ConfigError) as caught:
        load_rules([folder])
    return caught.value.problems


def test_a_condition_string_is_checked_when_loaded(tmp_path: Path) -> None:
    folder = write_rules(
        tmp_path,
        cond="""
        name: cond
        conversations: all
        then: num_exist('extract_float(cost) >') == 2
        """,
    )
    [(line, key, message)] = problems(folder)
    assert (line, key) == (4, "then")
    assert message.startswith("in num_exist(): syntax error")


def test_missing_paths_and_empty_folders_are_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such rule file"):
        load_rules([tmp_path / "nowhere"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match="no rule files found"):
        load_rules([tmp_path / "empty"])


def test_a_rule_set_file_with_user_functions(tmp_path: Path) -> None:
    (tmp_path / "my_functions.py").write_text(
        "from sparring.check import rule_function\n\n"
        "@rule_function('shouts')\n"
        "def shouts(context, text):\n"
        "    return text.isupper()\n"
    )
    folder = write_rules(
        tmp_path,
        set="""
        functions: my_functions.py
        rules:
          - name: loud
            then: shouts(chatbot_phrases[0])
        """,
    )
    rule_set = load_rules([folder / "set.yaml"], trust_functions=True)
    assert [rule.name for rule in rule_set.rules] == ["loud"]
    assert rule_set.function_files == (str(folder / "my_functions.py"),)


def test_the_rules_json_schema_accepts_the_three_shapes() -> None:
    schema = rules_schema()
    assert schema["title"] == "sparring rules"
    assert len(schema["anyOf"]) == 3
    spec = schema["$defs"]["RuleSpec"]["properties"]
    assert {"name", "conversations", "when", "if", "then", "yields"} <= set(spec)
