"""The execution policy (``sparring._policy``, issue 32): with code refused, no spelling of a
code-running feature gets through — the connector, a generator function, rule
``functions:``, code settings — and no path leads outside the roots; every refusal is
located. The same files load under the CLI's unrestricted policy (the control)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from sparring._policy import ExecutionPolicy, current_policy, scoped
from sparring.errors import ConfigError

SERVER = ExecutionPolicy(run_code=False)

PYTHON_SPELLINGS = {
    "block": "connector: python\nparams: {target: 'os:system'}\n",
    "flow": "{connector: python, params: {target: 'os:system'}}\n",
    "quoted key": '"connector": python\nparams: {target: "os:system"}\n',
    "single-quoted value": "connector: 'python'\nparams: {target: 'os:system'}\n",
    "anchor": "connector: &c python\nparams: {target: 'os:system'}\n",
    "next line": "connector:\n  python\nparams: {target: 'os:system'}\n",
    "tag": "connector: !!str python\nparams: {target: 'os:system'}\n",
    "hex escape": 'connector: "pyth\\x6fn"\nparams: {target: "os:system"}\n',
    "unicode escape": 'connector: "\\u0070ython"\nparams: {target: "os:system"}\n',
    "folded": "connector: >-\n  python\nparams: {target: 'os:system'}\n",
    "folded double-quoted": 'connector: "pyt\\\n  hon"\nparams: {target: "os:system"}\n',
    "merge key": "<<: {connector: python}\nparams: {target: 'os:system'}\n",
    "merge of an alias": (
        "params: &p {target: 'os:system'}\n<<: {connector: python, params: *p}\n"
    ),
    "complex key": "? connector\n: python\nparams: {target: 'os:system'}\n",
    "chatchecker config": None,  # ChatChecker's config.yaml: its client through python
}


def _write_chatbot(folder: Path, spelling: str) -> Path:
    text = PYTHON_SPELLINGS[spelling]
    if text is None:
        (folder / "chatbot_client.py").write_text("class ChatbotClient: ...\n")
        path = folder / "config.yaml"
        path.write_text(
            "id: x\nchatbot_info: {name: X, description: d, available_languages: [English]}\n"
            "user_simulation_config: {max_user_turns: 3}\n"
        )
        return path
    path = folder / "chatbot.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("spelling", sorted(PYTHON_SPELLINGS))
def test_every_spelling_of_the_python_connector_is_refused(tmp_path: Path, spelling: str) -> None:
    from sparring.connectors import create_connector, load_chatbot_config

    path = _write_chatbot(tmp_path, spelling)
    if spelling == "tag":  # the loader keeps tags: not a name at all, refused as such
        with scoped(SERVER), pytest.raises(ConfigError) as tagged:
            load_chatbot_config(path)
        assert tagged.value.problems[0].key == "connector"
        return
    assert load_chatbot_config(path).connector == "python"  # the control: it is python
    with scoped(SERVER), pytest.raises(ConfigError) as caught:
        load_chatbot_config(path)
    problem = caught.value.problems[0]
    assert problem.file == str(path) and problem.key == "connector", problem
    assert "runs code on the server" in problem.message
    config = load_chatbot_config(path)  # loaded where code may run, built where it may not
    with scoped(SERVER), pytest.raises(ConfigError):
        create_connector(config)


def test_a_refused_connector_is_located_on_its_line(tmp_path: Path) -> None:
    from sparring.connectors import load_chatbot_config

    path = tmp_path / "chatbot.yaml"
    path.write_text("# a bot\n\nparams: {target: 'os:system'}\nconnector: &c python\n")
    with scoped(SERVER), pytest.raises(ConfigError) as caught:
        load_chatbot_config(path)
    assert caught.value.problems[0].line == 4


GENERATOR_PROFILE = """\
test_name: t
llm: {{model: gpt-4o-mini}}
user:
  language: English
  role: a customer
  context: [{{personality: impatient}}]
  goals:
    - "order {{{{size}}}}"
    - size:
        function: forward()
        type: string
{data}
chatbot: {{is_starter: false, fallback: "Sorry"}}
conversation: {{number: 1, goal_style: {{steps: 2}}, interaction_style: [single question]}}
"""

GENERATOR_SPELLINGS = {
    "block": "        data: {file: gen.py, function_name: sizes, args: []}",
    "quoted keys": '        data: {"file": gen.py, "function_name": sizes}',
    "escaped key": '        data: {"fil\\x65": gen.py, function_name: sizes}',
    "merge key": "        data: {<<: {file: gen.py}, function_name: sizes}",
    "next lines": (
        "        data:\n          file:\n            gen.py\n          function_name: sizes"
    ),
}


@pytest.mark.parametrize("spelling", sorted(GENERATOR_SPELLINGS))
def test_a_generator_function_is_refused_in_every_spelling(tmp_path: Path, spelling: str) -> None:
    from sparring.profiles import check_profile

    (tmp_path / "gen.py").write_text("def sizes():\n    return ['small', 'large']\n")
    path = tmp_path / "profile.yaml"
    path.write_text(GENERATOR_PROFILE.format(data=GENERATOR_SPELLINGS[spelling]))
    assert check_profile(path).errors == []  # the control
    with scoped(SERVER):
        errors = check_profile(path).errors
    assert any(p.key.endswith("size.data.file") and "runs code" in p.message for p in errors), (
        errors
    )


async def test_a_generator_function_never_runs_under_the_policy(tmp_path: Path) -> None:
    """A profile loaded where code may run, planned where it may not: the file is not
    imported (it would create ``ran``)."""
    from sparring.profiles import load_profile, plan_conversations

    ran = tmp_path / "ran"
    (tmp_path / "gen.py").write_text(
        f"import pathlib\npathlib.Path({str(ran)!r}).touch()\ndef sizes():\n    return ['s']\n"
    )
    path = tmp_path / "profile.yaml"
    path.write_text(GENERATOR_PROFILE.format(data=GENERATOR_SPELLINGS["block"]))
    profile = load_profile(path)
    with scoped(SERVER), pytest.raises(ConfigError) as caught:
        await plan_conversations(profile, seed=0)
    assert "runs code" in str(caught.value) and not ran.exists()


RULES_SPELLINGS = {
    "block": "functions: [mine.py]\nrules:\n  - {name: r, oracle: 'True'}\n",
    "flow": "{functions: mine.py, rules: [{name: r, oracle: 'True'}]}\n",
    "quoted key": '"functions": [mine.py]\nrules: [{name: r, oracle: "True"}]\n',
    "escaped key": '"function\\x73": [mine.py]\nrules: [{name: r, oracle: "True"}]\n',
    "anchor": "x: &f [mine.py]\nfunctions: *f\nrules: [{name: r, oracle: 'True'}]\n",
}


@pytest.mark.parametrize("spelling", sorted(RULES_SPELLINGS))
def test_rule_functions_are_refused_even_when_trusted(tmp_path: Path, spelling: str) -> None:
    from sparring.check import load_rules

    ran = tmp_path / "ran"
    (tmp_path / "mine.py").write_text(f"import pathlib\npathlib.Path({str(ran)!r}).touch()\n")
    path = tmp_path / "rules.yaml"
    path.write_text(RULES_SPELLINGS[spelling].replace("x: &f", "# &f\nx: &f"))
    with scoped(SERVER), pytest.raises(ConfigError) as caught:
        load_rules([path], trust_functions=True)
    assert any(p.key == "functions" and "runs code" in p.message for p in caught.value.problems)
    assert not ran.exists()


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    """A project folder beside a server file it must not reach."""
    folder = tmp_path / "project"
    folder.mkdir()
    (tmp_path / "server-secret.yaml").write_text("greeting: leaked\n")
    yield folder


def test_a_scripted_model_outside_the_project_is_refused(project: Path) -> None:
    from sparring.llm import get_model

    outside = project.parent / "server-secret.yaml"
    with scoped(SERVER.confined([project])), pytest.raises(ConfigError) as caught:
        get_model(f"scripted:{outside}")
    assert caught.value.problems[0].key == "model"
    missing = project.parent / "no-such-file.yaml"  # refused the same: existence never leaks
    with scoped(SERVER.confined([project])), pytest.raises(ConfigError) as again:
        get_model(f"scripted:{missing}")
    assert again.value.problems[0].message.replace(str(missing), str(outside)) == str(
        caught.value.problems[0].message
    )


def test_a_scripted_script_outside_the_project_is_refused(project: Path) -> None:
    from sparring.connectors import create_connector, load_chatbot_config

    chatbot = project / "chatbot.yaml"
    for script in ("../server-secret.yaml", str(project.parent / "server-secret.yaml")):
        chatbot.write_text(f"connector: scripted\nparams: {{script: '{script}'}}\n")
        with scoped(SERVER.confined([project])), pytest.raises(ConfigError) as caught:
            create_connector(load_chatbot_config(chatbot))
        assert caught.value.problems[0].key == "params.script"


def test_a_symlink_out_of_the_project_is_refused(project: Path) -> None:
    """Confinement follows links: a link inside the project to a file outside is outside."""
    from sparring.connectors import create_connector, load_chatbot_config

    os.symlink(project.parent / "server-secret.yaml", project / "script.yaml")
    chatbot = project / "chatbot.yaml"
    chatbot.write_text("connector: scripted\nparams: {script: script.yaml}\n")
    assert create_connector(load_chatbot_config(chatbot)) is not None  # the control
    with scoped(SERVER.confined([project])), pytest.raises(ConfigError):
        create_connector(load_chatbot_config(chatbot))


def test_path_settings_and_code_settings_are_refused_on_typed_values(project: Path) -> None:
    from sparring.runner import find_job

    settings_type = find_job("check").settings_type
    run, rules = project / "run", [str(project / "rules.yaml")]
    outside = {"run": str(project.parent), "rules": [str(project / ".." / "x")]}
    with scoped(SERVER.confined([project])), pytest.raises(ConfigError) as caught:
        settings_type.from_values(outside)
    assert {p.key for p in caught.value.problems} >= {"run", "rules"}
    for spelling in (True, "true", "True", "yes", 1, "on"):  # pydantic's lax booleans
        with scoped(SERVER.confined([project])), pytest.raises(ConfigError) as code:
            settings_type.from_values(
                {"run": str(run), "rules": rules, "trust_functions": spelling}
            )
        assert [p.key for p in code.value.problems] == ["trust_functions"], spelling
    settings_type.from_values({"run": str(run), "rules": rules, "trust_functions": "true"})


def test_the_cli_installs_no_policy() -> None:
    assert current_policy().run_code and current_policy().roots is None
