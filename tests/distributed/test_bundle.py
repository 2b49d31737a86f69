"""A mutate job's files shipped by digest (``sparring.distributed._bundle``): the worker
rebuilds the project, profiles and rules from the run's Redis, takes code only from its
own roots, and refuses content that does not match, code it has not, and manifests
that leave their folder. The whole job on workers is in
``tests/integration/test_distributed_faults.py``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("celery")

import redis

from sparring.distributed._bundle import CodeIndex, is_code, local_path, rebuild, ship
from sparring.distributed._content import blob_key, digest_of
from sparring.distributed._policy import Refused
from sparring.mutation import MutateSettings

BOT = "class Bot:\n    def respond(self, text):\n        return text\n"


def _project(root: Path) -> Path:
    project = root / "project"
    (project / "aiml").mkdir(parents=True)
    (project / "aiml" / "greet.aiml").write_text("<aiml><category/></aiml>\n")
    (project / "chatbot.yaml").write_text("connector: python\nparams: {target: 'bot.py:Bot'}\n")
    (project / "bot.py").write_text(BOT)
    (project / "__pycache__").mkdir()
    (project / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\0stale")
    return project


@pytest.fixture(autouse=True)
def _worker_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's worker has a cache of its own (never the machine's)."""
    monkeypatch.setenv("SPARRING_WORKER_CACHE", str(tmp_path / "cache"))


def _clean(client: redis.Redis) -> None:
    client.flushdb()


def test_a_project_is_rebuilt_by_digest_with_code_from_the_worker_roots(
    client: redis.Redis, tmp_path: Path
) -> None:
    _clean(client)
    project = _project(tmp_path / "coordinator")
    rules = tmp_path / "coordinator" / "rules.yaml"
    rules.write_text("rules: []\n")
    files = ship(client, {"project": project, "rules[0]": rules})
    # code is named in the manifest but never published
    assert client.get(blob_key(digest_of(BOT.encode()))) is None
    assert client.get(blob_key(digest_of(b"rules: []\n"))) == b"rules: []\n"
    roots = tmp_path / "worker-code"
    (roots / "elsewhere").mkdir(parents=True)
    (roots / "elsewhere" / "my_copy.py").write_text(BOT)  # any path: matched by digest
    code = CodeIndex((roots,))
    here = tmp_path / "worker"
    target = local_path(here, project, "project")
    rebuild(client, "project", files["project"], target, code)
    rebuild(client, "rules[0]", files["rules[0]"], local_path(here, rules, "rules[0]"), code)

    assert target == here.joinpath(*project.parts[1:])
    assert sorted(p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file()) == [
        "aiml/greet.aiml",
        "bot.py",
        "chatbot.yaml",
    ]
    assert (target / "bot.py").read_text() == BOT
    assert (target / "aiml" / "greet.aiml").read_text() == "<aiml><category/></aiml>\n"
    assert local_path(here, rules, "r").read_text() == "rules: []\n"
    assert not (target / "bot.py").stat().st_mode & 0o111


def test_code_the_worker_does_not_have_is_refused_naming_the_file(
    client: redis.Redis, tmp_path: Path
) -> None:
    _clean(client)
    project = _project(tmp_path / "coordinator")
    files = ship(client, {"project": project})
    roots = tmp_path / "worker-code"
    roots.mkdir()
    (roots / "bot.py").write_text(BOT + "# one changed line\n")  # same name, other code
    with pytest.raises(Refused, match=r"settings\.project \(bot\.py\): code \(digest [0-9a-f]{16}"):
        rebuild(client, "project", files["project"], tmp_path / "w", CodeIndex((roots,)))


def test_content_altered_in_redis_is_refused(client: redis.Redis, tmp_path: Path) -> None:
    _clean(client)
    rules = tmp_path / "rules.yaml"
    rules.write_text("rules: []\n")
    files = ship(client, {"rules[0]": rules})
    client.set(blob_key(digest_of(b"rules: []\n")), b"rules: [evil]\n")
    with pytest.raises(
        Refused, match=r"settings\.rules\[0\] \(rules\.yaml\): the content in Redis"
    ):
        rebuild(client, "rules[0]", files["rules[0]"], tmp_path / "w" / "r.yaml", CodeIndex(()))


@pytest.mark.parametrize("name", ["../escape.txt", "/etc/cron.d/x", "a/../../b", "a//b", ""])
def test_a_manifest_that_leaves_its_folder_is_refused(
    client: redis.Redis, tmp_path: Path, name: str
) -> None:
    _clean(client)
    content = b"data"
    client.set(blob_key(digest_of(content)), content)
    manifest = json.dumps({"folder": True, "files": {name: digest_of(content)}}).encode()
    client.set(blob_key(digest_of(manifest)), manifest)
    target = tmp_path / "w" / "project"
    with pytest.raises(Refused, match="leaves its folder"):
        rebuild(client, "project", digest_of(manifest), target, CodeIndex(()))
    assert not (tmp_path / "w" / "escape.txt").exists()


def test_a_coordinator_path_with_dots_is_refused(tmp_path: Path) -> None:
    with pytest.raises(Refused, match=r"settings\.project: /srv/\.\./etc"):
        local_path(tmp_path, Path("/srv/../etc"), "project")
    with pytest.raises(Refused, match="not an absolute path"):
        local_path(tmp_path, Path("relative/project"), "project")


def test_what_counts_as_code() -> None:
    assert is_code("actions/actions.py") and is_code("serve.SH") and is_code("lib.so")
    assert not is_code("data/nlu.yml") and not is_code("chatbot.yaml")


def test_the_files_beside_a_served_project_are_named_explicitly(tmp_path: Path) -> None:
    from sparring.distributed._mutate import explicit

    project = tmp_path / "bot" / "project"
    project.mkdir(parents=True)
    (tmp_path / "bot" / "chatbot.yaml").write_text("connector: rasa\n")
    (tmp_path / "bot" / "rasa_bot.py").write_text("PROJECT = None\n")
    rasa = MutateSettings(project=project, kind="rasa", profiles=[project], rules=[project])
    sent = explicit(rasa)
    assert sent.chatbot == tmp_path / "bot" / "chatbot.yaml"
    assert sent.rasa_helper == tmp_path / "bot" / "rasa_bot.py"
    aiml = rasa.model_copy(update={"kind": "aiml"})
    assert explicit(aiml).chatbot is None and explicit(aiml).rasa_helper is None


_INDEX_UNDER_LIMITS = """
import resource, sys
from pathlib import Path
resource.setrlimit(resource.RLIMIT_AS, (2 * 1024**3, 2 * 1024**3))
from sparring.distributed._bundle import CodeIndex
from sparring.distributed._content import digest_of
bot = Path(sys.argv[1]) / "bot.py"
print(CodeIndex((Path(sys.argv[1]),)).content(digest_of(bot.read_bytes()), "project").decode())
"""


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_device_link_or_a_fifo_under_the_roots_is_no_code(tmp_path: Path) -> None:
    """A worker's roots may hold anything (a test's basetemp held ``zero.py`` linked to
    ``/dev/zero``: the index read it until the worker had 13 GB). Links to devices and
    FIFOs are skipped, the real code file is found; run in a child process held to 2 GB
    of memory and 60 s, so a regression fails instead of eating the machine."""
    import os
    import subprocess
    import sys

    roots = tmp_path / "roots"
    roots.mkdir()
    (roots / "zero.py").symlink_to("/dev/zero")
    os.mkfifo(roots / "pipe.py")
    (roots / "bot.py").write_text(BOT)
    done = subprocess.run(
        [sys.executable, "-c", _INDEX_UNDER_LIMITS, str(roots)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == BOT + "\n"
