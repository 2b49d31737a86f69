"""The README's "Python API" example runs as written (its run folder moved to a temporary
one): the one door, ``sparring.runner.start``, on the ALICE example with typed events,
then a check whose verdict is the run's."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]


def _example() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"^## Python API\n.*?```python\n(.*?)```", readme, re.S | re.M)
    assert found, "README.md has no Python API example"
    return found.group(1)


def test_the_readme_python_api_example_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("aiml")  # the ALICE example bot (`pip install -e ".[alice]"`)
    code = _example()
    assert "runs/alice-api" in code
    monkeypatch.chdir(ROOT)  # the example names examples/alice/ from the repository's root
    exec(compile(code.replace("runs/alice-api", str(tmp_path / "run")), "README.md", "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    done = [line for line in lines if line.startswith("conversation done: ")]
    assert len(done) == 15 and lines[len(done)] == "finished RECORDED 15"
    verdict, summary = lines[len(done) + 1].split(" ", 1)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["outcome"]["verdict"] == verdict.lower()  # the run's one stored verdict
    assert summary == "; ".join(manifest["outcome"]["reasons"])
    assert lines[-1] == str(tmp_path / "run" / "report" / "index.html")


def test_the_readme_handle_example_runs_after_the_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The second example (``launch``: a handle on a running job) with the names the
    first defines, its run folder moved to a temporary one."""
    pytest.importorskip("aiml")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Python API\n", 1)[1].split("\n## ", 1)[0]
    first, second = re.findall(r"```python\n(.*?)```", section, re.S)[:2]
    assert "launch(" in second and "runs/alice-live" in second
    monkeypatch.chdir(ROOT)
    code = (first + second).replace("runs/alice-api", str(tmp_path / "api"))
    code = code.replace("runs/alice-live", str(tmp_path / "live"))
    exec(compile(code, "README.md", "exec"), {})
    last = capsys.readouterr().out.splitlines()[-1]
    manifest = json.loads((tmp_path / "live" / "manifest.json").read_text(encoding="utf-8"))
    assert last in ("finished", "stopped") and manifest["status"] == last
