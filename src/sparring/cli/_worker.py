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


@app.command("worker")
def worker_command(
    broker: BrokerOption = None,
    concurrency: Annotated[
        int, typer.Option(min=1, help="Conversations at once on this worker.")
    ] = 4,
    processes: Annotated[
        int, typer.Option(min=1, help="Pool processes sharing the conversations.")
    ] = 1,
    queues: Annotated[
        list[str] | None, typer.Option("--queues", "-Q", help="Queues to consume (repeatable).")
    ] = None,
) -> None:
    """Run chunks of distributed runs (`simulate --broker`) until stopped (Ctrl-C or
    SIGTERM finish the running chunks first). Needs `pip install "sparring\\[celery]"`; the
    worker reads the test project at the paths the run names, and its own secrets."""
    try:
        from sparring.distributed import Cluster, run_worker
    except ModuleNotFoundError as exc:
        raise UserInputError(
            f'distributed runs need Celery: pip install "sparring[celery]" ({exc})'
        ) from None
    run_worker(
        Cluster.from_env(broker), concurrency=concurrency, processes=processes, queues=queues
    )


def remote_mutants(broker: str, out: Path) -> SettingsRunner:
    """``mutate --broker``: what runs each mutant of the job in ``out`` on the workers."""
    try:
        from sparring.distributed import Cluster
        from sparring.distributed import remote_mutants as remote
    except ModuleNotFoundError as exc:
        raise UserInputError(
            f'--broker needs Celery: pip install "sparring[celery]" ({exc})'
        ) from None
    return remote(Cluster.from_env(broker), out)


def remote_simulate(broker: str) -> RemoteConversations:
    """``simulate --broker``: what runs the job's conversations on the workers."""
    try:
        from sparring.distributed import Cluster, RemoteSimulate
    except ModuleNotFoundError as exc:
        raise UserInputError(
            f'--broker needs Celery: pip install "sparring[celery]" ({exc})'
        ) from None
    return RemoteSimulate(Cluster.from_env(broker))
