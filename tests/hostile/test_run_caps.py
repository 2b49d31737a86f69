"""Conversations per run are capped while planning, before memory grows (issue 36, defect
4): the 10,000 cap was per profile, so 200 such profiles or ``--repeat 100000`` grew to
~1 GB with no record and no run folder. Run in a child process with memory and time
limits (``test_special_files._sparring``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_matrix import PROFILE
from test_special_files import CHATBOT, _sparring


def _write(folder: Path, profiles: int, number: int) -> None:
    (folder / "profiles").mkdir()
    for index in range(profiles):
        text = PROFILE.replace("test_name: hello", f"test_name: p{index}")
        (folder / "profiles" / f"p{index}.yaml").write_text(
            text.replace("number: 2", f"number: {number}")
        )
    (folder / "chatbot.yaml").write_text(CHATBOT.format(path=Path(__file__).parent))


@pytest.mark.parametrize(
    ("profiles", "number", "repeat"),
    [(200, 10_000, 1), (1, 2, 100_000)],
    ids=["profiles", "repeat"],
)
def test_a_run_over_the_cap_is_refused_before_planning(
    tmp_path: Path, profiles: int, number: int, repeat: int
) -> None:
    _write(tmp_path, profiles, number)
    args = ["simulate", "profiles", "-c", "chatbot.yaml", "-o", "out", "--repeat", str(repeat)]
    result = _sparring(tmp_path, *args)
    output = result.stdout + result.stderr
    assert result.returncode == 2, output[-2000:]
    assert "2,000,000 conversations" in output or "200,000 conversations" in output, output
    assert "SPARRING_MAX_RUN_CONVERSATIONS" in output, output
    assert not (tmp_path / "out" / "conversations").exists()


@pytest.mark.parametrize(
    ("profiles", "number", "repeat"),
    [(200, 10_000, 1), (1, 2, 100_000)],
    ids=["profiles", "repeat"],
)
def test_validate_warns_where_a_set_of_profiles_is_over_the_run_cap(
    tmp_path: Path, profiles: int, number: int, repeat: int
) -> None:
    """``validate`` said OK for each of the 200 files: it now warns, at the
    ``conversation.number`` line of the profile planning the most, naming the setting."""
    _write(tmp_path, profiles, number)
    result = _sparring(tmp_path, "validate", "profiles", "--repeat", str(repeat))
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-2000:]  # a warning: fewer of them make a run
    [warning] = [line for line in output.splitlines() if line.startswith("warning")]
    line = PROFILE.splitlines().index("  number: 2") + 1
    assert f"p0.yaml:{line} [conversation.number]" in warning, warning
    assert "over the limit of 100,000" in warning and "SPARRING_MAX_RUN_CONVERSATIONS" in warning


def test_validate_says_nothing_of_the_cap_for_a_set_under_it(tmp_path: Path) -> None:
    _write(tmp_path, 3, 10_000)
    result = _sparring(tmp_path, "validate", "profiles", "--repeat", "3")
    assert result.returncode == 0, result.stderr[-2000:]
    assert "warning" not in result.stdout + result.stderr
