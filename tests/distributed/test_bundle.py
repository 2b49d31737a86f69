"""A mutate job's files shipped by digest (``sparring.distributed._bundle``): the worker
rebuilds the project, profiles and rules from the run's Redis, takes code only from its
own roots — code as the job's settings and parsed files use it (``_code``), whatever the
file is named — and refuses content that does not match, code it has not, forged
manifests that name code as data, and manifests that leave their folder. The whole job
on workers is in ``tests/integration/test_distributed_faults.py``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("celery")

import redis

from sparring.distributed._bundle import (
    CodeIndex,
    local_path,
    manifest,
    rebuild_files,
    ship,
)
from sparring.distributed._code import code_files
from sparring.distributed._content import blob_key, digest_of
from sparring.distributed._policy import Refused
from sparring.mutation import PROJECT_FOLDERS_SKIPPED, MutateSettings

BOT = "class Bot:\n    def respond(self, text):\n        return text\n"
EVIL = "import os\nos.system('touch /tmp/owned')\n"


def _project(root: Path) -> Path:
    project = root / "project"
    (project / "aiml").mkdir(parents=True)
    (project / "aiml" / "greet.aiml").write_text("<aiml><category/></aiml>\n")
    (project / "chatbot.yaml").write_text("connector: python\nparams: {target: 'bot.py:Bot'}\n")
    (project / "bot.py").write_text(BOT)
    (project / "__pycache__").mkdir()
    (project / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\0stale")
    return project


def _settings(project: Path, kind: str = "aiml", **fields: Any) -> MutateSettings:
    return MutateSettings(project=project, kind=kind, profiles=[project], rules=[project], **fields)


def _code_of(settings: MutateSettings) -> Any:
    return lambda listings, local: code_files(settings, listings, local)


def _ship(
    client: redis.Redis, settings: MutateSettings, sources: dict[str, Path]
) -> dict[str, str]:
    skipped = {"project": PROJECT_FOLDERS_SKIPPED}
    return ship(client, sources, _code_of(settings), skipped)


def _rebuild(
    client: redis.Redis,
    settings: MutateSettings,
    files: dict[str, str],
    sources: dict[str, Path],
    here: Path,
    roots: tuple[Path, ...] = (),
) -> dict[str, Path]:
    """What a worker does: the manifests by digest, then every file where it belongs."""
    targets = {k: local_path(here, p, k) for k, p in sources.items()}
    manifests = {k: manifest(client, k, files[k]) for k in sources}
    rebuild_files(client, manifests, targets, sources, _code_of(settings), CodeIndex(roots))
    return targets


def _names(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


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
    sources = {"project": project, "rules[0]": rules}
    settings = _settings(project)
    files = _ship(client, settings, sources)
    # the python connector's target is code: named in the manifest, never published
    assert client.get(blob_key(digest_of(BOT.encode()))) is None
    assert client.get(blob_key(digest_of(b"rules: []\n"))) == b"rules: []\n"
    roots = tmp_path / "worker-code"
    (roots / "elsewhere").mkdir(parents=True)
    (roots / "elsewhere" / "my_copy.py").write_text(BOT)  # any path: matched by digest
    here = tmp_path / "worker"
    targets = _rebuild(client, settings, files, sources, here, (roots,))

    target = targets["project"]
    assert target == here.joinpath(*project.parts[1:])
    assert _names(target) == ["aiml/greet.aiml", "bot.py", "chatbot.yaml"]
    assert (target / "bot.py").read_text() == BOT
    assert (target / "aiml" / "greet.aiml").read_text() == "<aiml><category/></aiml>\n"
    assert targets["rules[0]"].read_text() == "rules: []\n"
    assert not (target / "bot.py").stat().st_mode & 0o111


def test_code_the_worker_does_not_have_is_refused_naming_the_file(
    client: redis.Redis, tmp_path: Path
) -> None:
    _clean(client)
    project = _project(tmp_path / "coordinator")
    settings = _settings(project)
    files = _ship(client, settings, {"project": project})
    roots = tmp_path / "worker-code"
    roots.mkdir()
    (roots / "bot.py").write_text(BOT + "# one changed line\n")  # same name, other code
    with pytest.raises(Refused, match=r"settings\.project \(bot\.py\): code \(digest [0-9a-f]{16}"):
        _rebuild(client, settings, files, {"project": project}, tmp_path / "w", (roots,))


def test_a_forged_manifest_naming_code_as_data_is_refused(
    client: redis.Redis, tmp_path: Path
) -> None:
    """The attack: whoever writes to the broker publishes their own ``bot.py`` in Redis
    and a manifest that lists it like any data file. The worker decides on the settings
    and the parsed ``chatbot.yaml`` that ``bot.py`` is the python connector's target,
    takes it only from its roots — where nothing has the forged content — and refuses;
    the forged code is written nowhere."""
    _clean(client)
    project = _project(tmp_path / "coordinator")
    settings = _settings(project)
    honest = manifest(client, "project", _ship(client, settings, {"project": project})["project"])
    client.set(blob_key(digest_of(EVIL.encode())), EVIL.encode())  # published as data
    forged = {"folder": True, "files": {**honest.files, "bot.py": digest_of(EVIL.encode())}}
    encoded = json.dumps(forged).encode()
    client.set(blob_key(digest_of(encoded)), encoded)
    roots = tmp_path / "worker-code"
    roots.mkdir()
    (roots / "bot.py").write_text(BOT)  # the operator's own, honest copy
    here = tmp_path / "w"
    with pytest.raises(Refused, match=r"settings\.project \(bot\.py\): code \(digest"):
        _rebuild(client, settings, {"project": digest_of(encoded)}, {"project": project}, here)
    with pytest.raises(Refused, match=r"settings\.project \(bot\.py\): code"):
        _rebuild(
            client, settings, {"project": digest_of(encoded)}, {"project": project}, here, (roots,)
        )
    assert not any(p.read_bytes() == EVIL.encode() for p in here.rglob("*") if p.is_file())


def test_a_python_file_that_is_only_data_is_data(client: redis.Redis, tmp_path: Path) -> None:
    """A served project whose configuration runs no code: its ``notes.py`` is text the
    job never imports, shipped like any data file; a worker with no roots rebuilds it."""
    _clean(client)
    project = tmp_path / "coordinator" / "project"
    project.mkdir(parents=True)
    (project / "bot.yaml").write_text("name: pizza\n")
    (project / "notes.py").write_text(EVIL)
    settings = _settings(project, "taskyto", serve_command=["taskyto-serve", "{project}"])
    files = _ship(client, settings, {"project": project})
    assert client.get(blob_key(digest_of(EVIL.encode()))) == EVIL.encode()
    targets = _rebuild(client, settings, files, {"project": project}, tmp_path / "w")
    assert (targets["project"] / "notes.py").read_text() == EVIL


def test_a_text_file_a_serve_command_runs_is_code(client: redis.Redis, tmp_path: Path) -> None:
    _clean(client)
    project = tmp_path / "coordinator" / "project"
    project.mkdir(parents=True)
    (project / "bot.yaml").write_text("name: pizza\n")
    (project / "serve.txt").write_text("exec taskyto-serve --port $1\n")
    settings = _settings(project, "taskyto", serve_command=["sh", "{project}/serve.txt"])
    files = _ship(client, settings, {"project": project})
    assert client.get(blob_key(digest_of(b"exec taskyto-serve --port $1\n"))) is None
    with pytest.raises(Refused, match=r"settings\.project \(serve\.txt\): code"):
        _rebuild(client, settings, files, {"project": project}, tmp_path / "w")
    roots = tmp_path / "worker-code"
    roots.mkdir()
    (roots / "serve-pizza.txt").write_text("exec taskyto-serve --port $1\n")
    targets = _rebuild(client, settings, files, {"project": project}, tmp_path / "w2", (roots,))
    assert _names(targets["project"]) == ["bot.yaml", "serve.txt"]
    # a file named after `=` is named too: the command may run it as well as read it
    command = ["sh", "{project}/serve.txt", "--config={project}/bot.yaml"]
    named = _code_of(settings.model_copy(update={"serve_command": command}))
    assert {n for _, n in named(_listings({"project": project}), lambda k, n: None)} == {
        "serve.txt",
        "bot.yaml",
    }


def _listings(sources: dict[str, Path]) -> Any:
    from sparring.distributed._bundle import _files_of
    from sparring.distributed._code import Listing

    return {k: Listing(p, p.is_dir(), tuple(_files_of(p))) for k, p in sources.items()}


def test_a_rasa_project_ships_its_code_by_digest_and_no_trained_models(
    client: redis.Redis, tmp_path: Path
) -> None:
    """Every Rasa mutant is retrained and the builders copy no ``models/``: it is not
    shipped. The project's modules are importable by the action server: code."""
    _clean(client)
    bot = tmp_path / "coordinator" / "bot"
    project = bot / "project"
    (project / "actions").mkdir(parents=True)
    (project / "models").mkdir()
    (project / "models" / "20261128.tar.gz").write_bytes(b"\0" * 4096)
    (project / "actions" / "actions.py").write_text(BOT)
    (project / "domain.yml").write_text("intents: [greet]\n")
    (bot / "rasa_bot.txt").write_text("PROJECT = None\n")  # a helper by any name is code
    settings = _settings(project, "rasa", rasa_helper=bot / "rasa_bot.txt")
    sources = {"project": project, "rasa_helper": bot / "rasa_bot.txt"}
    files = _ship(client, settings, sources)
    listed = manifest(client, "project", files["project"]).files
    assert sorted(listed) == ["actions/actions.py", "domain.yml"]
    assert client.get(blob_key(digest_of(BOT.encode()))) is None
    assert client.get(blob_key(digest_of(b"PROJECT = None\n"))) is None
    roots = tmp_path / "worker-code"
    roots.mkdir()
    (roots / "actions.py").write_text(BOT)
    (roots / "helper.py").write_text("PROJECT = None\n")
    targets = _rebuild(client, settings, files, sources, tmp_path / "w", (roots,))
    assert _names(targets["project"]) == ["actions/actions.py", "domain.yml"]
    assert targets["rasa_helper"].read_text() == "PROJECT = None\n"


def test_the_roots_are_indexed_once_and_changes_are_seen(tmp_path: Path) -> None:
    roots = tmp_path / "roots"
    roots.mkdir()
    for n in range(5):
        (roots / f"file{n}.py").write_text(f"# {n}\n")
    index = CodeIndex((roots,))
    assert index.content(digest_of(b"# 3\n"), "project (x)") == b"# 3\n"
    assert index.hashed == 5
    for n in range(5):  # the next mutants: no file read again
        assert index.content(digest_of(f"# {n}\n".encode()), "project (x)")
    assert index.hashed == 5
    (roots / "file1.py").write_text("# changed, longer\n")  # the operator updates the code
    assert index.content(digest_of(b"# changed, longer\n"), "project (x)")
    assert index.hashed == 6
    with pytest.raises(Refused):
        index.content(digest_of(b"# 1\n"), "project (x)")
    assert CodeIndex.for_roots((roots,)) is CodeIndex.for_roots((roots,))


def test_content_altered_in_redis_is_refused(client: redis.Redis, tmp_path: Path) -> None:
    _clean(client)
    rules = tmp_path / "rules.yaml"
    rules.write_text("rules: []\n")
    settings = _settings(tmp_path)
    files = _ship(client, settings, {"rules[0]": rules})
    client.set(blob_key(digest_of(b"rules: []\n")), b"rules: [evil]\n")
    with pytest.raises(
        Refused, match=r"settings\.rules\[0\] \(rules\.yaml\): the content in Redis"
    ):
        _rebuild(client, settings, files, {"rules[0]": rules}, tmp_path / "w")


@pytest.mark.parametrize("name", ["../escape.txt", "/etc/cron.d/x", "a/../../b", "a//b", ""])
def test_a_manifest_that_leaves_its_folder_is_refused(
    client: redis.Redis, tmp_path: Path, name: str
) -> None:
    _clean(client)
    content = b"data"
    client.set(blob_key(digest_of(content)), content)
    forged = json.dumps({"folder": True, "files": {name: digest_of(content)}}).encode()
    client.set(blob_key(digest_of(forged)), forged)
    with pytest.raises(Refused, match="leaves its folder"):
        manifest(client, "project", digest_of(forged))
    assert not (tmp_path / "w" / "escape.txt").exists()


def test_a_coordinator_path_with_dots_is_refused(tmp_path: Path) -> None:
    with pytest.raises(Refused, match=r"settings\.project: /srv/\.\./etc"):
        local_path(tmp_path, Path("/srv/../etc"), "project")
    with pytest.raises(Refused, match="not an absolute path"):
        local_path(tmp_path, Path("relative/project"), "project")


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
