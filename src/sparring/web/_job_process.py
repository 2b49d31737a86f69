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
It writes on its standard output one JSON line per event of its job (``sparring.jobs``'
``JobEvent``, as it happens) and, once the job has ended, one ``result`` line (status,
verdict, error); ``ProcessExecutor`` hands the events to its watchers
(``sparring.runner.Executor.watch``) and ends each job's stream with one ``Finished`` as
soon as the result line is read, or when the process ended without one.
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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, JsonValue, ValidationError

from sparring.conversations import MANIFEST
from sparring.jobs import JobEvent, JobStatus
from sparring.jobs.events import JOB_EVENT, Finished
from sparring.runner import EventStream

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


RESULT = "result"
"""The ``kind`` of the line a job process writes last: how its job ended."""

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
    stream: EventStream
    status: JobStatus = JobStatus.RUNNING
    error: str = ""
    error_type: str = ""
    stop_requested: bool = False
    reader: threading.Thread | None = None


class ProcessExecutor:
    """An ``Executor`` (``sparring.runner.Executor``) running each job in its own process
    (see the module docstring).

    ``prepare(secrets, roots)`` sets what the next ``submit``/``resume`` gets (the worker
    hands them one submission at a time); ``watch(handle, listener)`` gets the job's
    events as its process writes them, then one ``Finished`` once it has ended."""

    def __init__(
        self, *, stop_grace: float = STOP_GRACE_SECONDS, command: list[str] | None = None
    ) -> None:
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

    def status(self, handle: str) -> JobStatus | None:
        child = self._children.get(handle)
        return child.status if child is not None else None

    def watch(self, handle: str, listener: Callable[[JobEvent], None]) -> None:
        if (child := self._children.get(handle)) is not None:
            child.stream.subscribe(listener)

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
        child = _Child(process, EventStream())
        child.reader = threading.Thread(target=self._read, args=(child,), daemon=True)
        self._children[handle] = child
        child.reader.start()
        return handle

    def _read(self, child: _Child) -> None:
        """The job process's lines: its events handed on as they come, its result ending
        the stream at once (the process may take a moment more to exit)."""
        assert child.process.stdout is not None
        result: dict[str, Any] = {}
        for line in child.process.stdout:
            if (event := _event(line)) is not None and not isinstance(event, Finished):
                child.stream.publish(event)
            elif (found := _result(line)) is not None and not result:
                result = found
                self._ended(child, result)
        code = child.process.wait()
        if child.process.stdin is not None:
            with contextlib.suppress(OSError):
                child.process.stdin.close()
        if not result:
            if not child.stop_requested:
                child.error = f"the job process ended with exit code {code} and no result"
            # after its grace a stopped job's process is ended: what finished is kept
            self._ended(child, {"status": "stopped" if child.stop_requested else "failed"})

    @staticmethod
    def _ended(child: _Child, result: dict[str, Any]) -> None:
        child.error = str(result.get("error") or child.error)
        child.error_type = str(result.get("error_type") or "")
        text = str(result.get("status") or "")
        status = JobStatus(text) if text in set(JobStatus) else JobStatus.FAILED
        child.status = JobStatus.FAILED if status is JobStatus.RUNNING else status
        verdict = str(result.get("verdict") or "") or None
        child.stream.publish(Finished(status=child.status, verdict=verdict))


def _event(line: str) -> JobEvent | None:
    """The job event a job process wrote on ``line`` (``None``: not an event)."""
    try:
        return JOB_EVENT.validate_json(line)
    except ValidationError:
        return None


def _result(line: str) -> dict[str, Any] | None:
    """The result line a job process wrote last (``kind`` ``result``)."""
    try:
        found = json.loads(line)
    except ValueError:
        return None
    return found if isinstance(found, dict) and found.get("kind") == RESULT else None


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
    """The job process: read the spec, run the job, write its events as they happen and
    how it ended (JSON lines)."""
    spec = JobSpec.model_validate_json(sys.stdin.readline())
    _install(spec)
    from sparring.errors import UserInputError

    try:
        _grant(model_keys(spec))
    except UserInputError as exc:  # a key would go where it may not: no work at all
        failed = {"status": "failed", "error": str(exc), "error_type": "UserInputError"}
    else:
        failed = {}
    print(json.dumps({"kind": RESULT, **(failed or _run(spec))}), flush=True)
    return 0


def _run(spec: JobSpec) -> dict[str, str]:
    """Run the spec's job, its events written on standard output as they happen (one
    whole line each, whichever thread of the job emits it); how it ended."""
    from sparring._redact import redact_text
    from sparring.runner import launch, launch_resume

    writing = threading.Lock()

    def write(event: JobEvent) -> None:  # the result line, not Finished, says the end
        if not isinstance(event, Finished):
            with writing:
                sys.stdout.write(event.model_dump_json() + "\n")
                sys.stdout.flush()

    run_dir = Path(spec.run_dir)
    if spec.action == "resume":
        handle = launch_resume(run_dir, on_event=write)
    else:
        handle = launch(spec.job, spec.settings, run_dir, on_event=write)

    def listen() -> None:  # "stop", or the end of input (the server is gone): stop cleanly
        for line in sys.stdin:
            if line.strip() == "stop":
                break
        handle.stop()

    threading.Thread(target=listen, daemon=True).start()
    status, failure, run = handle.join(), handle.error, handle.result
    return {
        "status": str(status),
        "verdict": (run.outcome.verdict or "") if run is not None else "",
        "error": redact_text(str(failure)) if failure is not None else "",
        "error_type": type(failure).__name__ if failure is not None else "",
    }


if __name__ == "__main__":
    sys.exit(main())
