"""``sparring worker``: a Celery worker for distributed runs (docs/distributed.md)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from sparring.cli._app import app
from sparring.errors import UserInputError

if TYPE_CHECKING:  # the worker command imports no job package until it runs
    from sparring.mutation import SettingsRunner
    from sparring.simulate import RemoteConversations

BrokerOption = Annotated[
    str | None,
    typer.Option(
        "--broker",
        envvar="SPARRING_BROKER_URL",
        help="Celery broker URL (redis://HOST:PORT/DB or amqp://…) of distributed runs: "
        "jobs enqueue their conversations or mutants there for `sparring worker`s.",
        show_envvar=True,
    ),
]


InProcessOption = Annotated[
    bool,
    typer.Option(
        "--in-process",
        help="Run here even when SPARRING_BROKER_URL is set (ignore the broker).",
    ),
]


@app.command("worker")
def worker_command(
    broker: BrokerOption = None,
    concurrency: Annotated[
        int, typer.Option(min=1, help="Conversations at once on this worker.")
    ] = 4,
    processes: Annotated[
        int | None,
        typer.Option(
            min=1, help="Pool processes sharing them (default: one per chunk running at once)."
        ),
    ] = None,
    queues: Annotated[
        list[str] | None, typer.Option("--queues", "-Q", help="Queues to consume (repeatable).")
    ] = None,
    name: Annotated[
        str | None,
        typer.Option("--name", help="Node name (default sparring-<pid>@<host>, unique)."),
    ] = None,
    allow_root: Annotated[
        list[Path] | None,
        typer.Option(
            "--allow-root",
            help="Folder whose files runs may name: profiles, chatbot.yaml, rules, projects "
            "(repeatable; default the current folder).",
        ),
    ] = None,
    allow_serve_command: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-serve-command", help="A serve command mutate runs may use (repeatable)."
        ),
    ] = None,
    allow_model_base_url: Annotated[
        list[str] | None,
        typer.Option("--allow-model-base-url", help="A model base URL runs may use (repeatable)."),
    ] = None,
) -> None:
    """Run chunks of distributed runs (`simulate --broker`) until stopped (Ctrl-C or
    SIGTERM finish the running chunks first). Needs `pip install ".\\[celery]"` (in a clone); the
    worker reads the test project at the paths the run names (under --allow-root), and its
    own secrets; it runs no command and uses no model base URL it was not allowed."""
    import shlex

    try:
        from sparring.distributed import Cluster, WorkerPolicy, run_worker
    except ModuleNotFoundError as exc:
        raise UserInputError(
            f'distributed runs need Celery: pip install ".[celery]" in a clone ({exc})'
        ) from None
    cluster = Cluster.from_env(broker)
    policy = WorkerPolicy(
        roots=tuple(p.resolve() for p in allow_root or [Path.cwd()]),
        serve_commands=tuple(tuple(shlex.split(c)) for c in allow_serve_command or []),
        model_base_urls=tuple(allow_model_base_url or []),
    )
    run_worker(
        cluster,
        concurrency=concurrency,
        processes=processes,
        queues=queues,
        name=name,
        policy=policy,
    )


def remote_mutants(broker: str, out: Path) -> SettingsRunner:
    """``mutate --broker``: what runs each mutant of the job in ``out`` on the workers."""
    try:
        from sparring.distributed import Cluster, check_cluster
        from sparring.distributed import remote_mutants as remote
    except ModuleNotFoundError as exc:
        raise UserInputError(
            f'--broker needs Celery: pip install ".[celery]" in a clone ({exc})'
        ) from None
    cluster = Cluster.from_env(broker)
    check_cluster(cluster)
    return remote(cluster, out)


def remote_simulate(broker: str) -> RemoteConversations:
    """``simulate --broker``: what runs the job's conversations on the workers."""
    try:
        from sparring.distributed import Cluster, RemoteSimulate, check_cluster
    except ModuleNotFoundError as exc:
        raise UserInputError(
            f'--broker needs Celery: pip install ".[celery]" in a clone ({exc})'
        ) from None
    cluster = Cluster.from_env(broker)
    check_cluster(cluster)
    return RemoteSimulate(cluster)
