"""``sparring validate`` tells profiles, rule files and chatbot.yaml apart and checks each."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from sparring.cli import app

runner = CliRunner()
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_examples_validate_by_kind() -> None:
    result = runner.invoke(
        app,
        [
            "validate",
            str(EXAMPLES / "alice" / "profiles"),
            str(EXAMPLES / "alice" / "rules"),
            str(EXAMPLES / "alice" / "chatbot.yaml"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "OK rules" in result.output and "OK chatbot" in result.output
    assert "OK profile" in result.output


def test_each_format_reports_its_own_problems(tmp_path: Path) -> None:
    (tmp_path / "bot.yaml").write_text("connector: rasa\nparams:\n  urll: x\n")
    (tmp_path / "rule.yaml").write_text("name: x\noracle: foo(\n")
    (tmp_path / "other.yaml").write_text("version: '3.1'\nnlu: []\n")
    result = runner.invoke(app, ["validate", str(tmp_path)])
    assert result.exit_code == 2
    out = result.output.replace("\\n", "")
    assert "bot.yaml:3 [params.urll]" in out
    assert "rule.yaml:2 [oracle]" in out
    assert (
        "other.yaml" in out
        and "not a profile, rule file, persona, probe suite or chatbot.yaml" in out
    )


def test_unknown_keys_say_what_was_meant(tmp_path: Path) -> None:
    (tmp_path / "bot.yaml").write_text("connector: rasa\nparams:\n  timout: 3\ninfo:\n  nmae: x\n")
    (tmp_path / "rule.yaml").write_text("name: x\nactiv: false\noracle: True\n")
    out = " ".join(runner.invoke(app, ["validate", str(tmp_path)]).output.split())
    assert "[params.timout]: unknown key 'timout' (did you mean 'timeout'?)" in out
    assert "[info.nmae]: unknown key 'nmae' (did you mean 'name'?)" in out
    assert "[activ]: unknown key 'activ' (did you mean 'active'?)" in out


def test_a_python_connector_whose_module_does_not_import_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "bot.yaml").write_text("connector: python\nparams:\n  target: nosuchmod:Bot\n")
    result = runner.invoke(app, ["validate", str(tmp_path / "bot.yaml")])
    assert result.exit_code == 2
    assert "cannot import nosuchmod:Bot" in " ".join(result.output.split())


def test_rule_variables_are_checked_against_the_profiles_given(tmp_path: Path) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text("- name: a\n  when: reslt is not None\n  oracle: True\n")
    profiles = EXAMPLES / "alice" / "profiles" / "arithmetic.yaml"
    result = runner.invoke(app, ["validate", str(profiles), str(rules)])
    assert result.exit_code == 2
    out = " ".join(result.output.split())
    assert "unknown variable 'reslt': no profile given defines it" in out
    assert "did you mean 'result'?" in out
    alone = runner.invoke(app, ["validate", str(rules)])  # without profiles: nothing to compare
    assert alone.exit_code == 0, alone.output


def test_validate_help_shows_the_key_in_brackets() -> None:
    result = runner.invoke(app, ["validate", "--help"])
    assert "[key]" in result.output
