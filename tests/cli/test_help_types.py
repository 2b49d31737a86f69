"""Every command's ``--help`` shows a repeatable parameter's type as its items' type,
repeated (``<path>…``), never Python's spelling (``<list[Path]>``, Typer 0.29's)."""

from __future__ import annotations

from collections.abc import Iterator

import typer.main
from typer.core import TyperGroup
from typer.testing import CliRunner

from sparring.cli import app, load_all


def _paths() -> Iterator[list[str]]:
    load_all()

    def walk(command: object, path: list[str]) -> Iterator[list[str]]:
        if isinstance(command, TyperGroup):
            for name, sub in command.commands.items():
                yield from walk(sub, [*path, name])
        else:
            yield path

    yield from walk(typer.main.get_group(app), [])


def test_no_help_spells_a_python_list_type() -> None:
    shown = {}
    for path in _paths():
        result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
        assert result.exit_code == 0, (path, result.output)
        shown[" ".join(path)] = result.output
    assert len(shown) > 20
    assert not [name for name, text in shown.items() if "<list[" in text]
    assert "<path>…" in shown["check"] and "<path>…" in shown["simulate"]
