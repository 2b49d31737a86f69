"""Serving a mutant by running a command on a free port: Taskyto's server by default, or
any chatbot server a user names (``sparring mutate --serve-command``).

``ServeCommandBuilder`` starts the command in the mutant's copy, in its own process group
(tracked, so an interrupted job leaves nothing running), waits until its port accepts
connections, and writes a ``chatbot.yaml`` whose ``params.url`` points at it. The command
and the extra environment variables may use ``{project}`` (the copy's folder) and
``{port}``. A command that exits or never opens its port within ``ready_timeout`` seconds
makes the mutant stillborn, with the end of its log in the reason.

Taskyto (``taskyto-serve``, Sánchez Cuadrado, de Lara, Guerra) reads its chatbot from
``--chatbot DIR`` and serves Flask on the port of ``SERVER_NAME``, which Flask takes from
``FLASK_SERVER_NAME``; its engine calls OpenAI, so ``OPENAI_API_KEY`` must be set.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from sparring.mutation._builders import (
    BuildFailed,
    BuiltBot,
    release_ports,
    reserve_ports,
    write_chatbot,
)
from sparring.mutation._processes import spawn, stop

TASKYTO_COMMAND = ("taskyto-serve", "--chatbot", "{project}")
TASKYTO_ENV = {"FLASK_SERVER_NAME": "127.0.0.1:{port}"}
LOG_TAIL = 600
"""Characters of the server's log quoted when a build fails."""


class ServeCommandBuilder:
    """Serves each build with ``command`` (see the module docstring). ``chatbot`` is the
    original's ``chatbot.yaml`` (its ``params.url`` is replaced by each build's URL);
    ``url`` the URL template (``{port}``); ``ready_timeout`` is in seconds."""

    def __init__(
        self,
        command: Sequence[str],
        chatbot: Path,
        *,
        env: Mapping[str, str] | None = None,
        url: str = "http://127.0.0.1:{port}",
        ready_timeout: float = 120.0,
        workers: int | None = None,
    ) -> None:
        if not command:
            raise ValueError("an empty serve command")
        self.command = list(command)
        self.chatbot = chatbot
        self.env = dict(env or {})
        self.url = url
        self.ready_timeout = ready_timeout
        self.workers = workers or max(1, os.cpu_count() or 1)

    async def build(self, project: Path, work: Path) -> BuiltBot:
        if shutil.which(self.command[0]) is None and not Path(self.command[0]).is_file():
            raise BuildFailed(f"the serve command {self.command[0]!r} is not installed")
        (port,) = reserve_ports(1)
        values = {"project": str(project.resolve()), "port": str(port)}
        argv = [part.format(**values) for part in self.command]
        env = {**os.environ, **{k: v.format(**values) for k, v in self.env.items()}}
        log = work / "logs" / "serve.log"
        built = BuiltBot(chatbot=work / "chatbot.yaml")
        started = time.monotonic()
        try:
            process = await spawn(argv, cwd=project, env=env, log=log, what=f"server {argv[0]}")
        except OSError as exc:
            release_ports([port])
            raise BuildFailed(f"the serve command could not start: {exc}") from exc

        async def close() -> None:
            try:
                await stop(process)
            finally:
                release_ports([port])

        built.closers.append(close)
        try:
            await self._ready(process, port, log)
            write_chatbot(self.chatbot, self.url.format(**values), built.chatbot)
        except BaseException:
            await built.close()
            raise
        built.timings["serve"] = time.monotonic() - started
        return built

    async def _ready(self, process: asyncio.subprocess.Process, port: int, log: Path) -> None:
        deadline = time.monotonic() + self.ready_timeout
        while time.monotonic() < deadline:
            if process.returncode is not None:
                raise BuildFailed(f"the server exited with {process.returncode}: {_tail(log)}")
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                await asyncio.sleep(0.25)
                continue
            writer.close()
            return
        raise BuildFailed(f"the server did not open port {port} in {self.ready_timeout:.0f} s")


def _tail(log: Path) -> str:
    try:
        text = log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "(no log)"
    return text[-LOG_TAIL:].strip() or "(empty log)"
