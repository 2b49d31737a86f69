"""Planning conversations: selectors, combinations, styles, data generators, any()."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest

from sparring.errors import UserInputError
from sparring.llm import ScriptedModel
from sparring.profiles import load_profile, plan_conversations
from sparring.profiles._values import parse_value_list

Write = Callable[..., Path]
ProfileWith = Callable[..., Path]

# The SENSEI README / paper example (de Lara et al., §4): Table 2 lists what each
# conversation gets from forward(), another() and random().
TABLE2 = """\
- "a {{size}} custom pizza with {{toppings}}"
- "{{cans}} cans of {{drink}}"
- how much will it cost
- size:
    function: another()
    type: string
    data: [small, medium, big]
- toppings:
    function: random(rand)
    type: string
    data: [cheese, mushrooms, pepperoni]
- cans:
    function: forward(drink)
    type: int
    data: {min: 1, max: 3, step: 1}
- drink:
    function: forward()
    type: string
    data: [sprite, coke, Orange Fanta]
"""


async def plan(path: Path, seed: int = 0, **kwargs: Any) -> list[Any]:
    return await plan_conversations(load_profile(path), seed=seed, **kwargs)


async def test_table2_forward_another_random(profile_with: ProfileWith) -> None:
    plans = await plan(profile_with(TABLE2, number="all_combinations"))
    # forward(drink) nests drink inside cans: 3 × 3 combinations, cans changing slowest
    drinks = ["sprite", "coke", "Orange Fanta"]
    assert [(p.variables["cans"], p.variables["drink"]) for p in plans] == [
        (cans, drink) for cans in (1, 2, 3) for drink in drinks
    ]
    # another(): no size repeats before all three have been used; each pick is a
    # one-element list, as SENSEI's another_generator yields it (rules write size[0])
    assert all(len(p.variables["size"]) == 1 for p in plans)
    sizes = [p.variables["size"][0] for p in plans]
    for block in range(3):
        assert sorted(sizes[3 * block : 3 * block + 3]) == ["big", "medium", "small"]
    # random(rand): 1..3 distinct toppings, drawn afresh each conversation; one topping
    # alone is recorded as a scalar, as SENSEI 1.1.5 records it
    for p in plans:
        picked = p.variables["toppings"]
        toppings = picked if isinstance(picked, list) else [picked]
        assert isinstance(picked, list) == (len(toppings) > 1)
        assert 1 <= len(toppings) <= 3 and len(set(toppings)) == len(toppings)
        assert set(toppings) <= {"cheese", "mushrooms", "pepperoni"}
        assert p.goals == [
            f"a {p.variables['size'][0]} custom pizza with {', '.join(toppings)}",
            f"{p.variables['cans']} cans of {p.variables['drink']}",
            "how much will it cost",
        ]
    assert len({str(p.variables["toppings"]) for p in plans}) > 1
    assert [p.index for p in plans] == list(range(9))


async def test_plans_are_reproducible_from_the_seed(profile_with: ProfileWith) -> None:
    path = profile_with(TABLE2, number=12)
    first, again, other = await plan(path, 7), await plan(path, 7), await plan(path, 8)
    assert [p.model_dump() for p in first] == [p.model_dump() for p in again]
    assert [p.variables for p in first] != [p.variables for p in other]


@pytest.mark.parametrize("reverse", [False, True])
async def test_three_variable_chain_in_any_order(profile_with: ProfileWith, reverse: bool) -> None:
    items = [
        "- a: {function: forward(b), type: string, data: [a1, a2]}",
        "- b: {function: forward(c), type: string, data: [b1, b2]}",
        "- c: {function: forward(), type: string, data: [c1, c2, c3]}",
    ]
    goals = '- "{{a}} {{b}} {{c}}"\n' + "\n".join(reversed(items) if reverse else items)
    plans = await plan(profile_with(goals, number="combinations"))
    expected = list(itertools.product(["a1", "a2"], ["b1", "b2"], ["c1", "c2", "c3"]))
    assert [(p.variables["a"], p.variables["b"], p.variables["c"]) for p in plans] == expected


async def test_more_conversations_than_combinations_cycle(profile_with: ProfileWith) -> None:
    goals = """\
    - "{{x}} {{y}} {{z}}"
    - x: {function: forward(y), type: string, data: [x1, x2]}
    - y: {function: forward(), type: string, data: [y1]}
    - z: {function: forward(), type: string, data: [z1, z2, z3]}
    """
    plans = await plan(profile_with(goals, number=5))
    assert [p.variables["x"] for p in plans] == ["x1", "x2", "x1", "x2", "x1"]
    assert [p.variables["z"] for p in plans] == ["z1", "z2", "z3", "z1", "z2"]  # independent


async def test_another_uses_every_value_before_repeating(profile_with: ProfileWith) -> None:
    goals = """\
    - "{{one}} / {{two}}"
    - one: {function: another(), type: int, data: [1, 2, 3, 4, 5]}
    - two: {function: another(2), type: string, data: [a, b, c, d]}
    """
    plans = await plan(profile_with(goals, number=10))
    assert all(isinstance(p.variables["one"], list) for p in plans)
    ones = [p.variables["one"][0] for p in plans]
    assert sorted(ones[:5]) == [1, 2, 3, 4, 5] and sorted(ones[5:]) == [1, 2, 3, 4, 5]
    twos = [p.variables["two"] for p in plans]
    assert all(len(pair) == 2 for pair in twos)
    assert sorted(twos[0] + twos[1]) == ["a", "b", "c", "d"]
    assert plans[0].goals[0] == f"{ones[0]} / {', '.join(twos[0])}"


async def test_random_default_and_counts(profile_with: ProfileWith) -> None:
    goals = """\
    - "{{pick}} | {{few}} | {{all}} | {{every}}"
    - pick: {function: random(), type: string, data: [p, q, r]}
    - few: {function: random(2), type: string, data: [a, b, c, d]}
    - all: {function: random(9), type: string, data: [a, b]}
    - every: {function: default(), type: float, data: [1.5, 2]}
    """
    plans = await plan(profile_with(goals, number=20))
    assert {p.variables["pick"] for p in plans} == {"p", "q", "r"}
    for p in plans:
        assert len(set(p.variables["few"])) == 2
        assert sorted(p.variables["all"]) == ["a", "b"]
        assert p.variables["every"] == [1.5, 2]
        assert p.goals[0].endswith("| 1.5, 2")


async def test_pairwise_covers_every_pair(profile_with: ProfileWith) -> None:
    goals = """\
    - "{{os}} {{browser}} {{lang}}"
    - os: {function: pairwise(), type: string, data: [linux, mac, windows]}
    - browser: {function: pairwise(), type: string, data: [firefox, chrome]}
    - lang: {function: pairwise(), type: string, data: [en, es, fr, de]}
    """
    plans = await plan(profile_with(goals, number="combinations(pairwise)"))
    rows = [(p.variables["os"], p.variables["browser"], p.variables["lang"]) for p in plans]
    assert len(rows) < 3 * 2 * 4
    for i, j in itertools.combinations(range(3), 2):
        seen = {(row[i], row[j]) for row in rows}
        assert len(seen) == len({r[i] for r in rows}) * len({r[j] for r in rows})
    half = await plan(profile_with(goals, number="combinations(0.5, pairwise)", name="half.yml"))
    assert len(half) == round(len(rows) * 0.5)


@pytest.mark.parametrize(
    ("number", "expected"),
    [
        ("all_combinations", 9),
        ("sample(0.2)", 2),
        ("combinations(0.5)", 4),
        ("combinations(1, forward)", 9),
    ],
)
async def test_conversation_numbers(profile_with: ProfileWith, number: str, expected: int) -> None:
    assert len(await plan(profile_with(TABLE2, number=number))) == expected


async def test_interaction_styles_and_random_steps(write: Write) -> None:
    path = write(
        """\
        user: {role: r, goals: [hi]}
        chatbot: {fallback: f}
        conversation:
          number: 30
          goal_style: {"random steps": 4}
          interaction_style:
            - random:
              - long phrases
              - all questions
              - change language: [italian, chinese]
        """
    )
    plans = await plan(path)
    options = ["long phrases", "all questions", {"change language": ["italian", "chinese"]}]
    for p in plans:
        assert 1 <= len(p.interaction_styles) <= 3
        assert all(style in options for style in p.interaction_styles)
        assert p.goal_style.steps is not None and 1 <= p.goal_style.steps <= 4
        assert p.goal_style.random_steps is None
    assert len({len(p.interaction_styles) for p in plans}) > 1
    assert len({p.goal_style.steps for p in plans}) > 1


async def test_numeric_ranges_follow_sensei(profile_with: ProfileWith) -> None:
    goals = """\
    - "{{stepped}} {{open}} {{floats}} {{spaced}}"
    - stepped: {function: default(), type: int, data: {min: 1, max: 6, step: 2}}
    - open: {function: default(), type: int, data: {min: 1, max: 4}}
    - floats: {function: default(), type: float, data: {min: 0, max: 1, step: 0.5}}
    - spaced: {function: default(), type: float, data: {min: 0, max: 1, linspace: 5}}
    """
    (p,) = await plan(profile_with(goals))
    assert p.variables["stepped"] == [1, 3, 5, 6]  # max is always added (SENSEI's rule)
    assert p.variables["open"] == [1, 2, 3]  # without step, max is left out
    assert p.variables["floats"] == [0.0, 0.5, 1.0]
    assert p.variables["spaced"] == [0.0, 0.25, 0.5, 0.75, 1.0]


async def test_date_generators(profile_with: ProfileWith) -> None:
    goals = """\
    - "{{weekly}} {{future}} {{any_day}} {{impossible}} {{given}}"
    - weekly:
        function: default()
        type: string
        data: {date: {range: {min: 01/01/2024, max: 20/01/2024, step: day(7)}}}
    - future: {function: default(), type: date, data: {date: {set: ">today(3)"}}}
    - any_day: {function: default(), type: string, data: {date: {random: 2, custom: [2024-05-01]}}}
    - impossible: {function: default(), type: string, data: {date: {fake: 2}}}
    - given: {function: default(), type: date, data: [2024-02-29, 31/12/2023]}
    """
    path = profile_with(goals)
    today = date(2025, 3, 1)
    (p,) = await plan(path, today=today)
    assert p.variables["weekly"] == ["01/01/2024", "08/01/2024", "15/01/2024", "22/01/2024"]
    future = [datetime.strptime(d, "%d/%m/%Y").date() for d in p.variables["future"]]
    assert len(future) == 3 and all(0 < (d - today).days <= 365 for d in future)
    assert len(p.variables["any_day"]) == 3 and p.variables["any_day"][-1] == "01/05/2024"
    for fake in p.variables["impossible"]:
        day, month, _ = (int(x) for x in fake.split("/"))
        assert day > 28 and month > 12
    assert p.variables["given"] == ["29/02/2024", "31/12/2023"]
    assert (await plan(path, today=today))[0].variables == p.variables


async def test_generator_functions_run_when_planning(
    profile_with: ProfileWith, tmp_path: Path
) -> None:
    (tmp_path / "things.yml").write_text("pizzas: [margarita, hawaiian]\n")
    (tmp_path / "gen.py").write_text(
        "import yaml\n"
        "def numbers(low, high, step=1):\n    return list(range(low, high, step))\n"
        "def from_file(path):\n    return yaml.safe_load(open(path))['pizzas']\n"
        "def broken():\n    raise RuntimeError('boom')\n"
        "def not_a_list():\n    return 42\n"
    )
    goals = """\
    - "{{n}} {{pizza}}"
    - n:
        function: forward()
        type: int
        data: {file: gen.py, function_name: numbers, args: [1, 6, {step: 2}]}
    - pizza:
        function: forward()
        type: string
        data: {file: gen.py, function_name: from_file, args: things.yml}
    """
    plans = await plan(profile_with(goals, number=3))
    assert [p.variables["n"] for p in plans] == [1, 3, 5]
    assert [p.variables["pizza"] for p in plans] == ["margarita", "hawaiian", "margarita"]
    for name, needle in [("broken", "RuntimeError: boom"), ("not_a_list", "returned int")]:
        data = f"{{file: gen.py, function_name: {name}}}"
        bad = profile_with(
            f'- "{{{{x}}}}"\n- x: {{function: random(), type: string, data: {data}}}',
            name=f"{name}.yml",
        )
        with pytest.raises(UserInputError) as caught:
            await plan(bad)
        (problem,) = caught.value.problems
        assert needle in problem.message and problem.key == "user.goals[1].x.data"
        assert problem.line == 9
    data = "{file: gen.py, function_name: from_file, args: things.yml}"
    wrong = profile_with(
        f'- "{{{{x}}}}"\n- x: {{function: random(), type: int, data: {data}}}', name="wrong.yml"
    )
    with pytest.raises(
        UserInputError, match="generated values: item 'margarita' is not a whole number"
    ):
        await plan(wrong)


ANY_GOALS = """\
- "{{size}} pizza and {{drink}}"
- size: {function: forward(), type: string, data: [small, big]}
- drink: {function: another(), type: string, data: [water, "any(3 soda drinks)"]}
"""


async def test_any_without_a_model_names_the_model_setting(profile_with: ProfileWith) -> None:
    with pytest.raises(UserInputError) as caught:
        await plan(profile_with(ANY_GOALS, number=2))
    (problem,) = caught.value.problems
    assert "--model" in problem.message and "any(3 soda drinks)" in problem.message
    assert problem.key == "user.goals[2].drink.data" and problem.line == 10


async def test_any_asks_the_model_once_per_item(profile_with: ProfileWith) -> None:
    seen: list[list[dict[str, str]]] = []

    def reply(messages: list[dict[str, str]]) -> Any:
        seen.append(messages)
        return ["cola", "water", "lemonade", "cola"]

    model = ScriptedModel(reply)
    plans = await plan(profile_with(ANY_GOALS, number=3), model=model)
    assert len(seen) == 1 and "3 soda drinks" in seen[0][-1]["content"]
    assert "water" in seen[0][-1]["content"]  # asked to leave out what is already there
    assert sorted(p.variables["drink"][0] for p in plans) == ["cola", "lemonade", "water"]


async def test_any_for_a_custom_type_keeps_matching_values(write: Write) -> None:
    write("name: code\nformat: '[A-Z]{3}'\ntype_description: an airport code\n", "types/code.yml")
    path = write(
        """\
        user:
          role: r
          goals:
            - "fly to {{code}}"
            - code: {function: another(), type: code, data: [MAD, "any(airports)"]}
        chatbot: {fallback: f}
        conversation: {number: 4, goal_style: {steps: 1}}
        """
    )
    model = ScriptedModel(['```json\n["JFK", "not a code", "LHR"]\n```'])
    plans = await plan(path, model=model)
    assert sorted({p.variables["code"][0] for p in plans}) == ["JFK", "LHR", "MAD"]
    request = model.provider.requests[0][-1]["content"]  # type: ignore[attr-defined]
    assert "an airport code" in request and "[A-Z]{3}" in request


def test_model_replies_are_read_leniently() -> None:
    assert parse_value_list('["a", " b ", ""]') == ["a", "b"]
    assert parse_value_list('{"answer": ["x", "y"]}') == ["x", "y"]
    assert parse_value_list("- one\n* two\n3. three\n\n") == ["one", "two", "three"]


async def test_every_placeholder_is_filled(profile_with: ProfileWith) -> None:
    plans = await plan(profile_with(TABLE2, number=4))
    assert not any(re.search(r"\{\{", goal) for p in plans for goal in p.goals)


ONE_OR_MORE = """\
- "{{a}} {{b}} {{c}} {{d}} {{e}}"
- a:
    function: random(2)
    type: string
    data: [only]
- b:
    function: default()
    type: string
    data: [only]
- c:
    function: another(2)
    type: string
    data: [x, y, z]
- d:
    function: random(2)
    type: string
    data: [x, y, z]
- e:
    function: forward()
    type: string
    data: [x, y]
"""


async def test_picks_are_recorded_as_sensei_1_1_5_records_them(
    profile_with: ProfileWith,
) -> None:
    # ask_about_metadata: a one-element pick is stored alone, a longer one as a list;
    # default() wraps the whole data list, so it stays a list even of one value
    plans = await plan(profile_with(ONE_OR_MORE, number=3))
    assert [p.variables["a"] for p in plans] == ["only"] * 3
    assert [p.variables["b"] for p in plans] == [["only"]] * 3
    groups = [p.variables["c"] for p in plans[:2]]  # another(2) over 3: a pair, then one
    assert isinstance(groups[0], list) and len(groups[0]) == 2 and isinstance(groups[1], str)
    assert all(isinstance(p.variables["d"], list) and len(p.variables["d"]) == 2 for p in plans)
    assert [p.variables["e"] for p in plans] == ["x", "y", "x"]
