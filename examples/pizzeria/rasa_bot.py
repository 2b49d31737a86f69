"""Set up, train and serve the example pizzeria (Rasa 3.6) on this machine.

Rasa 3.6 needs Python 3.10, while sparring runs on 3.11, so the bot lives in its own
virtual environment outside the repository (``$SPARRING_RASA_VENV``, default
``~/.cache/sparring/rasa-venv``). This file uses the standard library only; it is the one
place that knows how to run the bot, used by ``scripts/demo.sh``, ``.ci/run`` and the
integration tests::

    python examples/pizzeria/rasa_bot.py setup    # create the venv, pip install (~2-3 min)
    python examples/pizzeria/rasa_bot.py train    # train unless the model is up to date
    python examples/pizzeria/rasa_bot.py serve    # action server + `rasa run --enable-api`
    python examples/pizzeria/rasa_bot.py status   # what is there

Models are cached by a fingerprint of the training data, so ``train`` is a no-op until
``config.yml``, ``domain.yml`` or ``data/`` change.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

PROJECT = Path(__file__).resolve().parent / "rasa"
"""The Rasa project: config, domain, NLU data, rules, stories and custom actions."""

Log = Callable[[str], None]


class RasaSetupError(RuntimeError):
    """The Rasa environment, the model or the servers could not be made ready."""


def cache_dir() -> Path:
    """``$SPARRING_CACHE`` or ``~/.cache/sparring``: venv, models, logs."""
    return Path(os.environ.get("SPARRING_CACHE", Path.home() / ".cache" / "sparring"))


def venv_dir() -> Path:
    """``$SPARRING_RASA_VENV`` or ``<cache>/rasa-venv``."""
    return Path(os.environ.get("SPARRING_RASA_VENV", cache_dir() / "rasa-venv"))


def find_python(version: str, variable: str) -> Path | None:
    """A Python ``version`` (e.g. ``"3.10"``) interpreter: ``$variable``, pyenv's, or
    ``pythonX.Y`` on the PATH."""
    given = os.environ.get(variable)
    if given:
        return Path(given)
    roots = [os.environ.get("PYENV_ROOT"), str(Path.home() / ".pyenv")]
    for root in filter(None, roots):
        pattern = os.path.join(root, "versions", f"{version}.*", "bin", "python")
        found = sorted(glob.glob(pattern))
        if found:
            return Path(found[-1])
    which = shutil.which(f"python{version}")
    return Path(which) if which else None


def find_python310() -> Path | None:
    """A Python 3.10 interpreter: ``$SPARRING_RASA_PYTHON``, pyenv's, or ``python3.10``."""
    return find_python("3.10", "SPARRING_RASA_PYTHON")


def _requirements_digest() -> str:
    text = (PROJECT / "requirements.txt").read_bytes() + (PROJECT / "constraints.txt").read_bytes()
    return hashlib.sha256(text).hexdigest()[:16]


def venv_is_ready(venv: Path | None = None) -> bool:
    """True when the venv has ``rasa`` installed from the current requirements."""
    venv = venv or venv_dir()
    marker = venv / ".sparring-requirements"
    return (
        (venv / "bin" / "rasa").exists()
        and marker.exists()
        and (marker.read_text().strip() == _requirements_digest())
    )


def _rasa_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        RASA_TELEMETRY_ENABLED="false",
        RASA_CACHE_DIRECTORY=str(cache_dir() / "rasa-train-cache"),
        TF_CPP_MIN_LOG_LEVEL="2",
        SQLALCHEMY_SILENCE_UBER_WARNING="1",
        PYTHONWARNINGS="ignore",
    )
    env.pop("PYTHONPATH", None)
    return env


def _run(
    command: list[str], timeout: float, log_file: Path, what: str, cwd: Path = PROJECT
) -> None:
    log_file.parent.mkdir(parents=True, exist_ok=True)
    with log_file.open("ab") as out:
        try:
            done = subprocess.run(
                command, cwd=cwd, env=_rasa_env(), stdout=out, stderr=subprocess.STDOUT,
                timeout=timeout, check=False,
            )  # fmt: skip
        except subprocess.TimeoutExpired as exc:
            message = f"{what} took more than {timeout:.0f} s (log: {log_file})"
            raise RasaSetupError(message) from exc
    if done.returncode != 0:
        raise RasaSetupError(f"{what} failed with exit code {done.returncode} (log: {log_file})")


def setup_venv(timeout: float = 900.0, log: Log = print) -> Path:
    """Create (or reuse) the Rasa venv with the pinned requirements; return its folder.

    Raises ``RasaSetupError`` when no Python 3.10 exists, or pip fails or passes ``timeout``
    seconds.
    """
    venv = venv_dir()
    if venv_is_ready(venv):
        log(f"Rasa environment ready: {venv}")
        return venv
    python = find_python310()
    if python is None or not python.exists():
        raise RasaSetupError("no Python 3.10 found (Rasa 3.6 needs it; set SPARRING_RASA_PYTHON)")
    log_file = cache_dir() / "logs" / "rasa-setup.log"
    log(f"creating the Rasa environment {venv} with {python} (log: {log_file}) ...")
    started = time.monotonic()
    _run([str(python), "-m", "venv", str(venv)], 120, log_file, "creating the venv")
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check"]
    left = max(60.0, timeout - (time.monotonic() - started))
    requirements = ["-r", "requirements.txt", "-c", "constraints.txt"]
    _run([*pip, *requirements], left, log_file, "pip install rasa")
    (venv / ".sparring-requirements").write_text(_requirements_digest())
    log(f"Rasa environment installed in {time.monotonic() - started:.0f} s")
    return venv


def model_fingerprint() -> str:
    """Digest of everything training reads (config, domain, data, requirements)."""
    digest = hashlib.sha256()
    files = [PROJECT / "config.yml", PROJECT / "domain.yml", PROJECT / "requirements.txt"]
    files += sorted((PROJECT / "data").rglob("*.yml"))
    for path in files:
        digest.update(path.relative_to(PROJECT).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def model_path() -> Path:
    """Where the model for the current training data is (or will be) stored."""
    return cache_dir() / "models" / f"pizzeria-{model_fingerprint()}.tar.gz"


def train(timeout: float = 900.0, log: Log = print) -> Path:
    """Train the model unless one for the current data exists; return its path.

    Raises ``RasaSetupError`` when the venv is missing or training fails.
    """
    target = model_path()
    if target.exists():
        log(f"model up to date: {target}")
        return target
    if not venv_is_ready():
        raise RasaSetupError(f"the Rasa environment {venv_dir()} is not set up (run `setup`)")
    log_file = cache_dir() / "logs" / "rasa-train.log"
    log(f"training the pizzeria model (log: {log_file}) ...")
    started = time.monotonic()
    rasa = str(venv_dir() / "bin" / "rasa")
    command = [rasa, "train", "--out", str(target.parent), "--fixed-model-name", target.name[:-7]]
    _run(command, timeout, log_file, "rasa train")
    log(f"trained in {time.monotonic() - started:.0f} s: {target}")
    return target


def _get_json(url: str) -> object:
    with urllib.request.urlopen(url, timeout=2) as answer:  # loopback only
        return json.loads(answer.read() or b"null")


def _port_in_use(port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("0.0.0.0", port))
        except OSError:
            return True
    return False


def _die_with_parent() -> None:
    """In the child, before exec: on Linux, ask for SIGTERM when the parent dies, so a test
    session or ``serve`` killed by a signal (no teardown runs) leaves no server behind."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            import ctypes

            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class RasaServers:
    """The action server and ``rasa run --enable-api`` on localhost, as child processes.

    Use as a context manager; ``url`` is the Rasa server's base URL once started.
    ``project`` (the folder holding ``actions``) and ``venv`` default to the pizzeria's;
    ``scripts/third_party_rasa.py`` passes a Rasa 1.10 bot and its venv, with
    ``loopback_only=False`` (Rasa 1.10's ``rasa run`` has no ``-i``: it binds every interface).
    """

    def __init__(self, port: int = 5005, actions_port: int = 5055, model: Path | None = None,
                 log_dir: Path | None = None, project: Path = PROJECT,
                 venv: Path | None = None, loopback_only: bool = True) -> None:  # fmt: skip
        self.port, self.actions_port = port, actions_port
        self.model = model or model_path()
        self.log_dir = log_dir or cache_dir() / "logs"
        self.project, self.venv = project, venv or venv_dir()
        self.interface = ["-i", "127.0.0.1"] if loopback_only else []
        self.url = f"http://127.0.0.1:{port}"
        self._processes: list[subprocess.Popen[bytes]] = []

    def start(self) -> None:
        """Start both servers (returns at once; see ``wait_ready``)."""
        if not self.model.exists():
            raise RasaSetupError(f"no trained model at {self.model} (run `train`)")
        busy = [port for port in (self.port, self.actions_port) if _port_in_use(port)]
        if busy:
            raise RasaSetupError(f"port {busy[0]} is already in use (another Rasa running?)")
        self.log_dir.mkdir(parents=True, exist_ok=True)
        endpoints = self.log_dir / f"endpoints-{self.port}.yml"
        endpoints.write_text(
            f'action_endpoint:\n  url: "http://127.0.0.1:{self.actions_port}/webhook"\n'
        )
        rasa = str(self.venv / "bin" / "rasa")
        self._spawn([rasa, "run", "actions", "--port", str(self.actions_port)], "actions")
        self._spawn(
            [rasa, "run", "--enable-api", *self.interface, "--port", str(self.port),
             "-m", str(self.model), "--endpoints", str(endpoints),
             "--credentials", "credentials.yml"],
            "rasa",
        )  # fmt: skip

    def _spawn(self, command: list[str], name: str) -> None:
        log = (self.log_dir / f"{name}-{self.port}.log").open("wb")
        process = subprocess.Popen(
            command, cwd=self.project, env=_rasa_env(), stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True, preexec_fn=_die_with_parent,
        )  # fmt: skip
        log.close()
        self._processes.append(process)

    def ready(self) -> bool:
        """True when Rasa has loaded the model and the action server answers."""
        try:
            status = _get_json(f"{self.url}/status")
            health = _get_json(f"http://127.0.0.1:{self.actions_port}/health")
        except (OSError, ValueError):
            return False
        loaded = isinstance(status, dict) and bool(status.get("model_file"))
        return loaded and isinstance(health, dict) and health.get("status") == "ok"

    def wait_ready(self, timeout: float = 180.0) -> float:
        """Block until ready; return the seconds waited. Raises ``RasaSetupError``."""
        started = time.monotonic()
        while time.monotonic() - started < timeout:
            if any(p.poll() is not None for p in self._processes):
                raise RasaSetupError(f"a Rasa server exited early (logs in {self.log_dir})")
            if self.ready():
                return time.monotonic() - started
            time.sleep(0.5)
        raise RasaSetupError(f"Rasa not ready after {timeout:.0f} s (logs in {self.log_dir})")

    def stop(self) -> None:
        """Terminate both servers (their process groups); never raises."""
        for process in self._processes:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        for process in self._processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        self._processes.clear()

    def __enter__(self) -> RasaServers:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextlib.contextmanager
def _stop_on_signals() -> Iterator[None]:
    def raise_interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, raise_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def serve_until_stopped(servers: RasaServers, timeout: float, name: str = "pizzeria") -> None:
    """Start ``servers``, wait up to ``timeout`` seconds for them, then keep them up until
    Ctrl-C, SIGTERM or a server's exit; both are stopped on the way out."""
    with _stop_on_signals(), servers:
        waited = servers.wait_ready(timeout)
        print(f"{name} ready in {waited:.0f} s: {servers.url}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            while all(p.poll() is None for p in servers._processes):
                time.sleep(1)


def exit_code(action: Callable[[], object]) -> int:
    """Run a command's ``action``: 0, or 1 with the message of a ``RasaSetupError``."""
    try:
        action()
    except RasaSetupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


def _status() -> None:
    print(f"project:     {PROJECT}")
    print(f"python 3.10: {find_python310() or 'not found'}")
    print(f"venv:        {venv_dir()} ({'ready' if venv_is_ready() else 'not set up'})")
    model = model_path()
    print(f"model:       {model} ({'trained' if model.exists() else 'not trained'})")


def main(argv: list[str] | None = None) -> int:
    """Command line (see the module docstring); exit code 1 on ``RasaSetupError``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("setup", "train"):
        sub = commands.add_parser(name)
        sub.add_argument("--timeout", type=float, default=900.0, help="seconds")
    serve = commands.add_parser("serve")
    serve.add_argument("--port", type=int, default=5005)
    serve.add_argument("--actions-port", type=int, default=5055)
    serve.add_argument("--timeout", type=float, default=180.0, help="seconds to get ready")
    commands.add_parser("status")
    args = parser.parse_args(argv)
    actions: dict[str, Callable[[], object]] = {
        "setup": lambda: setup_venv(args.timeout),
        "train": lambda: train(args.timeout),
        "serve": lambda: serve_until_stopped(
            RasaServers(args.port, args.actions_port), args.timeout
        ),
        "status": _status,
    }
    return exit_code(actions[args.command])


if __name__ == "__main__":
    sys.exit(main())
