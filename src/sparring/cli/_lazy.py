"""The root command group: a command's module is imported only when that command runs.

``sparring --help`` lists every command from ``COMMANDS`` (name, modules, one line of
help) without importing a job package; ``sparring simulate …`` imports only
``sparring.cli._simulate`` and what it needs. So ``import sparring.cli`` costs Typer,
Rich and pydantic, not scikit-learn, spaCy, NetworkX or LiteLLM (``benchmarks/
bench_startup.py`` measures it; ``tests/test_startup.py`` keeps it so).

Adding a command: write its module under ``sparring.cli`` (registering on ``app`` as
today) and add one ``CommandEntry`` here; ``tests/test_startup.py`` fails when a
registered command is missing from ``COMMANDS`` or its line of help differs from the
command's own.
"""

from __future__ import annotations

import difflib
import functools
import importlib
from dataclasses import dataclass
from typing import Any

import typer.main
from typer import _click as click  # Typer vendors Click; its groups take these types
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption


@dataclass(frozen=True)
class CommandEntry:
    """A top-level command (or command group): its ``name``, the ``sparring.cli`` modules
    that register it (imported in order), and ``summary``, the line ``--help`` shows (the
    first paragraph of the command's help)."""

    name: str
    modules: tuple[str, ...]
    summary: str


COMMANDS: tuple[CommandEntry, ...] = (
    CommandEntry(
        "connectors",
        ("_connectors",),
        "List the connectors to chatbots and their parameters.",
    ),
    CommandEntry(
        "chat",
        ("_connectors",),
        "Talk to the chatbot under test yourself: one line per message, /quit or EOF ends.",
    ),
    CommandEntry(
        "import-connector",
        ("_connectors",),
        "Convert a SENSEI or TRACER connector description into a chatbot.yaml.",
    ),
    CommandEntry(
        "validate",
        ("_profiles",),
        "Check user files; print every problem (file:line \\[key]) or OK per file.",
    ),
    CommandEntry(
        "schema",
        ("_profiles",),
        "Print the JSON Schema of a file format (for editors and CI).",
    ),
    CommandEntry(
        "simulate",
        ("_simulate",),
        "Simulate users from PROFILES (and/or --persona files) against the chatbot under test.",
    ),
    CommandEntry("check", ("_check",), "Check conversations against rules."),
    CommandEntry(
        "explore",
        ("_explore",),
        "Explore the chatbot: probe its languages and fallback, talk to it (offline: follow "
        "every button and announced option; with --model: TRACER's exploration sessions), and "
        "write explore/model.json, the workflow graph, the exploration conversations and "
        "explore/profiles/*.yaml into the run directory. With --resume, a stopped run's "
        "sessions are played again from their records and the exploration goes on. Exit 1 "
        "when the chatbot cannot be reached, or failed in most exploration conversations "
        "(what was learnt is kept), 3 when stopped.",
    ),
    CommandEntry(
        "run",
        ("_run",),
        "Test a chatbot end to end: explore it, generate profiles from what was found, "
        "simulate them, check the conversations with the default rule set (and --rules), "
        "measure coverage of the explored functionalities, and write the report. With "
        "--resume, a stopped run goes on from what it kept.",
    ),
    CommandEntry(
        "report",
        ("_report",),
        "Write RUN's report: one self-contained HTML file (verdict, failures with excerpts, "
        "rule results, response-time and cost plots, a page per conversation). Exit 2 when "
        "RUN is not a run directory or a record cannot be read.",
    ),
    CommandEntry(
        "diff",
        ("_diff",),
        "Compare NEW with BASELINE: rules newly failing, fixed or flaky, conversations whose "
        "verdicts changed (with the turns that differ), response time p50/p95 and cost.",
    ),
    CommandEntry(
        "evaluate",
        ("_evaluate",),
        "Evaluate a run: breakdowns (per chatbot turn), ratings (per conversation), "
        "statistics. `sparring evaluate RUN [--model M]` runs all that the settings allow.",
    ),
    CommandEntry(
        "personas",
        ("_personas",),
        "Persona files: simulated users with a personality and a task.",
    ),
    CommandEntry(
        "metamorphic",
        ("_metamorphic",),
        "Perturb the SEEDS' dialogues (MORTAR's round shuffle, reduction, duplication and "
        "their mixes; METAL's single-turn noise), replay the follow-ups against the chatbot, "
        "and check the metamorphic relations MR1-MR4 and the exact values.",
    ),
    CommandEntry(
        "adversarial",
        ("_adversarial_plan", "_adversarial_test", "_adversarial_probe"),
        "Adversarial testing: plan weaknesses, run judge-steered threads, offline probes.",
    ),
    CommandEntry(
        "mutate",
        ("_mutate",),
        "Mutation testing: build and serve each mutant of the project, run the same profiles "
        "(same seed) and rules as on the original, and count the mutants the rules kill.",
    ),
    CommandEntry(
        "import-sensei",
        ("_conversations",),
        "Import SENSEI conversation files into a new sparring run directory.",
    ),
    CommandEntry(
        "import-chatchecker",
        ("_conversations",),
        "Import ChatChecker dialogue files (dialogue_N.yaml) into a new sparring run directory.",
    ),
    CommandEntry(
        "export-sensei",
        ("_conversations",),
        "Export conversations as SENSEI conversation files (three YAML documents each).",
    ),
    CommandEntry(
        "web",
        ("_web",),
        "The dashboard: projects, runs from the browser, live progress, tokens, keys.",
    ),
    CommandEntry(
        "worker",
        ("_worker",),
        "Run chunks of distributed runs (`simulate --broker`) until stopped (Ctrl-C or "
        'SIGTERM finish the running chunks first). Needs `pip install ".\\[celery]"` (in a clone); '
        "the worker reads the test project at the paths the run names (under --allow-root), "
        "and its own secrets; it runs no command and uses no model base URL it was not "
        "allowed.",
    ),
    CommandEntry(
        "bench",
        ("_bench",),
        "Benchmark sparring's judges on public data sets.",
    ),
)
_BY_NAME = {entry.name: entry for entry in COMMANDS}

HEAVY_MODULES = frozenset(
    {
        "celery",
        "django",
        "graphviz",
        "jinja2",
        "lexical_diversity",
        "lingua",
        "litellm",
        "matplotlib",
        "networkx",
        "numpy",
        "pandas",
        "scipy",
        "sentence_transformers",
        "sklearn",
        "spacy",
        "torch",
        "vaderSentiment",
    }
)
"""Top-level packages that take tens of milliseconds to seconds to import: only the code
that uses one imports it (in the function, or behind a module ``__getattr__``), so
``import sparring.cli``, ``sparring --help`` and ``sparring validate`` load none of them."""


def load(name: str) -> None:
    """Import the modules that register command ``name`` (a no-op when unknown or loaded)."""
    entry = _BY_NAME.get(name)
    for module in entry.modules if entry else ():
        importlib.import_module(f"sparring.cli.{module}")


def load_all() -> None:
    """Import every command module (tests, documentation and the bad-input walk use it)."""
    for entry in COMMANDS:
        load(entry.name)


class LazyGroup(TyperGroup):
    """A Typer group whose commands come from ``COMMANDS`` and are built on first use.

    While help is being written (``format_help``) a command not yet loaded is shown
    from its ``CommandEntry`` — a bare ``click.Command`` with that line of help — so
    ``sparring --help`` imports nothing; any other lookup (running the command, its own
    ``--help``, shell completion) imports its modules and builds the real command."""

    _listing = False

    def list_commands(self, ctx: click.Context) -> list[str]:
        listed = [entry.name for entry in COMMANDS]
        return listed + [name for name in super().list_commands(ctx) if name not in _BY_NAME]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            show_flags_as_flags(command, ctx)
            return command
        if cmd_name not in _BY_NAME:
            return None
        if self._listing:
            return TyperCommand(cmd_name, help=_BY_NAME[cmd_name].summary)
        load(cmd_name)
        from sparring.cli._app import app

        built = typer.main.get_group(app).commands.get(cmd_name)
        if built is not None:
            show_flags_as_flags(built, ctx)
            self.add_command(built, cmd_name)
        return built

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """Click's, with the nearest commands offered for a mistyped name (``sparring
        simulat`` → ``No such command 'simulat'. Did you mean 'simulate'?``)."""
        name = args[0] if args else ""
        if args and not name.startswith("-") and self.get_command(ctx, name) is None:
            close = difflib.get_close_matches(name, self.list_commands(ctx), n=3, cutoff=0.6)
            if close:
                offered = " or ".join(repr(option) for option in close)
                ctx.fail(f"No such command {name!r}. Did you mean {offered}?")
        return super().resolve_command(ctx, args)

    def format_help(self, ctx: click.Context, formatter: Any) -> None:
        show_flags_as_flags(self, ctx, deep=False)
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


def show_flags_as_flags(command: click.Command, ctx: click.Context, *, deep: bool = True) -> None:
    """Show ``command``'s flags (``--cache``, ``--probe/--no-probe``, ``--help``) in its
    help without a value type: Typer 0.29's Rich help prints ``<bool>`` beside every flag,
    as if it took a value. With ``deep``, the sub-commands of a group too."""
    help_option = command.get_help_option(ctx)
    for param in [*command.params, *([help_option] if help_option else [])]:
        if isinstance(param, TyperOption) and (param.is_flag or param.count):
            param.metavar = ""
        elif isinstance(param, TyperOption | TyperArgument) and param.type_descriptor.is_list:
            param.display_type = functools.partial(_repeated, param.display_type)  # type: ignore[method-assign]
    if deep and isinstance(command, TyperGroup):
        for sub in command.commands.values():
            show_flags_as_flags(sub, ctx)


def _repeated(display_type: Any, ctx: click.Context) -> str:
    """A list parameter's type as its items' type, repeated (``<path>…``), where Typer
    0.29 shows Python's spelling (``<list[Path]>``)."""
    shown = str(display_type(ctx))
    if shown.startswith("<list[") and shown.endswith("]>"):
        inner = shown[len("<list[") : -len("]>")]
        return f"<{inner.lower() if inner in ('Path', 'str', 'int', 'float') else inner}>…"
    return shown
