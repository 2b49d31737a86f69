"""Every Rasa operator at every location of real projects: the example pizzeria (Rasa
3.x, ``examples/pizzeria/rasa``) and SENSEI's veterinary bot (Rasa 1.x Markdown,
``../shared/data/rasa-bots/veterinary/bot``). Each mutant's YAML still parses, each
changes one thing, the project is never written, and a mutant rebuilt from its id is the
same mutant."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from sparring.mutation import OPERATORS, Location, MutationOperator, mutant_id, operators_for
from sparring.mutation._operators import rasa

PIZZERIA = Path(__file__).resolve().parents[2] / "examples" / "pizzeria" / "rasa"
NAMES = sorted(cls.name for cls in rasa.RASA_OPERATORS)


@pytest.fixture
def pizzeria() -> Path:
    if not (PIZZERIA / "domain.yml").is_file():
        pytest.skip("examples/pizzeria/rasa is not present")
    return PIZZERIA


@pytest.fixture
def veterinary(shared_data: Path) -> Path:
    root = shared_data / "rasa-bots" / "veterinary" / "bot"
    if not (root / "domain.yml").is_file():
        pytest.skip("the veterinary bot is not present")
    return root


def _snapshot(root: Path) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.suffix in (".yml", ".yaml", ".md")
    }


def _hunks(old: str, new: str) -> int:
    diff = difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="")
    return sum(1 for line in diff if line.startswith("@@"))


def _swapped(operator: MutationOperator, location: Location, old: str, new: str) -> None:
    """The two responses of a swap exchanged their bodies; nothing else changed."""
    first, second = location.key.removeprefix("response:").split("<>")
    before, after = YAML(typ="safe").load(old), YAML(typ="safe").load(new)
    section = "responses" if "responses" in before else "templates"
    assert after[section][first] == before[section][second]
    assert after[section][second] == before[section][first]
    for name in before[section]:
        if name not in (first, second):
            assert after[section][name] == before[section][name]
    assert {k: v for k, v in after.items() if k != section} == {
        k: v for k, v in before.items() if k != section
    }


def _check_every_mutant(root: Path) -> dict[str, int]:
    original = _snapshot(root)
    counts: dict[str, int] = {}
    for name in NAMES:
        operator = OPERATORS.get(name)
        locations = operator.locations(root)
        counts[name] = len(locations)
        assert len({loc.tag() for loc in locations}) == len(locations), "keys are unique"
        for location in locations:
            files, description = operator.apply(root, location)
            assert files and description
            for relative, new in files.items():
                assert new != original[relative]
                if relative.endswith((".yml", ".yaml")):
                    YAML(typ="safe").load(new)  # still valid YAML
                if name == "rasa.swap_responses":
                    _swapped(operator, location, original[relative], new)
                else:
                    assert _hunks(original[relative], new) == 1, (location, relative)
    assert _snapshot(root) == original, "operators never write the project"
    return counts


def test_every_mutant_of_the_pizzeria(pizzeria: Path) -> None:
    counts = _check_every_mutant(pizzeria)
    assert all(counts[name] > 0 for name in NAMES), counts


def test_every_mutant_of_the_veterinary_bot(veterinary: Path) -> None:
    counts = _check_every_mutant(veterinary)
    assert counts["rasa.change_regex"] == 0  # it has no regex
    assert all(counts[name] > 0 for name in NAMES if name != "rasa.change_regex"), counts


@pytest.mark.parametrize("name", NAMES)
def test_a_mutant_is_rebuilt_from_its_id(pizzeria: Path, name: str) -> None:
    operator = OPERATORS.get(name)
    locations = operator.locations(pizzeria)
    assert operator.locations(pizzeria) == locations  # stable order
    location = locations[len(locations) // 2]
    first = operator.apply(pizzeria, location)
    identifier = mutant_id(name, location)
    operator_name, tag = identifier.split("@", 1)
    file, key = tag.split("#", 1)
    rebuilt = OPERATORS.get(operator_name).apply(pizzeria, Location(file=file, key=key))
    assert rebuilt == first


def test_the_rasa_operators_are_registered() -> None:
    assert [op.name for op in operators_for("rasa")] == NAMES
    assert len(NAMES) == 9
    assert all(OPERATORS.get(name).kind == "rasa" for name in NAMES)
    assert all(OPERATORS.get(name).description for name in NAMES)
