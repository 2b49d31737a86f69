"""``sparring adversarial``: the command group of the adversarial job (plan, test, probe,
ask); each subcommand lives in its own ``_adversarial_*`` module and registers on
``adversarial_app``."""

from __future__ import annotations

import typer

from sparring.cli._app import app

adversarial_app = typer.Typer(
    help="Adversarial testing: plan weaknesses, run judge-steered threads, offline probes.",
    no_args_is_help=True,
)
app.add_typer(adversarial_app, name="adversarial")
