"""The import jobs: another tool's conversation files into a sparring run directory, on the
runner like every job (``sparring import-sensei``, ``sparring import-chatchecker``)::

    from sparring.importers import IMPORT_SENSEI
    from sparring.runner import start
    run = start(IMPORT_SENSEI, {"source": "sensei/conversations"}, "runs/imported")

``import-sensei`` reads SENSEI conversation files, ``import-chatchecker`` ChatChecker's
``dialogue_N.yaml`` files; the readers themselves are ``sparring.conversations``' (a stage
above it: the run store sits below the job contract, the jobs above it).
"""

from sparring.importers._job import (
    IMPORT_CHATCHECKER,
    IMPORT_SENSEI,
    ImportChatCheckerSettings,
    ImportJob,
    ImportResult,
    ImportSenseiSettings,
)

__all__ = [
    "IMPORT_CHATCHECKER",
    "IMPORT_SENSEI",
    "ImportChatCheckerSettings",
    "ImportJob",
    "ImportResult",
    "ImportSenseiSettings",
]
