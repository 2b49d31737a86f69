"""The ``sparring`` command: thin; parses arguments and calls the packages.

Each command group lives in its own module and registers itself on ``app``; the root group
imports a command's module only when that command is used (``_lazy.COMMANDS``), so
``import sparring.cli`` and ``sparring --help`` import no job package.
"""

from __future__ import annotations

from sparring.cli._app import app, main
from sparring.cli._lazy import COMMANDS, HEAVY_MODULES, CommandEntry, load_all

__all__ = ["COMMANDS", "HEAVY_MODULES", "CommandEntry", "app", "load_all", "main"]
