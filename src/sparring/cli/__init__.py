"""The ``sparring`` command: thin; parses arguments and calls the packages.

Each command group lives in its own module and registers itself on ``app`` here.
"""

from __future__ import annotations

from sparring.cli import (  # noqa: F401  (registration)
    _adversarial,
    _adversarial_plan,
    _adversarial_probe,
    _adversarial_test,
    _bench,
    _check,
    _connectors,
    _conversations,
    _diff,
    _evaluate,
    _explore,
    _metamorphic,
    _mutate,
    _personas,
    _profiles,
    _report,
    _run,
    _simulate,
    _web,
    _worker,
)
from sparring.cli._app import app, main

__all__ = ["app", "main"]
