"""Property-based fuzzing of the YAML loaders (issue 26): whatever the bytes, a loader
returns data or raises ``ConfigError`` (a located user error) — never another exception,
never a hang or a blow-up (``sparring._yaml``'s limits)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sparring._yaml import load_yaml_with_lines
from sparring.check import load_rules
from sparring.errors import ConfigError, UserInputError
from sparring.profiles import check_profile

_PIECES = st.sampled_from(
    ["a: ", "- ", "[", "]", "{", "}", ", ", ": ", "\n", "  ", "&x ", "*x", "&y ", "*y",
     "<<: *x", "!!str ", "!!binary ", "? ", "|\n", ">\n", "'", '"', "#", "---\n", "...\n",
     "%YAML 1.2\n", "\t", "\x00", "\x1b", "\ufeff", "é", "1e9", "null", "yes", "~"]
)  # fmt: skip
YAMLISH = st.lists(st.one_of(_PIECES, st.text(max_size=8)), max_size=60).map("".join)
"""Texts built from YAML's structural pieces (anchors, aliases, merges, flow and block
collections, tags, directives, control characters) and random text."""

FUZZ = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@FUZZ
@given(text=st.one_of(YAMLISH, st.text(max_size=200)))
def test_the_yaml_entry_point_returns_data_or_a_located_error(tmp_path: Path, text: str) -> None:
    path = tmp_path / "fuzz.yaml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        load_yaml_with_lines(path)
    except ConfigError as exc:
        assert exc.problems and all(p.file == str(path) for p in exc.problems)


@FUZZ
@given(text=YAMLISH)
def test_the_profile_and_rule_loaders_never_crash(tmp_path: Path, text: str) -> None:
    path = tmp_path / "fuzz.yaml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    check = check_profile(path)  # reports, never raises
    assert check.profile is not None or check.errors
    try:
        load_rules([path])
    except UserInputError as exc:
        assert exc.problems


@pytest.mark.parametrize("depth", [50, 99])
def test_nesting_within_the_limit_loads(tmp_path: Path, depth: int) -> None:
    path = tmp_path / "deep.yaml"
    path.write_text("a: " + "[" * depth + "1" + "]" * depth + "\n", encoding="utf-8")
    data, _ = load_yaml_with_lines(path)
    data = data["a"]
    for _ in range(depth):
        data = data[0]
    assert data == 1
