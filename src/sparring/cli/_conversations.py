"""CLI commands that move conversations between formats: ``import-sensei``,
``export-sensei``, ``import-chatchecker``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sparring._terminal import escape
from sparring.cli._app import app, console, report_user_error
from sparring.cli._options import OPTIONS, SettingsValues, settings_options
from sparring.conversations import export_sensei_run, render_summary
from sparring.errors import ConfigError
from sparring.importers import (
    IMPORT_CHATCHECKER,
    IMPORT_SENSEI,
    ImportChatCheckerSettings,
    ImportSenseiSettings,
)
from sparring.jobs import check_output_paths
from sparring.outcome import input_exit_code
from sparring.runner import start

OutOption = Annotated[Path, typer.Option("--out", help="Run directory to create.")]


@app.command("import-sensei")
@settings_options(ImportSenseiSettings, arguments=("source",))
def import_sensei_command(values: SettingsValues, out: OutOption) -> None:
    """Import SENSEI conversation files into a new sparring run directory.

    Every file of a folder that does not read is listed (file, line, key) and the others
    are imported; the exit code is then 2."""
    check_output_paths(folders={"--out": out})
    settings = ImportSenseiSettings.from_values(values, OPTIONS)
    result = start(IMPORT_SENSEI, settings, out).result
    render_summary(result.summary, console)
    console.print(f"Imported {result.imported} conversations into [bold]{out}[/]")
    for path in result.skipped:
        console.print(f"skipped (not a conversation): {escape(str(path))}", soft_wrap=True)
    if result.skipped:
        console.print(
            f"Skipped {len(result.skipped)} YAML/JSON files that are not conversations "
            "(reports, profiles, rules)."
        )
    if result.problems:
        report_user_error(ConfigError(list(result.problems)))
        files = len({problem.file for problem in result.problems})
        console.print(f"[red]{files} files were not imported (listed above)[/]")
    raise typer.Exit(input_exit_code(result.problems))


@app.command("import-chatchecker")
@settings_options(ImportChatCheckerSettings, arguments=("source",))
def import_chatchecker_command(values: SettingsValues, out: OutOption) -> None:
    """Import ChatChecker dialogue files (dialogue_N.yaml) into a new sparring run directory."""
    check_output_paths(folders={"--out": out})
    settings = ImportChatCheckerSettings.from_values(values, OPTIONS)
    result = start(IMPORT_CHATCHECKER, settings, out).result
    render_summary(result.summary, console)
    console.print(f"Imported {result.imported} conversations into [bold]{out}[/]")


@app.command("export-sensei")
def export_sensei_command(
    run_dir: Annotated[
        Path, typer.Argument(help="Run directory (or folder/file of records) to export.")
    ],
    out: Annotated[Path, typer.Option("--out", help="Folder for the SENSEI YAML files.")],
) -> None:
    """Export conversations as SENSEI conversation files (three YAML documents each)."""
    check_output_paths(folders={"--out": out})
    written = export_sensei_run(run_dir, out)
    console.print(f"Exported {len(written)} conversations to [bold]{out}[/]")
