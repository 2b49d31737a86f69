"""One progress bar for the jobs that run many items (conversations, mutants): items done
of the total, elapsed time, and a count of the items that went one way (failed, killed)."""

from __future__ import annotations

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from sparring.cli._app import console


class CountingProgress:
    """``with CountingProgress("conversations", "failed") as bar: bar.start(n);
    bar.advance(failed=True)``; shown once ``start`` is called.

    A job that runs stages one after another (``run``: explore, simulate, check) starts
    the bar once per stage: each ``start`` replaces the previous stage's bar (never two
    bars drawn at once), and ``items`` may name the stage (``"{stage}"``, filled from
    ``stage``)."""

    def __init__(self, items: str, counted: str) -> None:
        self.items = items
        self.current = "items"
        columns = (
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn(f"{{task.fields[count]}} {counted}"),
        )
        self.bar = Progress(*columns, console=console, transient=False)
        self.task: TaskID | None = None
        self.count = 0

    def __enter__(self) -> CountingProgress:
        return self

    def stage(self, name: str) -> None:
        """The job moved to stage ``name`` (the label of the next bar, with ``{stage}``)."""
        self.current = name

    def start(self, todo: int) -> None:
        """Show the bar for ``todo`` items (in place of an earlier stage's bar)."""
        if self.task is None:
            self.bar.start()
        else:
            self.bar.remove_task(self.task)
        self.count = 0
        label = self.items.format(stage=self.current)
        self.task = self.bar.add_task(label, total=todo, count=0)

    def advance(self, counted: bool) -> None:
        """One item done; ``counted`` when it went the counted way."""
        self.count += counted
        if self.task is not None:
            self.bar.update(self.task, advance=1, count=self.count)

    def __exit__(self, *_exc: object) -> None:
        if self.task is not None:  # a bar never shown leaves no empty line behind
            self.bar.stop()


def percent(share: float | None) -> str:
    """A share in [0, 1] as a whole percentage; ``—`` when there is none."""
    return "—" if share is None else f"{share:.0%}"
