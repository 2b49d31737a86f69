"""The execution policy: which features of a user's files this process lets run.

On a person's own machine every feature of sparring is theirs: a ``python`` connector, a
profile's generator function, a rule file's ``functions:``, any path. A server that runs
jobs for other people (``sparring web`` and the worker processes it starts) installs a
stricter ``ExecutionPolicy`` (``install_policy``, like ``sparring._ssrf``), and every
loader asks it — always on the parsed, typed configuration, never on the text, so no YAML
spelling (flow style, quoted keys, anchors and merge keys, tags, escapes, folded lines)
changes the answer:

- **code** (``run_code`` false): the connector registry refuses a connector registered
  with ``runs_code`` (``python``), the profile loader a ``data: {file: …}`` generator,
  the rules loader a file's ``functions:`` (``trust_functions`` or not), and the model
  loader nothing (a ``scripted:`` script is data; its path is checked below);
- **paths** (``roots``): every file a user's file or setting names — a scripted script,
  ``model: scripted:FILE``, a ChatChecker ``info`` file, path settings — must resolve
  (symbolic links followed) inside one of ``roots``; ``None`` leaves paths unconfined;
- **secrets** (``secrets``): ``${NAME}`` in a connector's parameters is filled from this
  mapping only (the project's secrets), never from the process environment, and
  ``secret_hosts`` names the hosts each secret may be sent to — a secret it does not
  name may be sent nowhere (``secret_refusal``).

Each refusal is a ``Problem`` located at the file, line and key of what asked for it,
returned by the ``*_problem`` methods (loaders that collect problems) or raised as a
``ConfigError`` by ``require_*``. The CLI installs no policy.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from sparring.errors import ConfigError, Problem


@dataclass(frozen=True)
class ExecutionPolicy:
    """What a process lets a user's files do (see the module docstring).

    ``run_code``: whether features that run the user's Python may run; ``roots``: folders
    (resolved) every path must lie in, ``None`` for anywhere; ``secrets``: the mapping
    ``${NAME}`` reads, ``None`` for the process environment; ``secret_hosts``: for each
    secret name, the host names it may be sent to — a name absent may be sent nowhere;
    ``None`` (the CLI) binds no secret."""

    run_code: bool = True
    roots: tuple[Path, ...] | None = None
    secrets: Mapping[str, str] | None = None
    secret_hosts: Mapping[str, frozenset[str]] | None = None

    def confined(self, roots: list[Path] | tuple[Path, ...]) -> ExecutionPolicy:
        """This policy with paths confined to ``roots`` (resolved now)."""
        return replace(self, roots=tuple(Path(r).resolve() for r in roots))

    def code_problem(self, feature: str, file: str, line: int | None, key: str) -> Problem | None:
        """The refusal of ``feature`` (e.g. "the python connector") asked for at
        ``file:line`` ``key``; ``None`` when code may run."""
        if self.run_code:
            return None
        message = f"{feature} runs code on the server: refused here (the server's policy)"
        return Problem(file, line, key, message)

    def path_problem(self, path: Path, file: str, line: int | None, key: str) -> Problem | None:
        """The refusal of ``path`` (named at ``file:line`` ``key``) when it does not
        resolve, links followed, inside ``roots``; ``None`` when it does (or paths are not
        confined). Says nothing of whether the path exists."""
        if self.roots is None or inside(path, self.roots):
            return None
        message = f"{str(path)!r} is outside the project's files: refused here"
        return Problem(file, line, key, message)

    def secret_refusal(self, name: str, host: str) -> str | None:
        """Why the secret ``name`` may not be sent to ``host`` (``None``: it may, or no
        secret is bound here): it is bound to other hosts, or to none."""
        if self.secret_hosts is None:
            return None
        hosts = self.secret_hosts.get(name, frozenset())
        if host.lower().rstrip(".") in hosts or ANY_HOST in hosts:
            return None
        if not hosts:
            return (
                f"the secret {name} has no hosts: its owner states where it may be sent "
                "(the secrets page, Hosts) before a run may send it"
            )
        return f"the secret {name} may be sent only to {', '.join(sorted(hosts))}, not {host}"

    def require_code(self, feature: str, file: str, line: int | None, key: str) -> None:
        """Raise ``ConfigError`` at ``file:line`` ``key`` when ``feature`` may not run."""
        if (problem := self.code_problem(feature, file, line, key)) is not None:
            raise ConfigError(problem)

    def require_path(self, path: Path, file: str, line: int | None, key: str) -> Path:
        """``path``, or ``ConfigError`` at ``file:line`` ``key`` when it is outside
        ``roots``."""
        if (problem := self.path_problem(path, file, line, key)) is not None:
            raise ConfigError(problem)
        return path


def inside(path: Path, roots: tuple[Path, ...]) -> bool:
    """Whether ``path`` resolves (symbolic links followed, ``..`` removed; a link loop is
    outside) to one of ``roots`` or below one."""
    try:
        return any(resolved_inside(Path(path).expanduser(), root) is not None for root in roots)
    except (OSError, RuntimeError):  # a symbolic-link loop (RuntimeError before 3.13)
        return False


def resolved_inside(path: Path | str, root: Path | str) -> Path | None:
    """``path`` resolved (symbolic links followed; relative to the working folder) when it
    is ``root`` resolved or inside it; ``None`` when it leads outside. Raises
    ``RuntimeError`` or ``OSError`` for a symbolic-link loop (``sparring._files.confine``
    says so)."""
    resolved = Path(path).resolve()
    base = Path(root).resolve()
    return resolved if resolved == base or base in resolved.parents else None


ANY_HOST = "*"
"""In ``secret_hosts``, a secret sent wherever its client sends it: only a model key given
no hosts for a provider whose endpoint LiteLLM alone knows (``sparring.llm.key_grants``);
an owner cannot state it (host names only)."""

UNRESTRICTED = ExecutionPolicy()
"""The policy of a process that installed none: everything is the user's own."""

_installed: ExecutionPolicy = UNRESTRICTED
_scoped: contextvars.ContextVar[ExecutionPolicy | None] = contextvars.ContextVar(
    "sparring_execution_policy", default=None
)


def install_policy(policy: ExecutionPolicy | None) -> None:
    """Make ``policy`` this process's (``None``: ``UNRESTRICTED`` again). Called by
    servers and their workers at start, never by the CLI."""
    global _installed
    _installed = policy or UNRESTRICTED


def current_policy() -> ExecutionPolicy:
    """The policy in force here: one ``scoped`` in this context, else the process's."""
    return _scoped.get() or _installed


@contextmanager
def scoped(policy: ExecutionPolicy) -> Iterator[ExecutionPolicy]:
    """``policy`` in force in this context (this thread or task) while the block runs,
    e.g. a server validating one file in a temporary folder."""
    token = _scoped.set(policy)
    try:
        yield policy
    finally:
        _scoped.reset(token)
