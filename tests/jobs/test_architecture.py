"""The job lifecycle has one home (issue 25): no run manifest built outside the runner, no
root result file named outside ``RunStore``, no exit code decided outside the outcome
module, no job result written beside ``RunStore``'s slots. Jobs not yet moved onto the
runner are listed by name; the lists only shrink (a file listed that no longer breaks the
rule fails too, so the list stays true)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

SRC = Path(__file__).parents[2] / "src" / "sparring"

MANIFEST_BUILT = re.compile(r"RunManifest(\.for_job)?\(")
MANIFEST_HOMES = {"conversations/_records.py", "jobs/_runner.py"}
MANIFEST_NOT_YET: set[str] = set()

ROOT_RESULT = re.compile(
    r"[\"'](adversarial|probes|metamorphic|mutation|coverage|definition_coverage)\.json[\"']"
)
ROOT_RESULT_HOMES: set[str] = set()
ROOT_RESULT_NOT_YET: set[str] = set()

RESULT_WRITTEN = re.compile(r"write_job_result\(|atomic_write\([^)]*model_dump_json")
RESULT_HOMES = {"conversations/_store.py", "jobs/_progress.py"}
RESULT_NOT_YET = {
    "metamorphic/_result.py",  # metamorphic.json written by folder: to move to store slots
    "adversarial/_probes/_job.py",  # probes.json: through RunStore once adversarial moves
    "adversarial/_threads.py",
    "mutation/_result.py",  # mutation.json: the mutate job, not on the runner yet
}

EXIT_DECIDED = re.compile(r"EXIT_\w+(, EXIT_\w+)* = \d|typer\.Exit\(\d|sys\.exit\(\d")
EXIT_HOMES = {"jobs/outcome.py"}
EXIT_NOT_YET: set[str] = set()


def _offenders(pattern: re.Pattern[str]) -> set[str]:
    return {
        str(path.relative_to(SRC))
        for path in SRC.rglob("*.py")
        if pattern.search(path.read_text(encoding="utf-8"))
    }


@pytest.mark.parametrize(
    ("what", "pattern", "homes", "not_yet"),
    [
        ("a run manifest is built", MANIFEST_BUILT, MANIFEST_HOMES, MANIFEST_NOT_YET),
        ("a root result file is named", ROOT_RESULT, ROOT_RESULT_HOMES, ROOT_RESULT_NOT_YET),
        ("a job result is written", RESULT_WRITTEN, RESULT_HOMES, RESULT_NOT_YET),
        ("an exit code is decided", EXIT_DECIDED, EXIT_HOMES, EXIT_NOT_YET),
    ],
)
def test_the_lifecycle_has_one_home(
    what: str, pattern: re.Pattern[str], homes: set[str], not_yet: set[str]
) -> None:
    found = _offenders(pattern) - homes
    assert found - not_yet == set(), f"{what} outside its home: {sorted(found - not_yet)}"
    assert not_yet - found == set(), f"moved onto the runner, drop from the list: {not_yet - found}"
