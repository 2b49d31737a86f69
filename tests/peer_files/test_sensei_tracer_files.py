"""The corpus test: every SENSEI and TRACER file published in ``../shared/data`` loads,
loads with a warning, or is refused with a reason — nothing is lost without a word.

The expected outcomes are docs/peer-files.md's table; a change in sparring that moves a
file from one column to another must update both.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from peer_corpus import OUTCOMES, ROOTS, outcome, peer_files

EXPECTED: dict[str, dict[str, int]] = {
    "sensei-profiles": {"loads": 40, "warns": 26, "refused": 1},
    "tracer-profiles": {"loads": 15, "warns": 28},
    "sensei-rules": {"loads": 122},
    "sensei-personalities": {"loads": 11},
    "sensei-conversations": {"loads": 113},
    "sensei-reports": {"refused": 13},
}
"""Files per outcome in each family."""

REFUSED = {
    "user_sim_pizzaorder_predefined.yml": (
        "generator file 'list_functions/number_list.py' not found"
    ),
}
"""The one refused profile: it names a generator file its publishers did not publish
(SENSEI itself fails to import it)."""

WARNINGS = {
    "sensei-profiles": (
        "SENSEI's early layout",
        "'ask_about' is the old name",
        "conversation is written as a list",
        "'conversations' is SENSEI's early spelling",
        "unknown output type",
    ),
    "tracer-profiles": ("a quoted 'personality: ...' line",),
}
"""What the warnings are about: each names the form and its modern spelling."""


@pytest.mark.parametrize("family", sorted(EXPECTED))
def test_every_file_of_the_family_has_an_outcome(shared_data: Path, family: str) -> None:
    files = [path for found, path in peer_files(shared_data) if found == family]
    outcomes = {path: outcome(family, path) for path in files}
    assert Counter(status for status, _ in outcomes.values()) == EXPECTED[family]
    for path, (status, reason) in outcomes.items():
        if status == "refused":
            assert reason, path  # a refusal always says why
            if family != "sensei-reports":
                assert REFUSED[path.name] in reason
        if status == "warns":
            assert any(form in reason for form in WARNINGS[family]), reason


def test_every_peer_file_belongs_to_a_family(shared_data: Path) -> None:
    families = Counter(family for family, _ in peer_files(shared_data))
    assert set(families) <= set(OUTCOMES) | {"connectors"}
    assert (
        sum(families.values())
        == sum(sum(c.values()) for c in EXPECTED.values()) + families["connectors"]
    )
    assert all((shared_data / root).is_dir() for root in ROOTS)
