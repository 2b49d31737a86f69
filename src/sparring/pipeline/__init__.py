"""sparring.pipeline: the ``run`` job — explore, generate profiles, simulate, check with the
default rule set, measure coverage and write the report, from one command. It sits above
the stages (like the CLI) and uses only their public APIs."""

from sparring.pipeline._job import (
    EXPLORATION,
    PipelineResult,
    RunJob,
    RunSettings,
)

__all__ = [
    "EXPLORATION",
    "PipelineResult",
    "RunJob",
    "RunSettings",
]
