"""The Django application of the dashboard (label ``sparring_web``)."""

from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from django.db.backends.signals import connection_created


def _sqlite_wal(sender: Any, connection: Any, **kwargs: Any) -> None:
    """SQLite in WAL mode: pages read while the in-process worker writes. A shared-cache
    database (the tests' in-memory one) locks tables instead, and a reader's table lock
    fails a writer at once ("database table is locked", no busy timeout): there readers
    take no table locks (``read_uncommitted``, which a file database ignores)."""
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA read_uncommitted=true")


class WebConfig(AppConfig):
    name = "sparring.web"
    label = "sparring_web"
    verbose_name = "sparring dashboard"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        connection_created.connect(_sqlite_wal, dispatch_uid="sparring_web_sqlite_wal")
        from sparring.web import _audit, _local

        _audit.connect_signals()
        _local.connect_signals()
