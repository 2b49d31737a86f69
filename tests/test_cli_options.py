"""``cli._options.settings_options``: a command's options come from its settings model —
name, type, default, bounds and help declared once, on the model."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from pydantic import Field
from typer.testing import CliRunner

from sparring.cli._options import SettingsValues, settings_options
from sparring.errors import ConfigError
from sparring.jobs import JobSettings


class Settings(JobSettings):
    chatbot: Path = Field(description="The chatbot.yaml.")
    suites: list[str] = Field(default_factory=list, description="Suites to run.")
    concurrency: int = Field(4, ge=1, le=9, description="Probes at once.")
    probe: bool = Field(True, description="Check the bot first.")


seen: list[Settings] = []
app = typer.Typer()


@app.command()
@settings_options(Settings, flags={"chatbot": ("--chatbot", "-c")})
def run(values: SettingsValues, verbose: bool = False) -> None:
    seen.append(Settings.from_values(values, "options"))


@app.callback()
def _root() -> None:
    pass


def test_options_carry_the_models_help_default_and_bounds() -> None:
    result = CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    for text in ("--chatbot", "-c", "The chatbot.yaml.", "--suites", "--concurrency",
                 "[default: 4]", "1<=x<=9", "--probe", "--no-probe", "--verbose"):  # fmt: skip
        assert text in result.output, text


def test_given_values_reach_the_model_and_omitted_ones_keep_its_defaults() -> None:
    seen.clear()
    argv = ["run", "-c", "bot.yaml", "--suites", "a", "--suites", "b", "--no-probe"]
    assert CliRunner().invoke(app, argv).exit_code == 0
    assert seen == [Settings(chatbot=Path("bot.yaml"), suites=["a", "b"], probe=False)]


def test_bounds_are_checked_by_typer_and_a_missing_field_by_the_model() -> None:
    assert CliRunner().invoke(app, ["run", "-c", "b.yaml", "--concurrency", "0"]).exit_code == 2
    result = CliRunner().invoke(app, ["run"])
    assert isinstance(result.exception, ConfigError)
    [problem] = result.exception.problems
    assert (problem.file, problem.key) == ("options", "chatbot")
    with pytest.raises(ConfigError):
        Settings.from_values({"chatbot": "x", "concurrency": 10})
