"""A mistyped command name is answered with the nearest commands (exit 2), at the top level
and in a command group; a name near nothing gets Click's plain refusal."""

from __future__ import annotations

from typer.testing import CliRunner

from sparring.cli import app


def _error(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 2, result.output
    return " ".join(result.stderr.replace("│", " ").split())


def test_a_mistyped_command_is_offered_the_nearest_ones() -> None:
    assert "No such command 'simulat'. Did you mean 'simulate'" in _error("simulat")
    assert "No such command 'probes'. Did you mean 'probe'?" in _error("adversarial", "probes")


def test_a_name_near_no_command_is_refused_without_a_guess() -> None:
    said = _error("xyzzy")
    assert "No such command 'xyzzy'." in said and "Did you mean" not in said
