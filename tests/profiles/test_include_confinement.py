"""A profile includes files only from its project (issue 26, minor): a personality or
persona file outside the profile's folder and the one above is refused without being
read, so its key names never show."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from sparring.profiles import check_profile

ProfileWith = Callable[..., Path]
GOAL = "- buy a pizza"
PROFILE = "project/profiles/profile.yml"
"""SENSEI's layout: the project root is the folder above ``profiles/``."""


@pytest.fixture
def outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A YAML file elsewhere on the machine, whose keys are private."""
    path = tmp_path_factory.mktemp("elsewhere") / "credentials.yml"
    path.write_text("aws_secret_access_key_name: x\nprivate_field: y\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("how", ["absolute", "dot-dot"])
def test_a_personality_outside_the_project_is_refused_unread(
    profile_with: ProfileWith, outside: Path, tmp_path: Path, how: str
) -> None:
    path = profile_with(GOAL, name=PROFILE)
    reference = str(outside) if how == "absolute" else os.path.relpath(outside, path.parent)
    text = path.read_text(encoding="utf-8").replace(
        "    - your name is Jon", f"    - your name is Jon\n    - personality: {reference}"
    )
    path.write_text(text, encoding="utf-8")
    messages = " ".join(str(p) for p in check_profile(path).errors)
    assert "outside the profile's project folder" in messages
    assert "aws_secret_access_key_name" not in messages and "private_field" not in messages


def test_a_persona_file_outside_the_project_is_refused(
    profile_with: ProfileWith, outside: Path
) -> None:
    path = profile_with(GOAL, name=PROFILE)
    text = path.read_text(encoding="utf-8").replace("user:\n", f"user:\n  persona: {outside}\n", 1)
    path.write_text(text, encoding="utf-8")
    messages = " ".join(str(p) for p in check_profile(path).errors)
    assert "outside the profile's project folder" in messages
    assert "private_field" not in messages


def test_a_personality_in_the_project_still_loads(
    profile_with: ProfileWith, tmp_path: Path
) -> None:
    folder = tmp_path / "project" / "personalities"
    folder.mkdir(parents=True)
    (folder / "calm-user.yml").write_text("context:\n  - You stay calm.\n", encoding="utf-8")
    path = profile_with(GOAL, name=PROFILE)
    text = path.read_text(encoding="utf-8").replace(
        "    - your name is Jon", "    - your name is Jon\n    - personality: calm-user"
    )
    path.write_text(text, encoding="utf-8")
    assert check_profile(path).errors == []
