"""Plan size is bounded (issue 26, defect 12): a profile of a million combinations, a
``number`` of a billion or a range of a billion values is a located error naming the
profile and the count — in ``validate``, on load and in the planner — before anything is
built."""

from __future__ import annotations

import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from sparring.cli import main
from sparring.errors import UserInputError
from sparring.profiles import load_profile, plan_conversations

ProfileWith = Callable[..., Path]

MILLION = "\n".join(
    [
        '- "{{a}} {{b}} {{c}} {{d}} {{e}} {{f}}"',
        *(
            f"- {name}:\n    function: forward({after})\n    type: int\n"
            f"    data: {{min: 0, max: 9, step: 1}}"
            for name, after in zip("abcdef", ["b", "c", "d", "e", "f", ""], strict=True)
        ),
    ]
)
"""Six chained forward() variables of ten values: 10^6 combinations."""


def _validate(
    path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> str:
    monkeypatch.setattr(sys, "argv", ["sparring", "validate", str(path)])
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 2
    return capsys.readouterr().err.replace("\n", "")


def test_a_million_combinations_is_refused_by_validate_with_profile_and_count(
    profile_with: ProfileWith, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = profile_with(MILLION, number="all_combinations")
    err = _validate(path, monkeypatch, capsys)
    assert f"{path}:" in err and "[conversation.number]" in err
    assert "profile 'pizza' plans 1,000,000 conversations" in err and "10,000" in err


def test_the_load_refuses_it_within_a_memory_bound(profile_with: ProfileWith) -> None:
    path = profile_with(MILLION, number="combinations(0.5, forward)")
    tracemalloc.start()
    try:
        with pytest.raises(UserInputError, match="plans 500,000 conversations"):
            load_profile(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 50_000_000


async def test_the_planner_checks_the_count_before_building(profile_with: ProfileWith) -> None:
    profile = load_profile(profile_with(MILLION, number="sample(0.001)"))  # 1,000: fine
    assert len(await plan_conversations(profile, seed=0)) == 1000


@pytest.mark.parametrize(
    ("number", "goal", "message"),
    [
        ("1000000000", "- hello", "number 1,000,000,000 is over the limit of 10,000"),
        (
            "1",
            '- "{{n}}"\n- n:\n    function: forward()\n    type: int\n'
            "    data: {min: 0, max: 1000000000, step: 1}",
            "the range gives 1,000,000,001 values; at most 100,000",
        ),
    ],
)
def test_a_huge_number_or_range_is_a_located_error(
    profile_with: ProfileWith,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    number: str,
    goal: str,
    message: str,
) -> None:
    path = profile_with(goal, number=number)
    err = _validate(path, monkeypatch, capsys)
    assert f"{path}:" in err and message in err


def test_pairwise_lists_too_long_to_pair_are_refused(
    profile_with: ProfileWith, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    goals = "\n".join(
        f"- {name}:\n    function: pairwise()\n    type: int\n"
        f"    data: {{min: 0, max: 999, step: 1}}"
        for name in "xy"
    )
    err = _validate(profile_with('- "{{x}} {{y}}"\n' + goals, number=3), monkeypatch, capsys)
    assert "at least 1,000,000 combinations" in err
