"""``sparring bench dbdc`` as a library function: breakdown detectors scored on DBDC
dialogues, or on a run's imported annotations, with DBDC's metrics."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import Field

from sparring.conversations import is_run_directory
from sparring.errors import Problem, UserInputError
from sparring.evaluate._dbdc import load_dbdc
from sparring.evaluate._dbdc_metrics import DbdcMetrics, evaluate_on_dbdc
from sparring.evaluate._detectors import make_detector
from sparring.evaluate._run_labels import read_annotation_labels, run_dialogues
from sparring.jobs import JobSettings
from sparring.llm import CACHE_HELP, MODEL_BASE_URL_HELP, MODEL_HELP
from sparring.types import TextModel

DEFAULT_BENCH_DETECTORS = ("offline", "always")
"""What ``bench dbdc`` scores without ``--detector``: the shipped offline detector and the
majority baseline."""


class BenchSettings(JobSettings):
    """What ``sparring bench dbdc`` is asked: the data set ``path``, the ``detectors``
    (``BREAKDOWN_DETECTORS`` names), where to write the figures (``json_file``), a team's
    own ``labels`` for a run directory, and the model of the detectors that need one."""

    path: Path = Field(
        description="A DBDC folder (searched for *.log.json), one file, or a run directory "
        "whose imported breakdown annotations (import-chatchecker) are the labels."
    )
    detectors: list[str] = Field(
        default_factory=lambda: list(DEFAULT_BENCH_DETECTORS),
        min_length=1,
        description="Detector name (repeatable; default: offline and always).",
    )
    json_file: Path | None = Field(None, description="Write every figure as JSON.")
    labels: Path | None = Field(
        None,
        description="With a run directory: a team's own labels, the dashboard's annotations "
        "export (.json or .csv; a chatbot turn marked wrong = breakdown).",
    )
    model: str | None = Field(None, description=MODEL_HELP)
    model_base_url: str | None = Field(None, description=MODEL_BASE_URL_HELP)
    cache: bool = Field(False, description=CACHE_HELP)


@dataclass(frozen=True)
class DbdcBench:
    """Detectors scored on one data set: ``results`` (one ``DbdcMetrics`` per detector,
    in the order asked), ``dialogues`` (how many), ``imported`` (the data set is a run:
    its imported annotations — ChatChecker's silver labels — or ``labels``, a team's own,
    rather than DBDC's)."""

    results: list[DbdcMetrics]
    dialogues: int
    imported: bool
    labels: Path | None = None

    @property
    def title(self) -> str:
        """What the labels are: ``DBDC``, ``imported annotations (silver)`` or the team's
        labels file."""
        if self.labels is not None:
            return f"the team's labels ({self.labels})"
        return "imported annotations (silver)" if self.imported else "DBDC"


async def bench_dbdc(
    path: Path,
    detectors: Sequence[str] = DEFAULT_BENCH_DETECTORS,
    model: TextModel | None = None,
    labels: Path | None = None,
) -> DbdcBench:
    """Score the breakdown detectors named ``detectors`` (``BREAKDOWN_DETECTORS`` names;
    a plug-in's too) on ``path``: a DBDC folder (searched for ``*.log.json``), one DBDC
    file, or a run directory whose imported breakdown annotations are the labels
    (breakdown = X, none = O) — or, with ``labels``, a team's own (the dashboard's
    annotations export, ``read_annotation_labels``: a turn marked wrong = X). Metrics as
    DBDC and ChatChecker (Sec. 5) report them.

    Raises ``UserInputError`` for an unknown detector, a file that does not read, a run
    without imported annotations (or without a turn in ``labels``), ``labels`` without a
    run directory, and ``ModelRequired`` for a detector that needs ``model`` without
    one."""
    imported = is_run_directory(path)
    if labels is not None and not imported:
        raise UserInputError(Problem(str(labels), None, "--labels", "needs a run directory"))
    given = read_annotation_labels(labels) if labels is not None else None
    dialogues = run_dialogues(path, given) if imported else load_dbdc(path)
    if imported and not dialogues:
        message = (
            "no annotated chatbot turn of this run in the labels"
            if labels is not None
            else "no imported breakdown annotations in this run (import-chatchecker keeps them)"
        )
        raise UserInputError(Problem(str(path), None, "", message))
    built = [make_detector(name, model=model) for name in detectors]
    results = [await evaluate_on_dbdc(detector, dialogues) for detector in built]
    return DbdcBench(results, len(dialogues), imported, labels)
