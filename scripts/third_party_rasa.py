"""Set up, train and serve the third-party Rasa 1.10 bots of ``../shared/data/rasa-bots``.

The veterinary clinic and the bike shop were written by others for the SENSEI evaluation;
sparring's integration tests and benchmarks talk to them as a new user would. Rasa 1.10
needs Python 3.7, so the bots run in their own venv outside the repository
(``$SPARRING_RASA110_VENV``, default ``~/.cache/sparring/rasa110-venv``: rasa 1.10.0,
protobuf 3.20.3, and duckling, ctparse and pytz for the bots' custom actions; duckling runs
on the JVM, so ``java`` must be on the PATH). This file uses the standard library only and
reuses the pizzeria's server handling (``examples/pizzeria/rasa_bot.py``)::

    python scripts/third_party_rasa.py setup                # venv, pip install (1-7 min)
    python scripts/third_party_rasa.py train veterinary     # ~1.5-6 min, cached by fingerprint
    python scripts/third_party_rasa.py serve veterinary --port 5005 --actions-port 5055
    python scripts/third_party_rasa.py status

The bots are copied (never modified in place) into a working folder per training and per
served instance (beside its logs), so parallel sessions never share one; models are
cached by a digest of ``config.yml``, ``domain.yml``, ``data/`` and ``actions.py``.
Retraining is not deterministic (NLU confidences move a little), so a cached model is kept.
The bots keep state in module-level variables: talk to them at concurrency 1.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]
REQUIREMENTS = ["rasa==1.10.0", "protobuf==3.20.3", "duckling==1.8.0", "ctparse", "pytz"]
BOTS = {
    "veterinary": Path("rasa-bots/veterinary/bot"),
    "bikeshop": Path("rasa-bots/bikeshop/bot/en"),
}
"""Bot name → its Rasa project, relative to the shared data folder."""


def _pizzeria_helper() -> ModuleType:
    name = "sparring_example_rasa_bot"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, REPO / "examples/pizzeria/rasa_bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


_rasa = _pizzeria_helper()
RasaSetupError = _rasa.RasaSetupError
cache_dir = _rasa.cache_dir


def shared_data() -> Path:
    """``$SPARRING_SHARED_DATA`` or ``../shared/data`` beside the repository."""
    return Path(os.environ.get("SPARRING_SHARED_DATA", REPO.parent / "shared" / "data"))


def source_project(bot: str) -> Path:
    """The bot's published Rasa project (read only). Raises ``KeyError`` for an unknown bot."""
    return shared_data() / BOTS[bot]


def venv_dir() -> Path:
    """``$SPARRING_RASA110_VENV`` or ``<cache>/rasa110-venv``."""
    return Path(os.environ.get("SPARRING_RASA110_VENV", cache_dir() / "rasa110-venv"))


def find_python37() -> Path | None:
    """A Python 3.7 interpreter: ``$SPARRING_RASA110_PYTHON``, pyenv's, or ``python3.7``."""
    return _rasa.find_python("3.7", "SPARRING_RASA110_PYTHON")  # type: ignore[no-any-return]


def _requirements_digest() -> str:
    return hashlib.sha256(" ".join(REQUIREMENTS).encode()).hexdigest()[:16]


def venv_is_ready(venv: Path | None = None) -> bool:
    """True when the venv has ``rasa`` installed from the current requirements."""
    venv = venv or venv_dir()
    marker = venv / ".sparring-requirements"
    return (
        (venv / "bin" / "rasa").exists()
        and marker.exists()
        and (marker.read_text().strip() == _requirements_digest())
    )


def setup_venv(timeout: float = 900.0) -> Path:
    """Create (or reuse) the Rasa 1.10 venv; return its folder.

    Raises ``RasaSetupError`` when no Python 3.7 exists, or pip fails or passes ``timeout``
    seconds.
    """
    venv = venv_dir()
    if venv_is_ready(venv):
        print(f"Rasa 1.10 environment ready: {venv}")
        return venv
    python = find_python37()
    if python is None or not python.exists():
        raise RasaSetupError(
            "no Python 3.7 found (Rasa 1.10 needs it; set SPARRING_RASA110_PYTHON)"
        )
    log_file = cache_dir() / "logs" / "rasa110-setup.log"
    print(f"creating the Rasa 1.10 environment {venv} with {python} (log: {log_file}) ...")
    started = time.monotonic()
    _rasa._run([str(python), "-m", "venv", str(venv)], 120, log_file, "creating the venv")
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check"]
    _rasa._run([*pip, "-q", "pip<24"], 300, log_file, "upgrading pip")
    left = max(60.0, timeout - (time.monotonic() - started))
    _rasa._run([*pip, "-q", *REQUIREMENTS], left, log_file, "pip install rasa 1.10")
    (venv / ".sparring-requirements").write_text(_requirements_digest())
    print(f"Rasa 1.10 environment installed in {time.monotonic() - started:.0f} s")
    return venv


def _training_files(project: Path) -> list[Path]:
    files = [project / name for name in ("config.yml", "domain.yml", "actions.py")]
    return [f for f in files if f.exists()] + sorted(
        p for p in (project / "data").rglob("*") if p.is_file()
    )


def model_fingerprint(bot: str) -> str:
    """Digest of everything training and the actions read."""
    project = source_project(bot)
    digest = hashlib.sha256(_requirements_digest().encode())
    for path in _training_files(project):
        digest.update(path.relative_to(project).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def work_project(bot: str, into: Path) -> Path:
    """A fresh working copy of the bot's project at ``into`` (replaced if present).

    Every training and every set of servers gets its own copy, so bots served at the same
    time (by parallel test sessions) never share or delete each other's files.
    """
    source = source_project(bot)
    if not source.is_dir():
        raise RasaSetupError(f"the bot's project is missing: {source}")
    if into.exists():
        shutil.rmtree(into)
    skip = shutil.ignore_patterns("models", "results", "__pycache__")
    shutil.copytree(source, into, ignore=skip)
    return into


def model_path(bot: str) -> Path:
    """Where the model for the bot's current training data is (or will be) stored."""
    return cache_dir() / "models" / f"rasa110-{bot}-{model_fingerprint(bot)}.tar.gz"


def train(bot: str, timeout: float = 900.0) -> Path:
    """Train the bot unless a model for its current data exists; return the model's path.

    Raises ``RasaSetupError`` when the venv is missing or training fails.
    """
    target = model_path(bot)
    if target.exists():
        print(f"{bot}: model up to date: {target}")
        return target
    if not venv_is_ready():
        raise RasaSetupError(f"the Rasa 1.10 environment {venv_dir()} is not set up (run `setup`)")
    project = work_project(bot, cache_dir() / "rasa110" / bot / f"train-{os.getpid()}")
    log_file = cache_dir() / "logs" / f"rasa110-train-{bot}.log"
    print(f"{bot}: training (log: {log_file}) ...")
    started = time.monotonic()
    rasa = str(venv_dir() / "bin" / "rasa")
    command = [rasa, "train", "--out", str(target.parent), "--fixed-model-name", target.name[:-7]]
    try:
        _rasa._run(command, timeout, log_file, f"rasa train ({bot})", cwd=project)
    finally:
        shutil.rmtree(project, ignore_errors=True)
    print(f"{bot}: trained in {time.monotonic() - started:.0f} s: {target}")
    return target


def servers(bot: str, port: int, actions_port: int, log_dir: Path | None = None) -> object:
    """An unstarted ``RasaServers`` (context manager) for the bot on the given ports.

    Raises ``RasaSetupError`` when the venv or the model is missing.
    """
    if not venv_is_ready():
        raise RasaSetupError(f"the Rasa 1.10 environment {venv_dir()} is not set up (run `setup`)")
    model = model_path(bot)
    if not model.exists():
        raise RasaSetupError(f"no trained model for {bot} at {model} (run `train {bot}`)")
    log_dir = log_dir or cache_dir() / "logs" / f"rasa110-{bot}-{port}"
    project = work_project(bot, log_dir / f"project-{port}")
    return _rasa.RasaServers(
        port, actions_port, model=model, project=project, venv=venv_dir(),
        log_dir=log_dir, loopback_only=False,
    )  # fmt: skip


def _status() -> None:
    print(f"shared data: {shared_data()} ({'present' if shared_data().is_dir() else 'missing'})")
    print(f"python 3.7:  {find_python37() or 'not found'}")
    print(f"venv:        {venv_dir()} ({'ready' if venv_is_ready() else 'not set up'})")
    for bot in BOTS:
        if source_project(bot).is_dir():
            model = model_path(bot)
            print(f"{bot:<12} {model} ({'trained' if model.exists() else 'not trained'})")


def main(argv: list[str] | None = None) -> int:
    """Command line (see the module docstring); exit code 1 on ``RasaSetupError``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    setup = commands.add_parser("setup")
    setup.add_argument("--timeout", type=float, default=900.0, help="seconds")
    train_parser = commands.add_parser("train")
    train_parser.add_argument("bot", choices=[*BOTS, "all"])
    train_parser.add_argument("--timeout", type=float, default=900.0, help="seconds per bot")
    serve = commands.add_parser("serve")
    serve.add_argument("bot", choices=list(BOTS))
    serve.add_argument("--port", type=int, default=5005)
    serve.add_argument("--actions-port", type=int, default=5055)
    serve.add_argument("--timeout", type=float, default=600.0, help="seconds to get ready")
    commands.add_parser("status")
    args = parser.parse_args(argv)
    bots = list(BOTS) if getattr(args, "bot", None) == "all" else [getattr(args, "bot", "")]
    actions: dict[str, Callable[[], object]] = {
        "setup": lambda: setup_venv(args.timeout),
        "train": lambda: [train(bot, args.timeout) for bot in bots],
        "serve": lambda: _rasa.serve_until_stopped(
            servers(args.bot, args.port, args.actions_port), args.timeout, args.bot
        ),
        "status": _status,
    }
    return int(_rasa.exit_code(actions[args.command]))


if __name__ == "__main__":
    sys.exit(main())
