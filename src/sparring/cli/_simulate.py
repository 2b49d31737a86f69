"""``sparring simulate``: run user profiles against a chatbot, write a run directory."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from sparring import __version__
from sparring.cli._app import (
    CacheOption,
    ModelBaseUrlOption,
    ModelOption,
    app,
    console,
    load_model,
)
from sparring.cli._health import exit_if_unhealthy, require_reachable, warn_about_notes
from sparring.connectors import ChatbotConfig, create_connector, load_chatbot_config
from sparring.conversations import (
    ConversationRecord,
    RunManifest,
    RunStore,
    render_summary,
    summarize,
)
from sparring.errors import UserInputError
from sparring.simulate import ConversationSpec, RunnerLimits, SimulationOptions, simulate
from sparring.simulate._health import DEFAULT_MAX_CHATBOT_FAILURE_SHARE
from sparring.simulate._plan import plan_run
from sparring.simulate._repeat import repeat_specs
from sparring.simulate._simulation import SimulatorKind

logger = logging.getLogger(__name__)


@app.command("simulate")
def simulate_command(
    profiles: Annotated[
        list[Path] | None, typer.Argument(help="Profile files or folders (SENSEI format).")
    ] = None,
    chatbot: Annotated[
        Path | None, typer.Option("--chatbot", "-c", help="chatbot.yaml of the chatbot under test.")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Run directory (default runs/<time>).")
    ] = None,
    model: ModelOption = None,
    model_base_url: ModelBaseUrlOption = None,
    simulator: Annotated[
        str | None, typer.Option(help="llm or agenda (default: llm with a model, else agenda).")
    ] = None,
    concurrency: Annotated[int, typer.Option(min=1, help="Conversations at once.")] = 4,
    seed: Annotated[int, typer.Option(help="Seed for variable picks and the simulators.")] = 0,
    resume: Annotated[
        Path | None, typer.Option(help="Finish an interrupted run directory.")
    ] = None,
    cache: CacheOption = False,
    max_turns: Annotated[int, typer.Option(min=1, help="Hard cap on user turns (code 1000).")] = 40,
    repeat_limit: Annotated[
        int, typer.Option(min=0, help="Same reply N times in a row ends it (code 1002; 0 = off).")
    ] = 3,
    max_failure_share: Annotated[
        float,
        typer.Option(
            min=0.0,
            max=1.0,
            help="Exit 1 when more than this share of conversations "
            "got no answer from the chatbot (500/504).",
        ),
    ] = DEFAULT_MAX_CHATBOT_FAILURE_SHARE,
    repeat: Annotated[
        int,
        typer.Option(min=1, help="Run each planned conversation K times (same plan and seed)."),
    ] = 1,
    probe: Annotated[
        bool, typer.Option("--probe/--no-probe", help="Check the chatbot answers before starting.")
    ] = True,
) -> None:
    """Simulate users from PROFILES against the chatbot under test.

    Conversations are written to the run directory as each one ends; with --resume an
    interrupted run is finished without redoing finished conversations. Exits 1 when the
    chatbot cannot be reached, when every conversation failed, or when more than
    --max-failure-share of them got no answer.
    """
    store = RunStore.open(resume) if resume is not None else None
    if store is not None:  # the run's own settings win over the command line's defaults
        manifest = store.manifest
        profiles = [Path(p) for p in manifest.profiles]
        chatbot = Path(manifest.chatbot_path) if manifest.chatbot_path else chatbot
        model, simulator, seed = model or manifest.model, manifest.simulator, manifest.seed
        max_turns = int(manifest.options.get("max_turns", max_turns))
        repeat_limit = int(manifest.options.get("repeat_limit", repeat_limit))
        repeat = int(manifest.options.get("repeat", repeat))
    if not profiles:
        raise UserInputError("give at least one profile file or folder (or --resume RUN_DIR)")
    if chatbot is None:
        raise UserInputError("give the chatbot under test with --chatbot chatbot.yaml")
    kind = _simulator_kind(simulator, model)
    config = load_chatbot_config(chatbot)
    if probe:
        require_reachable(config)
    llm = load_model(model, model_base_url, cache)
    specs, profile_files = asyncio.run(plan_run(profiles, seed=seed, model=llm))
    specs = repeat_specs(specs, repeat)
    if store is None:
        store = RunStore.create(
            out or Path("runs") / datetime.now(UTC).strftime("%Y%m%d-%H%M%S"),
            _manifest(config, chatbot, profile_files, specs, kind, model, seed, concurrency,
                      {"max_turns": max_turns, "repeat_limit": repeat_limit, "repeat": repeat}),
        )  # fmt: skip
    else:
        specs = _still_planned(specs, store)
    limits = RunnerLimits(
        max_turns=max_turns,
        repeat_limit=repeat_limit,
        reply_timeout=float(getattr(config.params, "timeout", 20.0)) + 5.0,
    )
    options = SimulationOptions(simulator=kind, model=llm, concurrency=concurrency, limits=limits)
    finished = store.finished_ids()
    asyncio.run(_run(specs, config, store, options, sum(s.id not in finished for s in specs)))
    summary = summarize(store.iter_records())
    path = store.write_summary(summary)
    render_summary(summary, console)
    console.print(f"[bold]run[/]: {store.path}")
    console.print(f"[bold]summary[/]: {path}")
    warn_about_notes(store.iter_records())
    exit_if_unhealthy(store.iter_records(), max_failure_share)


def _simulator_kind(simulator: str | None, model: str | None) -> SimulatorKind:
    """``llm`` with a model, else ``agenda``, unless asked; refuses ``llm`` without a model."""
    kind = simulator or ("llm" if model else "agenda")
    if kind not in ("llm", "agenda"):
        raise UserInputError(f"--simulator must be llm or agenda, not {kind!r}")
    if kind == "llm" and not model:
        raise UserInputError(
            "the llm user simulator needs a model: set --model (or SPARRING_MODEL)"
        )
    return "llm" if kind == "llm" else "agenda"


def _manifest(
    config: ChatbotConfig,
    chatbot: Path,
    profile_files: list[Path],
    specs: list[ConversationSpec],
    kind: str,
    model: str | None,
    seed: int,
    concurrency: int,
    options: dict[str, Any],
) -> RunManifest:
    """The manifest of a new run: what ``--resume`` needs to finish it (never secrets:
    the connector's params are left out)."""
    now = datetime.now(UTC)
    return RunManifest(
        run_id=now.strftime("%Y%m%d-%H%M%S"),
        created_at=now,
        sparring_version=__version__,
        chatbot=config.model_dump(mode="json", exclude={"params"}),
        chatbot_path=str(chatbot.resolve()),
        profiles=[str(p.resolve()) for p in profile_files],
        simulator=kind,
        model=model,
        seed=seed,
        concurrency=concurrency,
        planned=[s.id for s in specs],
        options=options,
    )


def _still_planned(specs: list[ConversationSpec], store: RunStore) -> list[ConversationSpec]:
    """On resume, the specs the run planned; warns when the profiles changed since."""
    planned = set(store.manifest.planned)
    kept = [s for s in specs if s.id in planned]
    missing = planned - {s.id for s in kept}
    if missing:
        logger.warning(
            "%d planned conversations are no longer in the profiles (changed since the run "
            "started?): %s", len(missing), ", ".join(sorted(missing)[:5]),
        )  # fmt: skip
    return kept


async def _run(
    specs: list[ConversationSpec],
    config: ChatbotConfig,
    store: RunStore,
    options: SimulationOptions,
    todo: int,
) -> None:
    """Run the conversations with a progress bar over the ``todo`` not finished yet."""
    connector = create_connector(config)
    columns = (
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[failed]} failed"),
    )
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task("conversations", total=todo, failed=0)
        failed = 0

        def done(record: ConversationRecord) -> None:
            nonlocal failed
            failed += bool(record.errors)
            progress.update(task, advance=1, failed=failed)

        try:
            await simulate(specs, connector, store, options, on_record=done)
        finally:
            await connector.aclose()
