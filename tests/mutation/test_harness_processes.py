"""No process outlives a mutate job: each fake build starts a harmless child process (a
stand-in for a Rasa server); after a finished, an interrupted (SIGTERM, SIGINT) or a
cancelled job, none is left."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_harness_fakes import OPERATORS, FakeBuilder, make_project

from sparring.mutation._job import MutateJob, MutateSettings
from sparring.mutation._processes import tracked
from sparring.runner import start, start_async

HERE = Path(__file__).parent
SRC = HERE.parents[1] / "src"

JOB = """
import sys
from pathlib import Path
sys.path[:0] = [{here!r}, {src!r}]
from test_harness_fakes import OPERATORS, FakeBuilder, make_project
from sparring.mutation import MutateJob, MutateSettings, terminating_signals
from sparring.runner import start
root = Path({root!r})
project, profiles, rules = make_project(root)
settings = MutateSettings(project=project, kind="aiml", profiles=[profiles], rules=[rules],
                          workers=2)
job = MutateJob(builder=FakeBuilder(server=True, delay=30, pids=root / "pids"),
                operators=OPERATORS)
with terminating_signals():
    start(job, settings, root / "out")
"""


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead too
        return "Z" not in Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False


def wait_for(condition, timeout: float = 30.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


def pids(root: Path) -> list[int]:
    path = root / "pids"
    return [int(line) for line in path.read_text().split()] if path.exists() else []


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_an_interrupted_job_leaves_no_process(tmp_path: Path, signum: int) -> None:
    script = JOB.format(here=str(HERE), src=str(SRC), root=str(tmp_path))
    job = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE)
    try:
        # the original's build is served, then (after its 30 s "training") two mutants'
        assert wait_for(lambda: len(pids(tmp_path)) >= 1), "no build started"
        started = pids(tmp_path)
        assert all(alive(pid) for pid in started)
        job.send_signal(signum)
        job.wait(timeout=30)
    finally:
        if job.poll() is None:
            job.kill()
    assert job.returncode != 0
    assert wait_for(lambda: not any(alive(pid) for pid in pids(tmp_path)), 10)


def test_a_finished_job_leaves_no_process(tmp_path: Path) -> None:
    project, profiles, rules = make_project(tmp_path)
    settings = MutateSettings(project=project, kind="aiml", profiles=[profiles], rules=[rules])
    builder = FakeBuilder(server=True, pids=tmp_path / "pids")
    start(MutateJob(builder=builder, operators=OPERATORS), settings, tmp_path / "out")
    assert len(pids(tmp_path)) == 9  # the original and every mutant but the stillborn one
    assert not any(alive(pid) for pid in pids(tmp_path))
    assert tracked() == {}


async def test_a_cancelled_job_stops_its_servers(tmp_path: Path) -> None:
    project, profiles, rules = make_project(tmp_path)
    settings = MutateSettings(
        project=project, kind="aiml", profiles=[profiles], rules=[rules], workers=3
    )
    builder = FakeBuilder(server=True, delay=30, pids=tmp_path / "pids")
    job = asyncio.create_task(
        start_async(MutateJob(builder=builder, operators=OPERATORS), settings, tmp_path / "out")
    )
    while not pids(tmp_path):
        await asyncio.sleep(0.05)
    job.cancel()
    with pytest.raises(asyncio.CancelledError):
        await job
    assert not any(alive(pid) for pid in pids(tmp_path))
    assert tracked() == {}
