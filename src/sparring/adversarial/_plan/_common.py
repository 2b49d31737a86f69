"""What the planning modules share: the model-call tag and usage counting."""

from __future__ import annotations

from sparring.types import Generated, ModelUsage

MODULE = "adversarial"
"""The ``module`` tag of every model call of weakness planning."""


def count(usage: ModelUsage, generation: Generated) -> None:
    """Add one call's tokens (when the model reports them) and cost (US dollars) to
    ``usage``."""
    usage.calls += 1
    usage.prompt_tokens += int(getattr(generation, "prompt_tokens", 0) or 0)
    usage.completion_tokens += int(getattr(generation, "completion_tokens", 0) or 0)
    usage.cost += generation.cost
