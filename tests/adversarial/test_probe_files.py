"""Probe files: the built-in suites load, bad files are located errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from sparring.adversarial import builtin_suites, load_probe_suite, resolve_suites
from sparring.errors import ConfigError, UnknownName

FIXTURES = Path(__file__).parent / "probe_fixtures"


def test_every_builtin_suite_loads_under_its_file_name_and_covers_each_category() -> None:
    suites = resolve_suites([])
    assert [suite.suite for suite, _ in suites] == list(builtin_suites())
    categories = {probe.category.value for suite, _ in suites for probe in suite.probes}
    assert categories == {
        "injection",
        "system_prompt_leak",
        "jailbreak",
        "pii_echo",
        "encoded",
        "out_of_domain",
        "impossible",
        "constraint_change",
    }


def test_a_bad_probe_file_names_file_line_and_key() -> None:
    with pytest.raises(ConfigError) as caught:
        load_probe_suite(FIXTURES / "bad.yaml")
    found = {(Path(p.file).name, p.line, p.key): p.message for p in caught.value.problems}
    assert found[("bad.yaml", 9, "probes[0].oracels")] == "unknown key"
    assert found[("bad.yaml", 4, "probes[0].oracles")] == "required key is missing"
    message = found[("bad.yaml", 12, "probes[1]")]
    assert "canary 'HELLO' is written in the probe's own turns" in message


def test_an_oracle_without_what_it_needs_is_located(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(
        "suite: s\nprobes:\n  - id: a\n    title: t\n    category: injection\n"
        "    turns: [hi]\n    oracles:\n      - kind: must_contain\n      - kind: nope\n"
    )
    with pytest.raises(ConfigError) as caught:
        load_probe_suite(path)
    found = {(p.line, p.key): p.message for p in caught.value.problems}
    assert "`must_contain` needs `patterns`" in found[(8, "probes[0].oracles[0]")]
    assert "no_canary" in found[(9, "probes[0].oracles[1].kind")]


def test_an_unknown_suite_name_lists_the_builtin_ones() -> None:
    with pytest.raises(UnknownName) as caught:
        resolve_suites(["injektion"])
    assert "injection" in str(caught.value)


def test_a_user_suite_for_the_pizzeria_loads() -> None:
    suites = resolve_suites([FIXTURES / "pizzeria-constraints.yaml"])
    ((suite, path),) = suites
    assert suite.suite == "pizzeria-constraints" and path.name == "pizzeria-constraints.yaml"
    assert [p.id for p in suite.probes] == ["size", "pizza", "drink"]


def test_the_probe_file_example_in_the_docs_is_valid(tmp_path: Path) -> None:
    import re

    doc = Path(__file__).resolve().parents[2] / "docs" / "adversarial-probes.md"
    blocks = re.findall(r"```yaml\n(.*?)```", doc.read_text(encoding="utf-8"), re.DOTALL)
    assert blocks
    for number, text in enumerate(blocks):
        path = tmp_path / f"example-{number}.yaml"
        path.write_text(text, encoding="utf-8")
        suite = load_probe_suite(path)
        assert suite.probes
