"""Results typed without casts (issue 35): a job is a ``Job[S, R]``, and the runner hands a
caller who passes the job itself a ``JobRun[R]`` — mypy knows ``run.result``'s type and
refuses settings of another job. A job named by a string gives ``JobRun[Any]``.

The type checks run mypy on a snippet with the project's configuration and its cache
(``.mypy_cache`` at the repository's root, as ``python -m mypy`` leaves it): seconds after
a project run, a few minutes from a cold cache."""

from __future__ import annotations

import re
import typing
from pathlib import Path
from typing import Any

import pytest

from sparring.jobs import JOBS, Job
from sparring.runner import BUILTIN_JOBS

ROOT = Path(__file__).parents[2]

SNIPPET = """\
from pathlib import Path
from typing import Any, ClassVar

from sparring.check import CheckJob, CheckSettings
from sparring.importers import IMPORT_SENSEI
from sparring.jobs import JOBS, Job, JobContext, Outcome
from sparring.runner import launch, launch_resume, resume, start, start_async
from sparring.simulate import SimulateJob, SimulateSettings


def typed(settings: SimulateSettings, check: CheckSettings) -> None:
    reveal_type(start(SimulateJob(), settings, "out").result)  # simulate
    reveal_type(start(CheckJob(), check).result)  # check
    reveal_type(start(SimulateJob(), {"profiles": ["p"]}, "out").result)  # mapping
    reveal_type(resume("out", job=SimulateJob()).result)  # resume
    reveal_type(start(IMPORT_SENSEI, {"source": "s"}, "out").result)  # import
    reveal_type(launch(SimulateJob(), settings, "out").wait().result)  # launch
    reveal_type(launch_resume("out", job=SimulateJob()).wait().result)  # launch-resume
    reveal_type(start("simulate", settings, "out").result)  # by-name
    reveal_type(resume("out").result)  # resume-by-name
    reveal_type(JOBS.get("simulate"))  # registry


async def awaited(settings: SimulateSettings) -> None:
    reveal_type((await start_async(SimulateJob(), settings, "out")).result)  # awaited


def wrong_settings(check: CheckSettings) -> None:
    start(SimulateJob(), check, "out")  # wrong-settings


class WrongResult(Job[SimulateSettings, int]):
    name: ClassVar[str] = "wrong"
    settings_type: ClassVar[type[SimulateSettings]] = SimulateSettings
    creates_run: ClassVar[bool] = True

    async def execute(self, settings: SimulateSettings, ctx: JobContext) -> str:  # wrong-result
        return "not an int"

    def outcome(self, result: int) -> Outcome:
        raise NotImplementedError
"""
TAGS = {
    found.group(1): number
    for number, line in enumerate(SNIPPET.splitlines(), 1)
    if (found := re.search(r"  # ([a-z-]+)$", line))
}
"""Each tagged line of ``SNIPPET`` by its tag (``# simulate``)."""


def _mypy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[int, list[str]]:
    """mypy's notes and errors on ``SNIPPET``, by line."""
    api = pytest.importorskip("mypy.api")
    snippet = tmp_path / "typed_results_snippet.py"
    snippet.write_text(SNIPPET, encoding="utf-8")
    monkeypatch.setenv("MYPYPATH", str(ROOT / "src"))  # this checkout's sparring
    config, cache = str(ROOT / "pyproject.toml"), str(ROOT / ".mypy_cache")
    out, err, _ = api.run(["--config-file", config, "--cache-dir", cache, str(snippet)])
    assert not err, err
    said: dict[int, list[str]] = {}
    for line in out.splitlines():
        # by its name: mypy may say an earlier path when the snippet and what it imports
        # are unchanged (its cache keeps the messages of a module, by module name)
        found = re.match(rf".*{re.escape(snippet.name)}:(\d+): (.*)", line)
        if found:
            said.setdefault(int(found.group(1)), []).append(found.group(2))
    assert said, out  # mypy checked the snippet (not only failed elsewhere)
    return said


def test_a_job_passed_as_an_instance_types_its_result_and_its_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    said = _mypy(tmp_path, monkeypatch)

    def revealed(tag: str) -> str:
        line = TAGS[tag]
        notes = [s for s in said.get(line, []) if s.startswith("note: Revealed type is")]
        assert len(notes) == 1, (tag, said.get(line))
        return notes[0].removeprefix("note: Revealed type is ").strip('"')

    result = "sparring.simulate._job.SimulationResult"
    assert revealed("simulate") == result
    assert revealed("check") == "sparring.check._job.CheckResult"
    assert revealed("mapping") == result  # settings as a mapping
    assert revealed("resume") == result  # resume given the job
    assert revealed("import") == "sparring.importers._job.ImportResult"
    assert revealed("launch") == revealed("launch-resume") == result  # on a thread
    assert revealed("awaited") == result
    assert revealed("by-name") == revealed("resume-by-name") == "Any"  # by name: untyped
    assert revealed("registry") == "sparring.jobs._protocol.Job[Any, Any]"
    errors = {n: [s for s in said[n] if s.startswith("error:")] for n in said}
    assert errors[TAGS["wrong-settings"]], said  # a check's settings given to simulate
    assert any("execute" in e for e in errors[TAGS["wrong-result"]]), said  # str, not int
    refused = sorted(n for n, e in errors.items() if e)
    assert refused == [TAGS["wrong-settings"], TAGS["wrong-result"]]  # and nothing else


def _declared(job: Job[Any, Any]) -> tuple[Any, ...]:
    """The ``(S, R)`` a job's class declares by subclassing ``Job[S, R]``."""
    for klass in type(job).__mro__:
        for base in getattr(klass, "__orig_bases__", ()):
            if typing.get_origin(base) is Job:
                return typing.get_args(base)
    return ()


def test_every_built_in_job_declares_its_settings_and_result_types() -> None:
    jobs = {n: j for n, j in JOBS.items(plugins=False).items() if _built_in(j)}
    assert {"simulate", "check", "run", "mutate", "import-sensei"} <= set(jobs), sorted(jobs)
    for name, job in jobs.items():
        settings, result = _declared(job) or (None, None)
        if isinstance(settings, typing.TypeVar):  # a generic job (the imports): its bound
            assert issubclass(job.settings_type, settings.__bound__), name
        else:
            assert settings is job.settings_type, (name, settings)
        assert isinstance(result, type), (name, result)
        returned = type(job).execute.__annotations__["return"]  # as written in its module
        assert returned == result.__name__, (name, returned, result)


def _built_in(job: Job[Any, Any]) -> bool:
    return type(job).__module__.startswith(tuple(f"{m}." for m in BUILTIN_JOBS))
