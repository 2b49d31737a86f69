"""ChatChecker's persona files and a run's persona_info.yaml are persona files everywhere
(simulate --persona, user.persona, validate); personas of two runs never merge."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from sparring.cli import app
from sparring.errors import ConfigError
from sparring.profiles import load_persona_file, load_persona_files, load_profile
from sparring.simulate._persona_plan import persona_names

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "chatchecker"

# What ChatChecker writes: yaml.safe_dump of its Persona model, indent 4.
GENERATED = """\
persona_id: generated_challenging_persona_01
type: challenging
profile:
    name: Vague Victor
    gender: male
    age: 28
    background_info:
    - You often speak in abstract terms.
    personality:
        openness: high
        conscientiousness: low
        extraversion: medium
        agreeableness: low
        neuroticism: medium
    interaction_style:
    - You write short, terse messages full of typos.
task: Get help setting a goal while giving minimal information.
generated: true
"""

PERSONA_INFO = "run_id: {run}\npersona:\n" + "".join(
    f"    {line}\n" for line in GENERATED.splitlines()
)

PROFILE = """\
test_name: goals
user:
  role: you want help to set a goal
  persona: {persona}
  goals:
    - a goal
chatbot:
  is_starter: false
conversation:
  number: 1
  goal_style:
    steps: 3
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_generated_chatchecker_persona_is_a_persona_file(tmp_path: Path) -> None:
    persona = load_persona_file(write(tmp_path / "p.yaml", GENERATED))
    assert (persona.name, persona.type, persona.gender, persona.age) == (
        "Vague Victor",
        "challenging",
        "male",
        28,
    )
    assert persona.background == ["You often speak in abstract terms."]
    assert persona.traits.conscientiousness == "low" and persona.traits.openness == "high"
    assert persona.task.startswith("Get help setting a goal")
    assert persona.offline_behaviours() == ["short_turns", "typos", "change_goal", "vague_answers"]


def test_a_runs_persona_info_and_a_hand_written_persona(tmp_path: Path) -> None:
    info = write(tmp_path / "run1" / "p01" / "persona_info.yaml", PERSONA_INFO.format(run="r1"))
    assert load_persona_file(info) == load_persona_file(write(tmp_path / "p.yaml", GENERATED))
    hand = "persona_id: jo\ntype: standard\ngenerated: false\nprofile: You are Jo, a student.\n"
    persona = load_persona_file(write(tmp_path / "jo.yaml", hand + "task: Plan a study week.\n"))
    assert (persona.name, persona.description) == ("jo", "You are Jo, a student.")


def test_a_bad_chatchecker_persona_is_located(tmp_path: Path) -> None:
    bad = write(tmp_path / "bad.yaml", GENERATED.replace("age: 28", "age: old") + "mood: x\n")
    with pytest.raises(ConfigError) as caught:
        load_persona_file(bad)
    found = {(p.line, p.key) for p in caught.value.problems}
    assert (6, "profile.age") in found and (19, "mood") in found


def test_personas_of_two_runs_keep_apart(tmp_path: Path) -> None:
    files = [
        write(tmp_path / run / "generated_challenging_persona_01" / "persona_info.yaml", text)
        for run, text in (
            ("run_a", PERSONA_INFO.format(run="a")),
            ("run_b", PERSONA_INFO.format(run="b")),
        )
    ]
    names = persona_names(load_persona_files(files))
    assert names == [
        "run_a.generated_challenging_persona_01",
        "run_b.generated_challenging_persona_01",
    ]


def test_user_persona_may_name_a_chatchecker_file(tmp_path: Path) -> None:
    write(tmp_path / "personas" / "victor.yaml", GENERATED)
    profile = load_profile(
        write(tmp_path / "p.yaml", PROFILE.format(persona="personas/victor.yaml"))
    )
    assert profile.persona_file is not None and profile.persona_file[1].name == "Vague Victor"


def test_validate_reads_chatchecker_personas(tmp_path: Path) -> None:
    persona = write(tmp_path / "victor.yaml", GENERATED)
    info = write(tmp_path / "r" / "v" / "persona_info.yaml", PERSONA_INFO.format(run="r"))
    result = CliRunner().invoke(app, ["validate", str(persona), str(info)])
    assert result.exit_code == 0, result.output
    out = result.output.replace("\n", "")
    assert f"OK persona {persona}" in out and f"OK persona {info}" in out


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data is absent")
def test_every_published_chatchecker_persona_and_config_validates() -> None:
    bot = SHARED / "chatbots" / "study_goal_assistant"
    personas = sorted(bot.glob("user_personas_*/*.yaml")) + sorted(
        bot.glob("runs/*/*/persona_info.yaml")
    )
    assert len(personas) >= 250
    loaded = load_persona_files(personas)
    assert len(loaded) == len(personas)
    assert len(set(persona_names(loaded))) == len(personas)
    result = CliRunner().invoke(app, ["validate", str(bot)])  # the whole chatbot folder
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert sum(line.startswith("OK persona ") for line in lines) == len(personas)
    assert sum(line.startswith("OK chatbot ") for line in lines) == 1
    assert any(line.startswith("skipped ChatChecker run output ") for line in lines)
