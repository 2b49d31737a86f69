"""Tests for the shared YAML loader with line numbers (``sparring._yaml``)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError

from sparring._yaml import (
    LineMap,
    format_key,
    load_yaml_model,
    load_yaml_with_lines,
    validation_problems,
    yaml_error_problem,
)
from sparring.errors import ConfigError


class _Size(BaseModel):
    model_config = ConfigDict(extra="forbid")
    function: Literal["random", "another"]


class _Goal(BaseModel):
    model_config = ConfigDict(extra="forbid")
    size: _Size | int


class _User(BaseModel):
    model_config = ConfigDict(extra="forbid")
    goals: list[_Goal]
    name: str


class _Doc(BaseModel):
    model_config = ConfigDict(extra="forbid")
    user: _User
    temperature: float = 0.5


DOC = """\
# a comment
user:
  name: Ann
  goals:
    - size: 3
    - size:
        function: random
    - size:
        function: bogus
temperature: hot
colour: red
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "doc.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_load_returns_plain_data_and_lines(tmp_path: Path) -> None:
    data, lines = load_yaml_with_lines(_write(tmp_path, DOC))
    assert data["user"]["goals"][1] == {"size": {"function": "random"}}
    assert type(data["user"]) is dict and type(data["user"]["goals"]) is list
    assert lines.get(("user",)) == 2
    assert lines.get(("user", "goals", 2, "size", "function")) == 9
    assert lines.get(("temperature",)) == 10
    assert lines.get(("nope",)) is None


def test_scalars_are_plain_python_types(tmp_path: Path) -> None:
    data, _ = load_yaml_with_lines(
        _write(tmp_path, "a: 1.5\nb: &t true\nc: *t\nd: |\n  x\ne: yes\n")
    )
    assert type(data["a"]) is float and data["a"] == 1.5
    assert data["b"] is True and data["c"] is True
    assert type(data["d"]) is str and data["d"] == "x\n"
    assert data["e"] == "yes"  # YAML 1.2


def test_empty_file_is_none(tmp_path: Path) -> None:
    data, lines = load_yaml_with_lines(_write(tmp_path, "# nothing\n"))
    assert data is None
    assert lines.get(()) == 1


def test_validation_problems_name_line_and_key(tmp_path: Path) -> None:
    path = _write(tmp_path, DOC)
    data, lines = load_yaml_with_lines(path)
    with pytest.raises(ValidationError) as info:
        _Doc.model_validate(data)
    problems = {p.key: p for p in validation_problems(path, info.value, lines)}
    assert problems["user.goals[2].size.function"].line == 9
    assert problems["temperature"].line == 10
    assert problems["colour"].line == 11
    assert problems["colour"].message == "unknown key"
    assert all(p.file == str(path) for p in problems.values())
    # union member names inserted by pydantic never reach the key
    assert set(problems) == {
        "user.goals[2].size.function",
        "user.goals[2].size",
        "temperature",
        "colour",
    }
    assert problems["user.goals[2].size"].line == 8


def test_missing_key_is_reported_at_parent_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "temperature: 1\nuser:\n  goals: []\n")
    data, lines = load_yaml_with_lines(path)
    with pytest.raises(ValidationError) as info:
        _Doc.model_validate(data)
    [problem] = validation_problems(path, info.value, lines)
    assert problem.key == "user.name"
    assert problem.line == 2
    assert problem.message == "required key is missing"
    assert str(problem) == f"{path}:2 [user.name]: required key is missing"


def test_syntax_error_raises_config_error_with_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "a: 1\nb: [1, 2\nc: 3\n")
    with pytest.raises(ConfigError) as info:
        load_yaml_with_lines(path)
    [problem] = info.value.problems
    assert problem.file == str(path)
    assert problem.line is not None and problem.line >= 2
    assert "invalid YAML" in problem.message


def test_duplicate_key_is_an_error(tmp_path: Path) -> None:
    path = _write(tmp_path, "a: 1\nb: 2\na: 3\n")
    with pytest.raises(ConfigError) as info:
        load_yaml_with_lines(path)
    assert info.value.problems[0].line == 3
    assert "duplicate" in info.value.problems[0].message


def test_unreadable_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_yaml_with_lines(tmp_path / "absent.yaml")
    assert "cannot read" in info.value.problems[0].message


def test_yaml_error_problem_without_mark() -> None:
    from ruamel.yaml.error import YAMLError

    problem = yaml_error_problem("x.yaml", YAMLError("boom"))
    assert problem.line is None and "boom" in problem.message


def test_format_key_and_linemap_resolve() -> None:
    assert format_key(("user", "goals", 2, "size")) == "user.goals[2].size"
    assert format_key((0, "a")) == "[0].a"
    lines = LineMap({(): 1, ("a",): 2, ("a", "b"): 3})
    assert lines.resolve(("a", "function-after[x]", "b")) == (("a", "b"), 3)
    assert lines.resolve(("a", "Model", "d")) == (("a",), 2)
    assert lines.resolve(("a", "Model", "d"), missing=True) == (("a", "d"), 2)
    assert ("a",) in lines and len(lines) == 3


@pytest.mark.parametrize(
    "text",
    ['- name: a\n  oracle: True\n  yields: f"price: {price}"\n',
     'name: a\noracle: True\nyields: f"The price is wrong: {price} given"\n'],
)  # fmt: skip
def test_an_unquoted_value_with_a_colon_says_to_quote_it(tmp_path: Path, text: str) -> None:
    path = tmp_path / "rule.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_yaml_with_lines(path)
    [problem] = caught.value.problems
    assert problem.line == 3
    assert "the value of `yields` contains" in problem.message
    assert "quote the whole value" in problem.message and "`|` block" in problem.message


def test_load_yaml_model_locates_errors_and_takes_a_short_form(tmp_path: Path) -> None:
    class Names(BaseModel):
        model_config = ConfigDict(extra="forbid")
        names: list[str]

    def short(data: object) -> object:
        return {"names": data} if isinstance(data, list) else data

    good = tmp_path / "good.yaml"
    good.write_text("- ada\n- bob\n")
    assert load_yaml_model(good, Names, coerce=short).names == ["ada", "bob"]
    bad = tmp_path / "bad.yaml"
    bad.write_text("names: [ada]\nnmaes: [bob]\n")
    with pytest.raises(ConfigError) as raised:
        load_yaml_model(bad, Names)
    assert [(p.line, p.key, p.message) for p in raised.value.problems] == [
        (2, "nmaes", "unknown key")
    ]
    scalar = tmp_path / "scalar.yaml"
    scalar.write_text("just text\n")
    with pytest.raises(ConfigError, match="expected a list of names"):
        load_yaml_model(scalar, Names, "a list of names", short)
