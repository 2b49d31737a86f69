"""A ChatChecker persona file that ChatChecker's own model accepts but that is no usable
persona (an empty task, an age of 10^30, an empty name: found by the fuzz sweep of
``benchmarks/bench_hostile_files.py --fuzz``) crashed ``load_persona_file`` and
``sparring validate`` (exit 70) on the conversion; it is a located error at the
ChatChecker key it comes from (file, line, key), also inside a run's persona_info.yaml."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sparring.cli import main
from sparring.errors import ConfigError
from sparring.profiles import load_persona_file

PERSONA = """\
persona_id: generated_standard_persona_01
type: standard
profile:
  name: {name}
  gender: female
  age: {age}
  background_info: [You study.]
  personality: {{openness: high, conscientiousness: low, extraversion: medium,
    agreeableness: low, neuroticism: medium}}
  interaction_style: [Short messages.]
task: {task}
"""
CASES = {
    "empty task": ({"name": "Ann", "age": 20, "task": "''"}, "task", 11),
    "huge age": ({"name": "Ann", "age": 10**30, "task": "Set a goal"}, "profile.age", 6),
    "empty name": ({"name": "''", "age": 20, "task": "Set a goal"}, "profile.name", 4),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("inside_run", [False, True])
def test_a_chatchecker_persona_that_is_no_persona_is_located(
    tmp_path: Path, case: str, inside_run: bool
) -> None:
    values, key, line = CASES[case]
    text = PERSONA.format(**values)
    if inside_run:
        text = "run_id: r1\npersona:\n" + "".join(f"  {row}\n" for row in text.splitlines())
        key, line = f"persona.{key}", line + 2
    path = tmp_path / "persona.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_persona_file(path)
    (problem,) = caught.value.problems
    assert (problem.file, problem.key) == (str(path), key)
    assert problem.line == line


def test_validate_says_it_with_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "persona.yaml"
    path.write_text(PERSONA.format(name="Ann", age=20, task="''"), encoding="utf-8")
    monkeypatch.setattr(sys, "argv", ["sparring", "validate", str(path)])
    with pytest.raises(SystemExit) as caught:
        main()
    assert caught.value.code == 2
    assert f"{path}:11 [task]" in capsys.readouterr().err.replace("\n", "")
