"""The dashboard: ``sparring web`` (a Django 5.2 application inside the package).

Install with ``pip install ".[web]"`` in a clone. Importing this package does not import
Django; the functions below configure it when called. See docs/web.md.

- ``serve(host, port, open_browser=True)`` — migrate, create the first owner, print the
  one-time sign-in link and serve (waitress) with the in-process worker. Raises
  ``UserInputError`` on a non-loopback host without production settings.
- ``check_host(host)`` — raises ``UserInputError`` when ``host`` is not loopback and the
  production settings are incomplete (what ``serve`` checks first).
- ``check_deploy()`` — Django's deployment checks on the production settings.
- ``rotate_keys()`` — re-encrypt every stored secret with the newest Fernet key.
- ``import_runs(paths, project_id)`` — index run directories the CLI made in a project.
- ``configure(loopback=…)`` — set Django up with the dashboard's settings (tests, scripts).
"""

from __future__ import annotations

from sparring.web._config import check_host
from sparring.web._serve import check_deploy, configure, import_runs, rotate_keys, serve

__all__ = ["check_deploy", "check_host", "configure", "import_runs", "rotate_keys", "serve"]
