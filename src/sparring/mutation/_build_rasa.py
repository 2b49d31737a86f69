"""``RasaBuilder``: train a Rasa 3 project (original or mutant) and serve it on free ports.

The project's own helper file does what it knows best — where its Rasa environment is, how
a model is fingerprinted and cached, how the servers start and stop. For the example
pizzeria that is ``examples/pizzeria/rasa_bot.py`` (the default: ``rasa_bot.py`` next to
the project folder). The helper is loaded as a fresh module per build with its ``PROJECT``
pointing at the mutant's copy, and must offer ``PROJECT``, ``venv_is_ready()``,
``venv_dir()``, ``model_path()`` (the cache path named by the training data's
fingerprint), ``RasaServers(port, actions_port, model, log_dir)`` (``start``, ``ready``,
``stop``) and ``RasaSetupError``; ``_rasa_env()`` (environment for ``rasa``) is used when
present.

What is skipped:

- a mutant whose training data has a fingerprint already in the cache (an actions-only
  mutant, or one already trained by another run) reuses that model: no ``rasa train``;
- Rasa 3's own training cache (``RASA_CACHE_DIRECTORY``, shared by every build) skips each
  graph component whose inputs did not change. Core policies are trained on a domain
  without response texts (``DomainForCoreTrainingProvider``), and NLU never reads
  responses, so a mutant that changes only response texts still runs ``rasa train`` but
  retrains nothing: it only fingerprints and packages the model.

Trainings run one at a time by default (``trainings``): they are CPU-bound and share Rasa's
training cache; a mutant's serve and run overlap another's training.
"""

from __future__ import annotations

import asyncio
import importlib.util
import itertools
import os
import shutil
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from sparring._atomic import atomic_copy
from sparring._policy import current_policy
from sparring.mutation._builders import (
    BuildFailed,
    BuiltBot,
    release_ports,
    reserve_ports,
    write_chatbot,
)
from sparring.mutation._processes import run_to_end, track, untrack

_counter = itertools.count()


def default_helper(project: Path) -> Path:
    """``rasa_bot.py`` beside the project folder (``examples/pizzeria/rasa_bot.py``)."""
    return project.resolve().parent / "rasa_bot.py"


def load_helper(path: Path, project: Path) -> ModuleType:
    """A fresh instance of the helper module with ``PROJECT = project``. Raises
    ``ConfigError`` when the execution policy in force refuses code (the helper is Python)."""
    current_policy().require_code("the Rasa helper (Python)", str(path), None, "rasa_helper")
    spec = importlib.util.spec_from_file_location(f"_sparring_rasa_helper_{next(_counter)}", path)
    if spec is None or spec.loader is None:
        raise BuildFailed(f"cannot load the Rasa helper {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.__dict__["PROJECT"] = project
    return module


class RasaBuilder:
    """Trains (or reuses the cached model) and serves a Rasa project per build.

    ``helper`` is the project's helper file; ``chatbot`` the original's ``chatbot.yaml``
    (its ``params.url`` is replaced by each build's URL); ``train_timeout`` and
    ``ready_timeout`` are seconds; ``trainings`` how many ``rasa train`` run at once;
    ``workers`` the default pool size (half the cores: Rasa is CPU-heavy).
    """

    def __init__(
        self,
        helper: Path,
        chatbot: Path,
        *,
        train_timeout: float = 900.0,
        ready_timeout: float = 240.0,
        trainings: int = 1,
        workers: int | None = None,
    ) -> None:
        self.helper = helper.resolve()
        self.chatbot = chatbot
        self.train_timeout = train_timeout
        self.ready_timeout = ready_timeout
        self.workers = workers or max(1, (os.cpu_count() or 2) // 2)
        self._trainings = asyncio.Semaphore(trainings)
        self._model_locks: dict[Path, asyncio.Lock] = {}

    async def build(self, project: Path, work: Path) -> BuiltBot:
        helper = load_helper(self.helper, project)
        if not helper.venv_is_ready():
            raise BuildFailed(f"the Rasa environment {helper.venv_dir()} is not set up")
        started = time.monotonic()
        model, reused = await self._model(helper, project, work)
        built = BuiltBot(chatbot=work / "chatbot.yaml")
        built.timings["train"] = time.monotonic() - started
        built.notes.append("cached model reused" if reused else "trained")
        started = time.monotonic()
        await self._serve(helper, model, work, built)
        built.timings["serve"] = time.monotonic() - started
        return built

    async def _model(self, helper: ModuleType, project: Path, work: Path) -> tuple[Path, bool]:
        """The cached model for the project's fingerprint, trained first if missing."""
        target = Path(helper.model_path())
        lock = self._model_locks.setdefault(target, asyncio.Lock())
        async with lock:
            if target.exists():
                return target, True
            async with self._trainings:
                await self._train(helper, project, work, target)
        return target, False

    async def _train(self, helper: ModuleType, project: Path, work: Path, target: Path) -> None:
        out = work / "model"
        rasa = str(Path(helper.venv_dir()) / "bin" / "rasa")
        name = target.name.removesuffix(".tar.gz")
        command = [rasa, "train", "--out", str(out), "--fixed-model-name", name]
        log = work / "logs" / "train.log"
        try:
            code = await run_to_end(
                command, cwd=project, env=_env(helper), log=log, what="rasa train",
                timeout=self.train_timeout,
            )  # fmt: skip
        except TimeoutError as exc:
            raise BuildFailed(f"rasa train took over {self.train_timeout:.0f} s ({log})") from exc
        trained = out / target.name
        if code != 0 or not trained.is_file():
            raise BuildFailed(f"rasa train failed with exit code {code} (log: {log})")
        atomic_copy(trained, target)  # the cache only ever holds whole models
        shutil.rmtree(out, ignore_errors=True)

    async def _serve(self, helper: ModuleType, model: Path, work: Path, built: BuiltBot) -> None:
        ports = reserve_ports(2)
        servers: Any = helper.RasaServers(ports[0], ports[1], model, log_dir=work / "logs")
        pids: list[int] = []

        async def stop() -> None:
            try:
                await asyncio.shield(asyncio.to_thread(servers.stop))
            finally:
                for pid in pids:
                    untrack(pid)
                release_ports(ports)

        built.closers.append(stop)
        try:
            try:
                servers.start()
            finally:
                pids.extend(p.pid for p in getattr(servers, "_processes", []))
                for pid in pids:
                    track(pid, f"rasa on port {ports[0]}")
            await self._wait_ready(servers, work)
            write_chatbot(self.chatbot, servers.url, built.chatbot)
        except BaseException as exc:
            await built.close()
            if isinstance(exc, helper.RasaSetupError):
                raise BuildFailed(str(exc)) from exc
            raise

    async def _wait_ready(self, servers: Any, work: Path) -> None:
        deadline = time.monotonic() + self.ready_timeout
        while time.monotonic() < deadline:
            if any(p.poll() is not None for p in getattr(servers, "_processes", [])):
                raise BuildFailed(f"a Rasa server exited early (logs in {work / 'logs'})")
            if await asyncio.to_thread(servers.ready):
                return
            await asyncio.sleep(0.5)
        raise BuildFailed(f"Rasa not ready after {self.ready_timeout:.0f} s ({work / 'logs'})")


def _env(helper: ModuleType) -> dict[str, str]:
    make = getattr(helper, "_rasa_env", None)
    env = dict(make()) if callable(make) else dict(os.environ)
    env.pop("PYTHONPATH", None)
    return env
