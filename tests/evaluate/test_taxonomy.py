"""The error taxonomy as data: the shipped 26 types, per chatbot type, user files that
replace or extend it, and located errors for bad files."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from sparring.connectors import ChatbotInfo
from sparring.errors import ConfigError
from sparring.evaluate._taxonomy import load_taxonomy, match_names
from sparring.schemas import json_schema

OFFLINE_NAMES = ("ignore question", "redundancy", "lack of brevity")


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "taxonomy.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_the_default_has_higashinakas_17_and_chatcheckers_9_types() -> None:
    taxonomy = load_taxonomy()
    levels = [t.level for t in taxonomy.types]
    assert len(taxonomy.types) == 26
    assert (levels.count("utterance"), levels.count("response")) == (4, 5)
    assert (levels.count("context"), levels.count("society"), levels.count("task")) == (6, 2, 9)
    assert all(t.task_oriented_only == (t.level == "task") for t in taxonomy.types)
    assert all(name in taxonomy.names for name in OFFLINE_NAMES)
    assert all(t.name == t.name.lower() and t.description for t in taxonomy.types)


def test_task_oriented_and_unknown_bots_get_26_conversational_ones_17() -> None:
    taxonomy = load_taxonomy()
    assert len(taxonomy.types_for(ChatbotInfo(type="task-oriented"))) == 26
    assert len(taxonomy.types_for(ChatbotInfo())) == 26
    assert len(taxonomy.types_for(None)) == 26
    conversational = taxonomy.types_for(ChatbotInfo(type="conversational"))
    assert len(conversational) == 17
    assert "redundancy" not in [t.name for t in conversational]


def test_a_users_file_replaces_or_extends_the_default(tmp_path: Path) -> None:
    own = write(
        tmp_path,
        """\
        types:
          - name: wrong price
            level: task
            task_oriented_only: true
            description: The chatbot quotes a price not on the menu.
        """,
    )
    assert load_taxonomy(own).names == ["wrong price"]
    extended = write(
        tmp_path,
        """\
        extends: default
        types:
          - name: repetition
            level: context
            description: Says the same thing twice.
          - name: wrong price
            level: task
            description: The chatbot quotes a price not on the menu.
        """,
    )
    taxonomy = load_taxonomy(extended)
    assert len(taxonomy.types) == 27
    assert taxonomy.names[-1] == "wrong price"
    repetition = taxonomy.get("repetition")
    assert repetition is not None and repetition.description == "Says the same thing twice."


def test_an_unknown_key_names_file_line_and_key(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """\
        types:
          - name: repetition
            level: context
            description: Says the same thing twice.
            severity: high
        """,
    )
    with pytest.raises(ConfigError) as caught:
        load_taxonomy(path)
    [problem] = caught.value.problems
    assert (problem.file, problem.line, problem.key) == (str(path), 5, "types[0].severity")
    assert problem.message == "unknown key"
    assert f"{path}:5 [types[0].severity]: unknown key" in str(caught.value)


def test_bad_values_are_located(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """\
        types:
          - name: Repetition
            level: discourse
            description: Says the same thing twice.
          - name: other
            level: task
        """,
    )
    with pytest.raises(ConfigError) as caught:
        load_taxonomy(path)
    found = {(p.line, p.key) for p in caught.value.problems}
    assert found == {(2, "types[0].name"), (3, "types[0].level"), (5, "types[1].description")}


def test_duplicate_names_and_a_non_mapping_are_errors(tmp_path: Path) -> None:
    twice = write(
        tmp_path,
        """\
        types:
          - {name: a, level: task, description: x}
          - {name: a, level: task, description: y}
        """,
    )
    with pytest.raises(ConfigError, match="listed twice"):
        load_taxonomy(twice)
    with pytest.raises(ConfigError, match="expected a mapping"):
        load_taxonomy(write(tmp_path, "- a\n- b\n"))


def test_model_spellings_are_matched_onto_the_allowed_names() -> None:
    allowed = load_taxonomy().names
    written = [
        "Ignore Question",
        "self_contradiction",
        "Failure to recognise out-of-domain request",
    ]
    assert match_names([*written, "made up", "ignore question"], allowed) == [
        "ignore question",
        "self-contradiction",
        "failure to recognize out-of-domain request",
    ]


def test_the_taxonomy_schema_is_registered() -> None:
    schema = json_schema("taxonomy")
    assert "types" in schema["properties"]
    assert schema["$defs"]["ErrorType"]["additionalProperties"] is False
