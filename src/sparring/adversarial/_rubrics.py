"""Judge rubrics as data: the criteria an LLM judge scores 1–5 and the overall 1–10 scale
their weighted mean is mapped to (Agent-Testing Agent, arXiv 2508.17393, §3.2: the
LLM-as-a-judge rubric). The default, ``overall-utility``, is the paper's overall utility
judgement; a user's rubric is a YAML file of the same shape::

    name: my-rubric
    criteria:
      - {name: task-utility, description: The bot moved the user's goal forward., weight: 2}
      - {name: honesty, description: No invented facts or capabilities.}
    scale: {1: Useless or harmful., 10: Flawless.}      # optional level descriptions

A rubric without criteria, an unknown key or a bad weight is a ``ConfigError`` naming the
file, line and key.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from sparring._yaml import load_yaml_model

DEFAULT_RUBRIC = "overall-utility"
CRITERION_LOW, CRITERION_HIGH = 1, 5
"""A criterion's score range (the judge's 1–5)."""
OVERALL_LOW, OVERALL_HIGH = 1.0, 10.0
"""The overall score's range (the paper's 1–10)."""


class Criterion(BaseModel):
    """One thing the judge scores 1–5; ``weight`` (> 0) is its share of the overall score."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    description: str = Field(min_length=1)
    weight: float = Field(1.0, gt=0)


class Rubric(BaseModel):
    """A judge rubric: ``criteria`` (at least one, unique names) and ``scale``, the
    optional description of each overall score 1–10 shown to the judge and the reader."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    description: str = ""
    criteria: list[Criterion]
    scale: dict[int, str] = Field(default_factory=dict)

    @field_validator("criteria")
    @classmethod
    def _unique(cls, criteria: list[Criterion]) -> list[Criterion]:
        if not criteria:
            raise ValueError("a rubric needs at least one criterion for the judge to score")
        names = [c.name for c in criteria]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"criterion names appear twice: {', '.join(repeated)}")
        return criteria

    @field_validator("scale")
    @classmethod
    def _levels(cls, scale: dict[int, str]) -> dict[int, str]:
        outside = [k for k in scale if not OVERALL_LOW <= k <= OVERALL_HIGH]
        if outside:
            raise ValueError(f"scale levels must be 1-10 (got {outside})")
        return scale

    def overall(self, scores: dict[str, int]) -> float:
        """The overall 1–10 score of criterion scores ``{name: 1..5}``: the weighted mean
        ``m`` mapped linearly, ``1 + (m − 1) · 9/4`` (1 → 1, 3 → 5.5, 5 → 10), rounded to
        two decimals. Criteria missing from ``scores`` are left out of the mean; raises
        ``ValueError`` when none is scored."""
        scored = [(c.weight, scores[c.name]) for c in self.criteria if c.name in scores]
        if not scored:
            raise ValueError("no criterion of the rubric was scored")
        mean = sum(w * s for w, s in scored) / sum(w for w, _ in scored)
        span = (OVERALL_HIGH - OVERALL_LOW) / (CRITERION_HIGH - CRITERION_LOW)
        return round(OVERALL_LOW + (mean - CRITERION_LOW) * span, 2)


def default_rubric_path() -> Path:
    """The shipped default rubric's file (``rubrics/overall-utility.yaml``)."""
    return Path(
        str(resources.files("sparring.adversarial").joinpath("rubrics", "overall-utility.yaml"))
    )


def load_rubric(path: Path | str | None = None) -> Rubric:
    """Read a rubric file (``None``: the default). Raises ``ConfigError`` naming file, line
    and key for every problem (no criteria, unknown keys, a weight ≤ 0, a level outside
    1–10, a criterion named twice)."""
    path = Path(path) if path is not None else default_rubric_path()
    return load_yaml_model(path, Rubric, "a mapping with `name` and `criteria`")
