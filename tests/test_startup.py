"""Start-up: ``import sparring.cli``, ``sparring --help`` and ``sparring validate`` load no
heavy library (issue 25); the lazy command table matches the commands registered.

Timings live in ``benchmarks/bench_startup.py``; these tests check what is imported, which
does not depend on the machine's load."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from sparring.cli import COMMANDS, HEAVY_MODULES, app, load_all

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "pizzeria"
_REPORT = (
    "import atexit, sys\n"
    "atexit.register(lambda: print('LOADED', ' '.join(sorted("
    "{m.split('.')[0] for m in sys.modules})), file=sys.stderr))\n"
)


def loaded_after(code: str, *argv: str) -> tuple[set[str], subprocess.CompletedProcess[str]]:
    """Run ``code`` in a fresh interpreter (``sys.argv[1:] = argv``); the top-level
    packages in ``sys.modules`` when it exits, and the finished process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "120"}
    done = subprocess.run(
        [sys.executable, "-c", _REPORT + f"sys.argv[1:] = {list(argv)!r}\n" + code],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=120,
    )
    [line] = [x for x in done.stderr.splitlines() if x.startswith("LOADED ")]
    return set(line.split()[1:]), done


_RUN_CLI = "import runpy; runpy.run_module('sparring')"


def test_importing_the_cli_loads_no_heavy_library() -> None:
    loaded, done = loaded_after("import sparring.cli")
    assert done.returncode == 0, done.stderr
    assert loaded & HEAVY_MODULES == set()


def test_help_lists_every_command_without_loading_a_job() -> None:
    loaded, done = loaded_after(_RUN_CLI, "--help")
    assert done.returncode == 0, done.stderr
    assert loaded & HEAVY_MODULES == set()
    for entry in COMMANDS:
        assert f" {entry.name} " in done.stdout


@pytest.mark.parametrize(
    "files",
    [
        ["profiles/sizes.yaml"],
        ["rules/few_fallbacks.yaml", "rules/unique_order_ids.yaml", "chatbot.yaml"],
    ],
)
def test_validate_loads_no_heavy_library(files: list[str]) -> None:
    loaded, done = loaded_after(_RUN_CLI, "validate", *(str(EXAMPLE / f) for f in files))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("OK ") == len(files)
    assert loaded & HEAVY_MODULES == set()


def test_a_command_still_runs_and_shows_its_own_help() -> None:
    result = CliRunner().invoke(app, ["schema", "--help"], env={"COLUMNS": "120"})
    assert result.exit_code == 0 and "JSON Schema" in result.stdout
    unknown = CliRunner().invoke(app, ["simulat"])
    assert unknown.exit_code == 2 and "No such command" in unknown.output


def _first_paragraph(text: str) -> str:
    return " ".join(text.strip().split("\n\n")[0].split())


def test_the_command_table_matches_the_registered_commands() -> None:
    """Every registered top-level command has a ``COMMANDS`` entry whose line of help is
    the command's own (what ``--help`` showed before it was lazy), and no entry names a
    command that does not exist."""
    load_all()
    group = typer.main.get_group(app)
    registered = {name: command for name, command in group.commands.items() if not command.hidden}
    assert sorted(registered) == sorted(entry.name for entry in COMMANDS)
    for entry in COMMANDS:
        command = registered[entry.name]
        assert entry.summary == _first_paragraph(command.short_help or command.help or ""), (
            entry.name
        )
