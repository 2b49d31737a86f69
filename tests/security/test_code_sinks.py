"""Every place sparring runs a user's code asks the execution policy itself (issue 32,
attacked again by an outsider): importing a Python file or module, starting a process.

The loaders already refuse the features they know (the python connector, generator
functions, rule ``functions:``), but a job found another road: ``mutate`` with
``kind: rasa`` imports the project's Rasa helper, a Python file, and starts Rasa's
processes — no loader asked. A file can be a valid profile and valid Python at once (each
``key: value`` line a Python annotation, evaluated at import), so the dashboard stored
it; with a second profile that also reads as Rasa Markdown NLU data (``## synonym:`` is a
YAML comment), the job imported the helper as the server's user. Each test runs the sink
with a marker the code would create, under the dashboard's policy (refused, no marker)
and, where cheap, without it (the control: the code runs)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from sparring._policy import ExecutionPolicy, install_policy, scoped
from sparring.errors import ConfigError

SERVER = ExecutionPolicy(run_code=False)


def _polyglot(marker: Path) -> str:
    """A valid SENSEI profile that is also Python creating ``marker`` when imported."""
    return (
        f'test_name: __import__("pathlib").Path({str(marker)!r}).touch() or "t"\n'
        'llm: {"model": "gpt-4o-mini"}\n'
        'user: {"language": "English", "role": "a customer", '
        '"context": [{"personality": "impatient"}], "goals": ["order a pizza"]}\n'
        'chatbot: {"is_starter": False, "fallback": "Sorry"}\n'
        'conversation: {"number": 1, "goal_style": {"steps": 2}, '
        '"interaction_style": ["single question"]}\n'
    )


NLU_PROFILE = """\
## synonym:large
test_name: |-
  - big
  - huge
llm: {"model": "gpt-4o-mini"}
user: {"language": "English", "role": "a customer", "context": [{"personality": "impatient"}], \
"goals": ["order a pizza"]}
chatbot: {"is_starter": False, "fallback": "Sorry"}
conversation: {"number": 1, "goal_style": {"steps": 2}, "interaction_style": ["single question"]}
"""
"""A valid profile that Rasa's Markdown NLU reader also reads: a synonym with two values."""


def test_the_polyglot_is_a_valid_profile_and_python(tmp_path: Path) -> None:
    """The premise: the dashboard would store both files as profiles."""
    from sparring.validation import validate_file

    marker = tmp_path / "ran"
    (tmp_path / "rasa_bot.py").write_text(_polyglot(marker))
    (tmp_path / "nlu.md").write_text(NLU_PROFILE)
    for name in ("rasa_bot.py", "nlu.md"):
        with scoped(SERVER.confined([tmp_path])):
            found = validate_file(tmp_path / name, "profile", build_connector=False)
        assert found.errors == [], found.errors
    code = compile((tmp_path / "rasa_bot.py").read_text(), "rasa_bot.py", "exec", dont_inherit=True)
    exec(code, {})
    assert marker.exists()


def _project(tmp_path: Path) -> tuple[Path, Path, dict[str, object]]:
    inputs = tmp_path / "inputs"
    (inputs / "proj" / "data").mkdir(parents=True)
    marker = tmp_path / "ran"
    (inputs / "rasa_bot.py").write_text(_polyglot(marker))
    (inputs / "profile.yaml").write_text(_polyglot(tmp_path / "unused"))
    (inputs / "proj" / "data" / "nlu.md").write_text(NLU_PROFILE)
    (inputs / "rules.yaml").write_text("rules:\n  - {name: r, oracle: 'True'}\n")
    (inputs / "chatbot.yaml").write_text("connector: rasa\nparams: {url: 'http://bot.example'}\n")
    settings: dict[str, object] = {
        "project": str(inputs / "proj"),
        "kind": "rasa",
        "profiles": [str(inputs / "profile.yaml")],
        "rules": [str(inputs / "rules.yaml")],
        "rasa_helper": str(inputs / "rasa_bot.py"),
        "chatbot": str(inputs / "chatbot.yaml"),
    }
    return inputs, marker, settings


@pytest.mark.parametrize(
    "change",
    [{}, {"kind": "taskyto"}, {"kind": "aiml", "serve_command": ["sh", "-c", "id"]}],
    ids=["rasa", "taskyto", "serve-command"],
)
def test_mutating_a_project_whose_builds_run_code_is_refused(
    tmp_path: Path, change: dict[str, object]
) -> None:
    from sparring.mutation._settings import MutateSettings, builder_for

    inputs, _marker, settings = _project(tmp_path)
    settings = {**settings, **change}
    if settings["kind"] != "rasa":
        settings.pop("rasa_helper")
    MutateSettings.from_values(settings)  # the control: the CLI takes it
    with scoped(SERVER.confined([inputs])):
        with pytest.raises(ConfigError) as caught:
            MutateSettings.from_values(settings)
        keys = [p.key for p in caught.value.problems]
        assert "kind" in keys and "runs code" in str(caught.value), caught.value.problems
        typed = MutateSettings.model_validate(settings)  # typed elsewhere (a stored run)
        with pytest.raises(ConfigError):
            builder_for(typed)


def test_mutating_an_aiml_or_prompt_project_is_not_refused_for_its_kind(tmp_path: Path) -> None:
    """Their builds go through the copy's chatbot.yaml, whose connector the policy checks."""
    from sparring.mutation._settings import MutateSettings

    inputs, _marker, settings = _project(tmp_path)
    settings.pop("rasa_helper")
    settings["chatbot"] = str(inputs / "proj" / "chatbot.yaml")
    for kind in ("aiml", "prompt"):
        with scoped(SERVER.confined([inputs])):
            assert MutateSettings.from_values({**settings, "kind": kind}).kind == kind


def test_the_rasa_mutation_job_never_imports_the_helper_under_the_policy(tmp_path: Path) -> None:
    """The whole attack, as the job process runs it: the policy installed, the job started
    through the runner with settings typed elsewhere (a run resumed): it fails, and the
    helper never ran."""
    from sparring.runner import InProcessExecutor

    inputs, marker, settings = _project(tmp_path)
    install_policy(SERVER.confined([inputs, tmp_path / "run"]))
    try:
        executor = InProcessExecutor()
        handle = executor.submit("mutate", settings, tmp_path / "run")
        status = executor.wait(handle)
    finally:
        install_policy(None)
    assert status == "failed"
    assert not marker.exists(), "the Rasa helper ran on the server"


def test_the_helper_loader_itself_asks_the_policy(tmp_path: Path) -> None:
    from sparring.mutation._build_rasa import load_helper

    marker = tmp_path / "ran"
    helper = tmp_path / "rasa_bot.py"
    helper.write_text(_polyglot(marker))
    with scoped(SERVER), pytest.raises(ConfigError):
        load_helper(helper, tmp_path)
    assert not marker.exists()
    load_helper(helper, tmp_path)  # the control
    assert marker.exists()


def test_no_process_is_started_under_the_policy(tmp_path: Path) -> None:
    from sparring.mutation._processes import spawn

    marker = tmp_path / "ran"
    command = ["sh", "-c", f"touch {marker}"]
    with scoped(SERVER), pytest.raises(ConfigError):
        asyncio.run(spawn(command, cwd=tmp_path, env={}, log=tmp_path / "log", what="a bot"))
    assert not marker.exists()


def test_no_module_or_file_is_imported_as_a_connector_target(tmp_path: Path) -> None:
    from sparring.connectors._targets import load_target

    marker = tmp_path / "ran"
    touch = f"import pathlib\npathlib.Path({str(marker)!r}).touch()\n"
    (tmp_path / "bot.py").write_text(touch + "def reply(text):\n    return text\n")
    for target in ("bot.py:reply", "subprocess:getoutput", "os:system"):
        with scoped(SERVER), pytest.raises(ConfigError):
            load_target(target, None, tmp_path)
    assert not marker.exists()
    assert load_target("bot.py:reply", None, tmp_path)("x") == "x"  # the control


def test_no_rule_functions_file_is_imported_under_the_policy(tmp_path: Path) -> None:
    from sparring.check.functions import load_functions_file

    marker = tmp_path / "ran"
    (tmp_path / "mine.py").write_text(f"import pathlib\npathlib.Path({str(marker)!r}).touch()\n")
    with scoped(SERVER), pytest.raises(ConfigError):
        load_functions_file(tmp_path / "mine.py")
    assert not marker.exists()


def test_no_generator_file_is_imported_under_the_policy(tmp_path: Path) -> None:
    from sparring.profiles._functions import call_generator

    marker = tmp_path / "ran"
    (tmp_path / "gen.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).touch()\ndef f():\n    return [1]\n"
    )
    with scoped(SERVER), pytest.raises(ConfigError):
        call_generator(tmp_path / "gen.py", "f", [], tmp_path)
    assert not marker.exists()
