"""The dashboard's jobs each in a process of their own, holding only what the job needs.

``ProcessExecutor`` (the ``Executor`` the dashboard's worker uses) starts, for each job,
``python -m sparring.web._job_process`` with

- an **environment built from nothing**: the few variables Python needs (``PATH``,
  ``LANG``, ``TZ``, ``PYTHONPATH``…, ``KEPT_VARIABLES``) — never the server's
  ``SPARRING_WEB_SECRET_KEY``, Fernet keys or database URL, nor any project secret;
- on its standard input, one JSON ``JobSpec``: the job, its settings, the folders its
  paths may name, the project's secrets (``${NAME}`` reads these only), the hosts each
  may be sent to and the operator's SSRF allow-list.

The child installs the dashboard's execution policy (``sparring._policy``: no code, paths
inside ``roots``, secrets from the spec, each sent only to its hosts), the SSRF guard for
HTTP connectors and, for every other connection it opens (model calls through LiteLLM
included), the socket-level guard (``sparring._ssrf.guard_sockets``); it puts into its
own environment only the model-provider keys its models may send where they will go
(``sparring.llm.key_grants``: the provider's host or one the key's owner stated), and
refuses the job before any work when a key would go elsewhere (an editor's
``model_base_url``). It imports no Django and opens no database.
It writes one JSON line per finished job on its standard output (status, verdict, error).
A line ``stop`` on its standard input asks the job to stop cleanly (resumable); the end
of its standard input (the server died) does the same, so no job outlives its server.

Run the server as an unprivileged user (docs/web.md): the job processes are its children
and run as that user.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import subprocess
import sys
import threading
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, JsonValue

from sparring.conversations import MANIFEST

if TYPE_CHECKING:
    from sparring.llm import KeyGrants

logger = logging.getLogger(__name__)

KEPT_VARIABLES = (
    "PATH",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "TMPDIR",
    "PYTHONPATH",
    "VIRTUAL_ENV",
    "LITELLM_LOCAL_MODEL_COST_MAP",
    "SPARRING_ALLOW_MODEL_REQUESTS",
    "SPARRING_CACHE",
)
"""The server's variables a job process keeps (none holds a secret of the server)."""


STOP_GRACE_SECONDS = 30.0
"""Seconds a job has to stop cleanly after a stop request before its process is ended."""


class JobSpec(BaseModel):
    """What a job process is told on its standard input."""

    action: str  # "submit" or "resume"
    job: str = ""
    settings: dict[str, JsonValue] = {}
    run_dir: str
    roots: list[str]
    secrets: dict[str, str] = {}
    secret_hosts: dict[str, list[str]] = {}
    """The hosts each bound secret may be sent to (``sparring._policy``)."""
    ssrf_allow: list[str] | None = None
    """The operator's allow-list; ``None``: the server installed no SSRF guard."""


def job_environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a job process: ``KEPT_VARIABLES`` of ``base`` (default: this
    process's) and nothing else — the process itself adds the model keys it may use."""
    base = os.environ if base is None else base
    kept = {name: base[name] for name in KEPT_VARIABLES if name in base}
    kept["HOME"] = kept.get("TMPDIR", "/tmp")
    return kept


@dataclass
class _Child:
    process: subprocess.Popen[str]
    status: str = "running"
    verdict: str = ""
    error: str = ""
    error_type: str = ""
    stop_requested: bool = False
    reader: threading.Thread | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


class ProcessExecutor:
    """An ``Executor`` running each job in its own process (see the module docstring).

    ``prepare(secrets, roots)`` sets what the next ``submit``/``resume`` gets (the worker
    runs one job at a time); ``on_event(handle, event)`` receives a ``finished`` event
    (``kind``, ``verdict``) when the job ends."""

    def __init__(
        self,
        on_event: Any = None,
        *,
        stop_grace: float = STOP_GRACE_SECONDS,
        command: list[str] | None = None,
    ) -> None:
        self._on_event = on_event
        self._grace = stop_grace
        self._command = command or [sys.executable, "-m", "sparring.web._job_process"]
        self._children: dict[str, _Child] = {}
        self._secrets: dict[str, str] = {}
        self._roots: list[Path] = []
        self._hosts: dict[str, list[str]] = {}

    def prepare(
        self,
        secrets: Mapping[str, str],
        roots: list[Path],
        hosts: Mapping[str, frozenset[str]] | None = None,
    ) -> None:
        """The secrets, path roots and secrets' bound ``hosts`` of the next job submitted."""
        self._secrets, self._roots = dict(secrets), list(roots)
        self._hosts = {k: sorted(v) for k, v in (hosts or {}).items()}

    def submit(self, job: str, settings: dict[str, JsonValue], run_dir: Path) -> str:
        common = self._common(run_dir)
        spec = JobSpec(action="submit", job=job, settings=settings, **common)
        return self._start(spec)

    def resume(self, run_dir: Path) -> str:
        """Resume the run in ``run_dir`` in a new process; its handle."""
        return self._start(JobSpec(action="resume", **self._common(run_dir)))

    def stop(self, handle: str) -> None:
        """Ask the job to stop cleanly; a job that has not ended ``stop_grace`` seconds
        later (one busy planning, a bot that never answers) has its process ended — what
        finished is kept and the run is ``stopped`` (resumable) either way."""
        child = self._children.get(handle)
        if child is None or child.stop_requested:
            return
        child.stop_requested = True
        if child.process.stdin is not None:
            with contextlib.suppress(BrokenPipeError, ValueError, OSError):
                child.process.stdin.write("stop\n")
                child.process.stdin.flush()
        timer = threading.Timer(self._grace, _end, args=(child.process,))
        timer.daemon = True
        timer.start()

    def status(self, handle: str) -> str | None:
        child = self._children.get(handle)
        return child.status if child is not None else None

    def error(self, handle: str) -> BaseException | None:
        """What the job failed with, as the job process reported it."""
        child = self._children.get(handle)
        if child is None or not child.error:
            return None
        kind = child.error_type if child.error_type.isidentifier() else "JobFailed"
        failure: BaseException = type(kind, (Exception,), {})(child.error)
        return failure

    def _common(self, run_dir: Path) -> dict[str, Any]:
        from sparring._ssrf import installed_policy

        network = installed_policy()
        allow = None
        if network is not None:
            allow = [str(n) for n in network.allow_networks] + sorted(network.allow_hosts)
        return {
            "run_dir": str(run_dir),
            "roots": [str(r) for r in self._roots],
            "secrets": self._secrets,
            "secret_hosts": self._hosts,
            "ssrf_allow": allow,
        }

    def _start(self, spec: JobSpec) -> str:
        handle = uuid.uuid4().hex
        process = subprocess.Popen(
            self._command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=job_environment(),
            text=True,
            cwd=_existing(Path(spec.run_dir)),
        )
        assert process.stdin is not None
        process.stdin.write(spec.model_dump_json() + "\n")
        process.stdin.flush()
        child = _Child(process)
        child.reader = threading.Thread(target=self._read, args=(handle, child), daemon=True)
        self._children[handle] = child
        child.reader.start()
        return handle

    def _read(self, handle: str, child: _Child) -> None:
        assert child.process.stdout is not None
        result: dict[str, Any] = {}
        for line in child.process.stdout:
            try:
                result = json.loads(line)
            except ValueError:
                continue
        code = child.process.wait()
        if child.process.stdin is not None:
            with contextlib.suppress(OSError):
                child.process.stdin.close()
        child.verdict = str(result.get("verdict") or "")
        child.error = str(result.get("error") or "")
        child.error_type = str(result.get("error_type") or "")
        if not result and child.stop_requested:
            result = {"status": "stopped"}  # ended after its grace: what finished is kept
        elif not result:
            child.error = f"the job process ended with exit code {code} and no result"
        if self._on_event is not None and result.get("status") == "finished":
            self._on_event(handle, _Finished(verdict=child.verdict))
        child.status = str(result.get("status") or "failed")


def _end(process: subprocess.Popen[str]) -> None:
    """End a job process that outlived its stop request: SIGTERM, then SIGKILL."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()


def model_keys(spec: JobSpec) -> KeyGrants:
    """The model-provider keys this job's model client may read and where each may go
    (``sparring.llm.key_grants``, for the models its settings name and its
    ``model_base_url``; a resumed run's from its manifest). Raises ``UserInputError`` at
    ``settings.model_base_url`` when a key the project holds would go to a host it may not
    go to."""
    from sparring.errors import Problem, UserInputError
    from sparring.llm import KeyGrants

    job, settings = spec.job, dict(spec.settings)
    if spec.action == "resume":
        manifest = _manifest(Path(spec.run_dir))
        job, settings = str(manifest.get("job") or ""), dict(manifest.get("settings") or {})
    given = [settings.get(name) for name in _model_settings(job)]
    specs = [s for s in given if isinstance(s, str) and s]
    if not specs or not spec.secrets:
        return KeyGrants()
    from sparring.llm import key_grants

    base_url = settings.get("model_base_url")
    hosts = {name: frozenset(bound) for name, bound in spec.secret_hosts.items()}
    grants = key_grants(specs, base_url if isinstance(base_url, str) else None, spec.secrets, hosts)
    if grants.refusals:
        key = "settings.model_base_url"
        raise UserInputError([Problem("", None, key, why) for why in grants.refusals])
    return grants


def _grant(grants: KeyGrants) -> None:
    """Give the model client its keys (this process's environment) and bind each to the
    hosts it may go to (the execution policy, which ``guard_secret_requests`` applies to
    every request and redirect hop)."""
    from dataclasses import replace

    from sparring import _policy

    os.environ.update(grants.environ)
    policy = _policy.current_policy()
    hosts = {**(policy.secret_hosts or {}), **grants.hosts}
    _policy.install_policy(replace(policy, secret_hosts=hosts))


def _model_settings(job: str) -> tuple[str, ...]:
    """The settings of ``job`` that name a model (its ``Needs.models``); none for a job
    that calls no model or is not registered."""
    from sparring.jobs import ModelNeed
    from sparring.runner import find_job

    try:
        needs = getattr(find_job(job), "needs", None)
    except Exception:
        return ()
    if needs is None or needs.model is ModelNeed.NONE:
        return ()
    return tuple(needs.models)


def _manifest(run_dir: Path) -> dict[str, Any]:
    """A run's ``manifest.json`` (``{}``: none, or unreadable)."""
    try:
        found = json.loads((run_dir / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _existing(folder: Path) -> Path | None:
    """``folder`` or its nearest existing parent: the job process's working folder."""
    for candidate in (folder, *folder.parents):
        if candidate.is_dir():
            return candidate
    return None


@dataclass(frozen=True)
class _Finished:
    verdict: str
    kind: str = "finished"


class _RedactingFormatter(logging.Formatter):
    """Log lines with every secret removed (``sparring._redact``)."""

    def format(self, record: logging.LogRecord) -> str:
        from sparring._redact import redact_text

        return redact_text(super().format(record))


def _install(spec: JobSpec) -> None:
    """The dashboard's policies in this job process (see the module docstring)."""
    from sparring import _policy, _redact, _ssrf

    _redact.add_secrets(spec.secrets.values())
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_RedactingFormatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])

    hosts = {name: frozenset(bound) for name, bound in spec.secret_hosts.items()}
    policy = _policy.ExecutionPolicy(run_code=False, secrets=dict(spec.secrets), secret_hosts=hosts)
    _policy.install_policy(policy.confined([Path(r) for r in spec.roots]))
    if spec.ssrf_allow is not None:
        network = _ssrf.NetworkPolicy.from_entries(spec.ssrf_allow)
        _ssrf.install_policy(network)
        _ssrf.guard_sockets(network)
    _ssrf.guard_secret_requests()


def main() -> int:
    """The job process: read the spec, run the job, print how it ended (one JSON line)."""
    spec = JobSpec.model_validate_json(sys.stdin.readline())
    _install(spec)
    from sparring.errors import UserInputError
    from sparring.runner import InProcessExecutor

    try:
        _grant(model_keys(spec))
    except UserInputError as exc:  # a key would go where it may not: no work at all
        failed = {"status": "failed", "error": str(exc), "error_type": "UserInputError"}
        print(json.dumps(failed), flush=True)
        return 0

    verdicts: dict[str, str] = {}

    def on_event(handle: str, event: Any) -> None:
        if getattr(event, "kind", None) == "finished":
            verdicts[handle] = getattr(event, "verdict", None) or ""

    executor = InProcessExecutor(on_event=on_event)
    run_dir = Path(spec.run_dir)
    if spec.action == "resume":
        handle = executor.resume(run_dir)
    else:
        handle = executor.submit(spec.job, spec.settings, run_dir)

    def listen() -> None:  # "stop", or the end of input (the server is gone): stop cleanly
        for line in sys.stdin:
            if line.strip() == "stop":
                break
        executor.stop(handle)

    threading.Thread(target=listen, daemon=True).start()
    status = executor.wait(handle)
    failure = executor.error(handle)
    from sparring._redact import redact_text

    result = {
        "status": str(status),
        "verdict": verdicts.get(handle, ""),
        "error": redact_text(str(failure)) if failure is not None else "",
        "error_type": type(failure).__name__ if failure is not None else "",
    }
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
