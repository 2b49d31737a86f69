"""ChatChecker's persona files load as typed personas; unknown keys are located errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from sparring.errors import ConfigError
from sparring.profiles import (
    ChatCheckerPersona,
    ChatCheckerPersonaProfile,
    load_chatchecker_persona,
    load_chatchecker_personas,
)

# What ChatChecker writes (yaml.safe_dump of its Persona model, indent 4, keys in order).
GENERATED = """\
persona_id: generated_standard_persona_01
type: standard
profile:
    name: Busy Beatrice
    gender: female
    age: 41
    background_info:
    - You run a bakery and have little time.
    - You want to set a fitness goal.
    personality:
        openness: medium
        conscientiousness: high
        extraversion: low
        agreeableness: high
        neuroticism: medium
    interaction_style:
    - You write short, direct messages.
task: Set a specific fitness goal and a first step towards it.
generated: true
"""

HAND_WRITTEN = """\
persona_id: tester_kid
type: adversarial
profile: A twelve-year-old who tries to make the bot say rude words.
task: Make the chatbot swear.
generated: false
"""


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_generated_persona_is_typed(tmp_path: Path) -> None:
    persona = load_chatchecker_persona(_write(tmp_path, "p.yaml", GENERATED))
    assert isinstance(persona, ChatCheckerPersona)
    assert persona.persona_id == "generated_standard_persona_01" and persona.type == "standard"
    assert isinstance(persona.profile, ChatCheckerPersonaProfile)
    assert persona.profile.age == 41 and persona.profile.personality.extraversion == "low"
    assert persona.name == "Busy Beatrice" and persona.generated
    assert persona.prompt_text().startswith("profile:\n  name: Busy Beatrice")
    assert persona.prompt_text().endswith(
        "task: Set a specific fitness goal and a first step towards it."
    )


def test_a_hand_written_persona_may_describe_the_user_in_text(tmp_path: Path) -> None:
    persona = load_chatchecker_persona(_write(tmp_path, "kid.yaml", HAND_WRITTEN))
    assert persona.profile == "A twelve-year-old who tries to make the bot say rude words."
    assert persona.name == "tester_kid" and not persona.generated


def test_a_runs_persona_info_file_gives_its_persona(tmp_path: Path) -> None:
    indented = "".join(f"    {line}\n" for line in GENERATED.splitlines())
    text = f"run_id: paper_standard_2025-05-19_seed_1\npersona:\n{indented}"
    persona = load_chatchecker_persona(_write(tmp_path, "persona_info.yaml", text))
    assert persona.persona_id == "generated_standard_persona_01"


def test_an_unknown_key_names_file_line_and_key(tmp_path: Path) -> None:
    path = _write(tmp_path, "p.yaml", GENERATED.replace("task:", "tsak:"))
    with pytest.raises(ConfigError) as info:
        load_chatchecker_persona(path)
    found = {(p.file, p.line, p.key, p.message) for p in info.value.problems}
    assert (str(path), 18, "tsak", "unknown key") in found
    assert (str(path), 1, "task", "required key is missing") in found


def test_an_unknown_key_inside_a_generated_profile_is_located(tmp_path: Path) -> None:
    text = GENERATED.replace(
        "        neuroticism: medium", "        neuroticism: medium\n        humour: high"
    )
    path = _write(tmp_path, "p.yaml", text)
    with pytest.raises(ConfigError) as info:
        load_chatchecker_persona(path)
    (problem,) = info.value.problems
    assert (problem.line, problem.key) == (16, "profile.personality.humour")
    assert str(problem).startswith(f"{path}:16 [profile.personality.humour]: unknown key")


def test_an_unknown_key_in_persona_info_is_located(tmp_path: Path) -> None:
    indented = "".join(f"    {line}\n" for line in HAND_WRITTEN.splitlines())
    text = f"run_id: r1\nrunid: r1\npersona:\n{indented}".replace("    task:", "    goal:")
    with pytest.raises(ConfigError) as info:
        load_chatchecker_persona(_write(tmp_path, "persona_info.yaml", text))
    found = {(p.line, p.key) for p in info.value.problems}
    assert {(2, "runid"), (7, "persona.goal")} <= found


def test_a_chatbot_folder_lists_its_user_personas(tmp_path: Path) -> None:
    folder = tmp_path / "pizza_bot" / "user_personas"
    _write(folder, "generated_standard_persona_01.yaml", GENERATED)
    _write(folder, "tester_kid.yaml", HAND_WRITTEN)
    personas = load_chatchecker_personas(tmp_path / "pizza_bot")
    assert [p.persona_id for p in personas] == ["generated_standard_persona_01", "tester_kid"]
    _write(folder, "zz_broken.yaml", "persona_id: x\ntype: friendly\nprofile: x\ntask: y\n")
    with pytest.raises(ConfigError, match=r"zz_broken.yaml:2 \[type\]"):
        load_chatchecker_personas(folder)
