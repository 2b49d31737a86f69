"""``RasaBuilder`` against a fake Rasa helper (the interface of
examples/pizzeria/rasa_bot.py) whose ``rasa`` writes a model file and whose servers are
harmless child processes: the cached model is reused for an unchanged fingerprint, a
failed training is a stillborn build, servers stop on close and on failure."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest
import yaml

from sparring.mutation._build_rasa import RasaBuilder
from sparring.mutation._builders import BuildFailed, BuiltBot, copy_project
from sparring.mutation._processes import tracked

HELPER = """
import hashlib, os, subprocess, sys
from pathlib import Path

PROJECT = Path(__file__).parent / "rasa"
ROOT = Path(__file__).parent


class RasaSetupError(RuntimeError):
    pass


def venv_is_ready():
    return True


def venv_dir():
    return ROOT / "venv"


def cache_dir():
    return ROOT / "cache"


def model_path():
    digest = hashlib.sha256((PROJECT / "domain.yml").read_bytes()).hexdigest()[:12]
    return cache_dir() / "models" / f"bot-{digest}.tar.gz"


class RasaServers:
    def __init__(self, port, actions_port, model=None, log_dir=None):
        self.port, self.model, self.url = port, model, f"http://127.0.0.1:{port}"
        self._processes = []

    def start(self):
        if "NO-SERVE" in (PROJECT / "domain.yml").read_text():
            raise RasaSetupError("the server refused to start")
        for _ in range(2):
            self._processes.append(subprocess.Popen(
                [sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True))

    def ready(self):
        return "SLOW" not in (PROJECT / "domain.yml").read_text()

    def stop(self):
        for process in self._processes:
            process.terminate()
            process.wait()
        self._processes.clear()
"""

RASA = """#!{python}
import sys
from pathlib import Path
args = sys.argv[1:]
out, name = Path(args[args.index("--out") + 1]), args[args.index("--fixed-model-name") + 1]
if "BROKEN" in Path("domain.yml").read_text():
    sys.exit(1)
out.mkdir(parents=True, exist_ok=True)
(out / (name + ".tar.gz")).write_text("model")
with open("{calls}", "a") as calls:
    calls.write(name + "\\n")
"""


@pytest.fixture
def helper(tmp_path: Path) -> Path:
    (tmp_path / "rasa").mkdir()
    (tmp_path / "rasa" / "domain.yml").write_text("responses: {utter_hi: [{text: hi}]}\n")
    (tmp_path / "rasa_bot.py").write_text(HELPER)
    (tmp_path / "chatbot.yaml").write_text("connector: rasa\nparams: {url: x, timeout: 9}\n")
    rasa = tmp_path / "venv" / "bin" / "rasa"
    rasa.parent.mkdir(parents=True)
    rasa.write_text(RASA.format(python=sys.executable, calls=tmp_path / "calls"))
    rasa.chmod(rasa.stat().st_mode | stat.S_IEXEC)
    return tmp_path / "rasa_bot.py"


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return "Z" not in Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]


async def build(builder: RasaBuilder, root: Path, name: str, domain: str | None = None) -> BuiltBot:
    files = {"domain.yml": domain} if domain is not None else {}
    project = copy_project(root / "rasa", files, root / name / "project")
    return await builder.build(project, root / name)


async def test_train_once_then_reuse_the_cached_model(helper: Path, tmp_path: Path) -> None:
    builder = RasaBuilder(helper, tmp_path / "chatbot.yaml", ready_timeout=5)
    first = await build(builder, tmp_path, "a")
    try:
        config = yaml.safe_load(first.chatbot.read_text())
        assert config["params"]["url"].startswith("http://127.0.0.1:")
        assert config["params"]["timeout"] == 9 and first.notes == ["trained"]
        second = await build(builder, tmp_path, "b")  # same fingerprint: no training
        assert second.notes == ["cached model reused"]
        assert (
            yaml.safe_load(second.chatbot.read_text())["params"]["url"] != config["params"]["url"]
        )
        await second.close()
        third = await build(builder, tmp_path, "c", "responses: {utter_hi: [{text: bye}]}\n")
        assert third.notes == ["trained"]
        await third.close()
    finally:
        await first.close()
    assert len((tmp_path / "calls").read_text().split()) == 2
    assert len(list((tmp_path / "cache" / "models").glob("bot-*.tar.gz"))) == 2


async def test_a_failed_training_or_server_is_stillborn(helper: Path, tmp_path: Path) -> None:
    builder = RasaBuilder(helper, tmp_path / "chatbot.yaml", ready_timeout=1)
    with pytest.raises(BuildFailed, match="rasa train failed"):
        await build(builder, tmp_path, "a", "BROKEN\n")
    with pytest.raises(BuildFailed, match="refused to start"):
        await build(builder, tmp_path, "b", "NO-SERVE\n")
    with pytest.raises(BuildFailed, match="not ready after"):
        await build(builder, tmp_path, "c", "SLOW\n")
    assert len(list((tmp_path / "cache" / "models").glob("*"))) == 2  # not BROKEN's
    assert tracked() == {}  # the servers of the failed builds were stopped


async def test_close_stops_both_servers(helper: Path, tmp_path: Path) -> None:
    builder = RasaBuilder(helper, tmp_path / "chatbot.yaml", ready_timeout=5)
    built = await build(builder, tmp_path, "a")
    pids = list(tracked())
    assert len(pids) == 2 and all(alive(pid) for pid in pids)
    await built.close()
    assert not any(alive(pid) for pid in pids) and tracked() == {}
