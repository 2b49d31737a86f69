"""The names a rule sees, as SENSEI-check builds them (``Test.to_dict``), and ours."""

from __future__ import annotations

from pathlib import Path

from check_builders import record, run

from sparring.check import build_namespace
from sparring.check._namespace import canonical, exact_key
from sparring.conversations import OutputValue, import_sensei


def test_sensei_names_of_an_imported_conversation(shared_data: Path) -> None:
    file = next((shared_data / "sensei-wild" / "output" / "kuki").rglob("*math_quizzes_*.yml"))
    names = build_namespace(import_sensei(file))
    assert names["number1"] == [5418] and names["number2"] == [53090]  # variables: lists
    assert names["conversation_number"] == 1 and names["number"] == 1  # settings, flattened
    assert names["conversation_goal_style_all_answered_limit"] == 6 and names["limit"] == 6
    assert names["interaction_style"] == ["default"]
    assert names["multiplication"] is None and names["data_output_division"] == 9.8
    assert names["data_output"] == [{"multiplication": None}, {"division": 9.8}]
    assert names["interaction"][0] == {"User": names["user_phrases"][0]}
    assert len(names["chatbot_phrases"]) == len(names["user_phrases"]) == 6
    assert names["errors"][0].code == 1001 and names["errors"][0].name == "goal_not_completed"
    assert names["response_times"][0] == 0.804578
    assert names["turns"][1].latency == 0.804578 and names["turns"][1].role == "assistant"


def test_a_goal_variable_wins_over_a_setting_of_the_same_name() -> None:
    names = build_namespace(
        record(variables={"number": [3]}, settings={"number": 5, "goal_style": {"steps": 4}})
    )
    assert names["number"] == [3]  # SENSEI would give the setting 5 here
    assert names["conversation_number"] == 5
    assert names["steps"] == 4 and names["conversation_goal_style_steps"] == 4


def test_outputs_win_over_variables_as_in_sensei() -> None:
    names = build_namespace(record(variables={"price": ["cheap"]}, outputs={"price": "10$"}))
    assert names["price"] == "10$" and names["data_output_price"] == "10$"


def test_goal_variables_reach_rules_as_recorded() -> None:
    # SENSEI-check hands rules the stored value: 1.1.5's scalars, older releases' lists
    names = build_namespace(record(variables={"size": "small", "toppings": ["ham"]}))
    assert names["size"] == "small" and names["toppings"] == ["ham"]


def test_the_papers_drinks_rule_applies_with_a_goal_variable_named_number(
    tmp_path: Path,
) -> None:
    """SENSEI's namespace shadows the goal variable ``number`` with the conversation setting
    ``number``, so its "more drinks cost more" rule never compares drinks; here it does."""
    rule = """
    name: more_drinks_cost_more
    conversations: 2
    when: conv[0].drink == conv[1].drink
    if: conv[0].number[0] > conv[1].number[0]
    then: extract_float(conv[0].price) > extract_float(conv[1].price)
    """

    def order(id: str, drinks: int, price: str) -> object:
        return record(
            id,
            variables={"drink": ["coke"], "number": [drinks]},
            outputs={"price": price},
            settings={"number": 1},
        )

    report = run(tmp_path, rule, [order("a", 1, "2$"), order("b", 3, "6$"), order("c", 2, "9$")])
    result = report.result("more_drinks_cost_more")
    assert result.counts.passed == 2 and result.counts.fail == 1  # c(2) > a(1) passes too
    assert result.verdicts[0].conversations == ["b", "c"]


def test_canonical_keys_follow_python_equality() -> None:
    assert canonical([1, "a"]) == canonical([1.0, "a"]) != canonical((1, "a"))
    assert canonical({"a": [1]}) == canonical({"a": [True]})
    assert canonical(float("nan")) != canonical(float("nan"))
    assert canonical({1, 2}) == canonical(frozenset({2, 1}))
    assert exact_key(1) != exact_key(1.0) != exact_key(True)
    assert exact_key(0.0) != exact_key(-0.0)
    assert exact_key(["a", {"b": 1}]) == exact_key(["a", {"b": 1}])


def test_time_date_and_money_outputs_compare_as_values(tmp_path: Path) -> None:
    """An output stored as ``"11:00:00"`` equals the ``'11:00'`` a rule writes, on either
    side of ``==`` and in ``in``; another time, date or amount stays unequal."""
    conversation = record(variables={"departure": "4:50 pm"})
    conversation.outputs = {
        "departure_time": OutputValue(value="16:50:00", type="time"),
        "day": OutputValue(value="2027-03-12", type="date"),
        "total": OutputValue(value="25.00 GBP", type="money"),
        "ref": OutputValue(value="16:50:00", type="str"),
    }
    rule = """
    name: typed
    oracle: >-
      departure_time == departure and '16:50' == departure_time and departure_time != '6:50'
      and departure_time in ['09:10', '16:50'] and day == '12/03/2027' and day != '2027-03-13'
      and total == '£25' and total != '£26' and departure_time.startswith('16:50')
    """
    assert run(tmp_path, rule, [conversation]).result("typed").counts.passed == 1
    names = build_namespace(conversation)
    assert names["ref"] != "16:50" and names["departure_time"] == "16:50"  # a str is text
