"""``cli._options.settings_options``: a command's options come from its settings model —
name, type, default, bounds and help declared once, on the model."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from pydantic import Field
from typer.testing import CliRunner

from sparring.cli import app as sparring
from sparring.cli._options import OPTIONS, SettingsValues, settings_options
from sparring.errors import ConfigError, Problem, UserInputError
from sparring.jobs import JobSettings


class Settings(JobSettings):
    seeds: list[Path] = Field(default_factory=list, description="Seed files.")
    chatbot: Path = Field(description="The chatbot.yaml.")
    suites: list[str] = Field(default_factory=list, description="Suites to run.")
    concurrency: int = Field(4, ge=1, le=9, description="Probes at once.")
    probe: bool = Field(True, description="Check the bot first.")
    cache: bool = Field(False, description="Cache replies.")
    ratings: bool | None = Field(None, description="Rate (default: with a model).")


seen: list[Settings] = []
app = typer.Typer()


@app.command()
@settings_options(
    Settings,
    arguments=("seeds",),
    flags={"chatbot": ("--chatbot", "-c"), "cache": ("--cache",)},
    required=("chatbot",),
)
def run(values: SettingsValues, verbose: bool = False) -> None:
    seen.append(Settings.from_values(values, OPTIONS))


@app.callback()
def _root() -> None:
    pass


def test_options_carry_the_models_help_default_and_bounds() -> None:
    result = CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    for text in ("SEEDS", "Seed files.", "--chatbot", "-c", "The chatbot.yaml. [required]",
                 "--suites", "--concurrency", "[default: 4]", "1<=x<=9", "--probe",
                 "--no-probe", "[default: --probe]", "--ratings", "--no-ratings", "--cache",
                 "Cache replies.", "--verbose"):  # fmt: skip
        assert text in result.output, text
    assert "--no-cache" not in result.output


def test_flags_show_as_flags_in_the_help_of_every_command() -> None:
    """A flag takes no value: no ``<bool>`` beside it (Typer 0.29 prints one, even for
    ``--help``), in ``sparring simulate --help`` as a person reads it."""
    result = CliRunner().invoke(sparring, ["simulate", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    lines = {line.split()[1]: line for line in result.output.splitlines() if "│ --" in line}
    for flag in ("--probe", "--template-check", "--cache", "--help"):
        assert "<" not in lines[flag], lines[flag]
    assert "<int range>" in lines["--concurrency"] and "<path>" in lines["--chatbot"]


def test_given_values_reach_the_model_and_omitted_ones_keep_its_defaults() -> None:
    seen.clear()
    argv = ["run", "s.json", "-c", "bot.yaml", "--suites", "a", "--suites", "b", "--no-probe"]
    assert CliRunner().invoke(app, argv).exit_code == 0
    assert CliRunner().invoke(app, ["run", "-c", "bot.yaml", "--cache", "--ratings"]).exit_code == 0
    assert seen == [
        Settings(seeds=[Path("s.json")], chatbot=Path("bot.yaml"), suites=["a", "b"], probe=False),
        Settings(chatbot=Path("bot.yaml"), cache=True, ratings=True),
    ]


def test_bounds_are_checked_by_typer_and_a_missing_field_by_the_model() -> None:
    assert CliRunner().invoke(app, ["run", "-c", "b.yaml", "--concurrency", "0"]).exit_code == 2
    result = CliRunner().invoke(app, ["run"])
    assert isinstance(result.exception, ConfigError)
    [problem] = result.exception.problems
    assert str(problem) == "--chatbot is required: the chatbot.yaml."
    with pytest.raises(ConfigError):
        Settings.from_values({"chatbot": "x", "concurrency": 10})


def test_the_models_other_errors_name_the_option_as_typed() -> None:
    """An open bound (``gt``) is the model's to check: the error names ``--seed``."""

    @app.command("strict")
    @settings_options(Strict, flags={"seed": ("--seed", "-s")})
    def strict(values: SettingsValues) -> None:
        Strict.from_values(values, OPTIONS)

    result = CliRunner().invoke(app, ["strict", "-s", "-1"])
    assert isinstance(result.exception, ConfigError)
    [problem] = result.exception.problems
    assert str(problem) == "--seed: Input should be greater than 0"


class Strict(JobSettings):
    seed: int = Field(1, gt=0, description="Seed.")


def test_a_jobs_error_at_a_setting_names_the_option_and_a_files_stays_in_its_file() -> None:
    """``evaluate --detector bogus``: the job locates the unknown name at the setting
    (``UnknownName.at("", None, "detectors")``); the command says it as the option. A
    problem in a user's file keeps its file, line and key."""
    in_file = Problem("rules.yaml", 3, "suites", "not a list")

    @app.command("job")
    @settings_options(Settings, flags={"chatbot": ("--chatbot", "-c")})
    def job(values: SettingsValues) -> None:
        raise UserInputError([Problem("", None, "suites.0", "unknown suite 'x'"), in_file])

    result = CliRunner().invoke(app, ["job", "-c", "b.yaml", "--suites", "x"])
    assert isinstance(result.exception, UserInputError)
    assert [str(p) for p in result.exception.problems] == [
        "--suites [0]: unknown suite 'x'",
        "rules.yaml:3 [suites]: not a list",
    ]
    assert str(result.exception).startswith("--suites [0]: unknown suite 'x'")
