"""Free-text test bots of six domains, each correct or with seeded bugs (see README.md).

``serve(name, bugs, folder)`` runs a bot's HTTP server in this process on a free loopback
port and writes a ``chatbot.yaml`` for it (the bot's own, pointed at that port);
``python_chatbot(name, bugs, folder)`` writes a ``chatbot.yaml`` that calls the bot in
process through the ``python`` connector instead. Both return the file's path.
"""

from __future__ import annotations

import contextlib
import importlib.util
import sys
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import yaml

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Bot:
    name: str
    module: str
    """The bot's file in its folder, without ``.py``."""

    @property
    def folder(self) -> Path:
        return HERE / self.name

    @property
    def profiles(self) -> Path:
        return self.folder / "profiles"

    @property
    def rules(self) -> Path:
        return self.folder / "rules"

    @property
    def bugs(self) -> dict[str, str]:
        """Seeded bug name → what it does."""
        return dict(load(self.name).BUGS)


BOTS = {
    bot.name: bot
    for bot in (
        Bot("dental", "dentalbot"),
        Bot("bank", "bankbot"),
        Bot("train", "trainbot"),
        Bot("carrental", "carbot"),
        Bot("library", "librarybot"),
        Bot("plumber", "plumberbot"),
    )
}


TASKS = {
    "dental": ["I'd like to book an appointment", "whitening", "9 March", "3:30 pm", "Ana Costa"],
    "bank": [
        "I want to make a transfer",
        "250 euros",
        "Maria Lopez",
        "1234 5678",
        "tomorrow",
        "yes",
    ],
    "train": ["A ticket please", "from London", "to York", "12/03/2027", "2", "first", "16:50"],
    "carrental": ["I want to rent a car", "Downtown", "March 12", "March 15", "a van", "Ana Costa"],
    "library": ["Can I reserve a book?", "Dune", "Riverside please", "Tuesday the 9th", "204518"],
    "plumber": [
        "I need a plumber",
        "2",
        "14 Elm Road, Leeds LS6 2AB",
        "Thursday the 4th",
        "half past one",
        "07700 900123",
    ],
}
"""User turns that complete each bot's task; the bot's last reply is its confirmation."""


def load(name: str) -> ModuleType:
    """The bot's module (loaded once per process, under a name of its own)."""
    bot = BOTS[name]
    return _load_file(f"sparring_test_bots_{bot.module}", bot.folder / f"{bot.module}.py")


def _server_module() -> ModuleType:
    return _load_file("sparring_test_bots_server", HERE / "_server.py")


_loading = threading.Lock()


def _load_file(key: str, path: Path) -> ModuleType:
    """The module of file ``path`` as ``sys.modules[key]``, loaded once (under a lock: a
    second thread must not see it half run)."""
    with _loading:
        return sys.modules.get(key) or _exec_file(key, path)


def _exec_file(key: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(key, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[key] = module
    return module


def _check_bugs(name: str, bugs: Iterable[str]) -> list[str]:
    chosen = sorted(bugs)
    unknown = set(chosen) - set(BOTS[name].bugs)
    if unknown:
        raise ValueError(f"{name} has no seeded bug {sorted(unknown)}: {sorted(BOTS[name].bugs)}")
    return chosen


@contextlib.contextmanager
def serve(name: str, bugs: Iterable[str] = (), folder: Path | None = None) -> Iterator[Path]:
    """Serve bot ``name`` (with ``bugs`` seeded) on a free loopback port until the block
    ends; yields the path of a ``chatbot.yaml`` (written in ``folder``, default the bot's
    temporary copy) whose ``rest`` connector points at it."""
    chosen = _check_bugs(name, bugs)
    server = _server_module().make_server(load(name).Conversation, chosen, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        config = yaml.safe_load((BOTS[name].folder / "chatbot.yaml").read_text())
        config["params"]["url"] = f"http://127.0.0.1:{server.server_address[1]}"
        yield _write(config, name, chosen, folder)
    finally:
        server.shutdown()
        server.server_close()


def python_chatbot(name: str, bugs: Iterable[str] = (), folder: Path | None = None) -> Path:
    """A ``chatbot.yaml`` (in ``folder``) calling bot ``name`` in process (``python``
    connector, one ``Conversation`` per conversation, ``bugs`` seeded)."""
    chosen = _check_bugs(name, bugs)
    bot = BOTS[name]
    config = yaml.safe_load((bot.folder / "chatbot.yaml").read_text())
    config["connector"] = "python"
    config["params"] = {
        "target": f"{bot.module}.py:Conversation",
        "path": str(bot.folder),
        "kwargs": {"bugs": chosen},
        "timeout": 10,
    }
    return _write(config, name, chosen, folder)


def _write(config: dict[str, object], name: str, bugs: list[str], folder: Path | None) -> Path:
    if folder is None:
        import tempfile

        folder = Path(tempfile.mkdtemp(prefix=f"bot-{name}-"))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}{'-' + '-'.join(bugs) if bugs else ''}.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path
