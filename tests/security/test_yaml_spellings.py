"""YAML spellings an outsider tried against the execution policy (issue 32): PyYAML's
unsafe tags in every file kind (nothing is built; a tagged sequence crashed the
line-numbering reader, a server error on save, instead of a located problem), and
spellings of the python connector the first tests did not try — each refused under the
dashboard's policy, and none ever builds a connector."""

from __future__ import annotations

from pathlib import Path

import pytest

from sparring._policy import ExecutionPolicy, scoped
from sparring.errors import ConfigError

SPELLINGS = {
    "duplicate key": "connector: rest\nconnector: python\n",
    "key with a trailing space": '"connector ": python\n',
    "value with a trailing space": 'connector: "python "\n',
    "upper case": "connector: PYTHON\n",
    "cyrillic o in the key": "c\u043ennector: python\n",
    "zero-width space": 'connector: "py\\u200bthon"\n',
    "fullwidth letters": 'connector: "\uff50\uff59\uff54\uff48\uff4f\uff4e"\n',
    "JSON": '{"connector": "python"}\n',
    "byte order mark": "\ufeffconnector: python\n",
    "binary tag": "connector: !!binary cHl0aG9u\n",
    "python name tag": "connector: !!python/name:os.system\n",
    "two documents": "connector: rest\nparams: {url: 'http://x.example'}\n---\nconnector: python\n",
    "merge of a list": "a: &a {connector: python}\n<<: [*a]\n",
}


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_no_spelling_builds_the_python_connector(tmp_path: Path, spelling: str) -> None:
    from sparring.connectors import create_connector, load_chatbot_config

    path = tmp_path / "chatbot.yaml"
    text = SPELLINGS[spelling] + "params: {target: 'os:system'}\n"
    path.write_text(text if "params" not in SPELLINGS[spelling] else SPELLINGS[spelling])
    with scoped(ExecutionPolicy(run_code=False)):
        try:
            config = load_chatbot_config(path)
        except ConfigError as exc:
            assert all(p.line is not None for p in exc.problems), exc.problems
            return
        with pytest.raises(ConfigError):
            create_connector(config)


PYTHON_TAGS = [
    "!!python/object/apply:os.system ['touch {marker}']",
    "!!python/object/new:subprocess.Popen [['touch', '{marker}']]",
    "!!python/name:os.system",
    "!!python/module:os",
    "!python/object/apply:os.system ['touch {marker}']",
]


@pytest.mark.parametrize("kind", ["chatbot", "profile", "rules", "persona", "probes"])
@pytest.mark.parametrize("tag", PYTHON_TAGS)
def test_a_python_tag_runs_nothing_and_is_a_located_problem(
    tmp_path: Path, kind: str, tag: str
) -> None:
    """PyYAML's unsafe tags, as a value, a sequence and a key's value in every file kind:
    nothing is constructed (no marker), and the answer is located problems — not a
    crash (a tagged sequence raised ``TypeError`` in the line-numbering reader)."""
    from sparring.validation import validate_file

    marker = tmp_path / "ran"
    value = tag.format(marker=marker)
    for text in (f"connector: {value}\n", f"test_name: {value}\nrules: [{value}]\n"):
        path = tmp_path / "file.yaml"
        path.write_text(text)
        with scoped(ExecutionPolicy(run_code=False).confined([tmp_path])):
            found = validate_file(path, kind, build_connector=False)  # type: ignore[arg-type]
        assert found.errors and all(p.line is not None for p in found.errors), found.errors
    assert not marker.exists()
