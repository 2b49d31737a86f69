"""``sparring mutate`` from the command line, with a fake in-process bot and a test
operator registered for the run: output, exit codes, resume."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_harness_fakes import DropReply, make_project
from typer.testing import CliRunner

from sparring.cli import app
from sparring.errors import UserInputError
from sparring.mutation import OPERATORS

runner = CliRunner()


@pytest.fixture(autouse=True)
def operator() -> Iterator[None]:
    with OPERATORS.override("fake.drop_reply", DropReply()):
        yield


def mutate(root: Path, *args: str) -> tuple[int, str, BaseException | None]:
    project, profiles, rules = make_project(root)
    common = ["--project", str(project), "--kind", "aiml", "--profiles", str(profiles)]
    result = runner.invoke(app, ["mutate", *common, "--rules", str(rules), *args])
    return result.exit_code, result.output, result.exception


def test_mutate_prints_the_score_the_killers_and_the_live_diffs(tmp_path: Path) -> None:
    code, output, _ = mutate(tmp_path, "--out", str(tmp_path / "out"), "--workers", "2")
    assert code == 0, output
    assert "mutation score: 67% (4 killed, 2 live, 0 stillborn, 0 errors)" in output
    assert "failing on the original (excluded): mentions_delivery" in output
    assert "confirms_the_order" in output  # the killed-by table
    assert "live: fake.drop_reply@replies.txt#reply:hours" in output
    assert "-hours :: " in output  # its diff
    assert (tmp_path / "out" / "report" / "index.html").is_file()
    data = json.loads((tmp_path / "out" / "results" / "mutation.json").read_text())
    assert data["score"] == 4 / 6 and data["settings"]["workers"] == 2


def test_a_score_below_min_score_exits_1(tmp_path: Path) -> None:
    code, output, _ = mutate(tmp_path, "--out", str(tmp_path / "out"), "--min-score", "0.9")
    assert code == 1, output
    code, output, _ = mutate(tmp_path, "--out", str(tmp_path / "out2"), "--min-score", "0.5")
    assert code == 0, output


def test_an_original_that_cannot_be_built_exits_1(tmp_path: Path) -> None:
    project, profiles, rules = make_project(tmp_path)
    (project / "chatbot.yaml").write_text("connector: nowhere\n")
    result = runner.invoke(app, ["mutate", "--project", str(project), "--kind", "aiml",
                                 "--profiles", str(profiles), "--rules", str(rules),
                                 "--out", str(tmp_path / "out")])  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "the original bot could not be built" in result.output


def test_bad_arguments_exit_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["mutate", "--project", str(tmp_path), "--kind", "aiml"])
    assert isinstance(result.exception, UserInputError)  # main() maps it to exit 2
    assert "--profiles is required" in str(result.exception)
    assert "--rules is required" in str(result.exception)
    code, output, _ = mutate(tmp_path, "--kind", "prolog")
    assert code == 2, output  # a --kind no builder knows
    code, _, exception = mutate(tmp_path / "t", "--kind", "taskyto")
    assert isinstance(exception, UserInputError)  # main() maps it to exit 2


def test_resume_of_a_finished_job_runs_nothing_and_prints_the_result(tmp_path: Path) -> None:
    code, output, _ = mutate(tmp_path, "--out", str(tmp_path / "out"))
    assert code == 0, output
    result = runner.invoke(app, ["mutate", "--resume", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert "mutation score: 67%" in result.output
