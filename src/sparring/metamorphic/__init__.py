"""The ``metamorphic`` job: multi-turn metamorphic testing (MORTAR, Guo et al., arXiv
2412.15557) of any chatbot behind the connectors (docs/metamorphic.md).

    settings = MetamorphicSettings(seeds=Path("runs/x"), chatbot=Path("chatbot.yaml"))
    result = start(MetamorphicJob(), settings, "runs/x-mt").result  # sparring.runner

Seeds (a run's conversations, or a CoQA-format file) are perturbed into follow-ups
(dialogue-level: DRS, DRR, DRD, DSR, DSD; single-turn after METAL: typos, leetspeak,
random words, character noise), replayed through the connector as ordinary run records
linked to their source, and judged by MORTAR's relations MR1–MR4 using the answerability
of every round, plus exact relations on computed values.
"""

from __future__ import annotations

from sparring.metamorphic._job import (
    MetamorphicJob,
    make_follow_ups,
)
from sparring.metamorphic._perturb import (
    DIALOGUE_PERTURBATIONS,
    TEXT_PERTURBATIONS,
    FollowUp,
    Perturbation,
    dialogue_order,
)
from sparring.metamorphic._relations import Similarity, check_follow_up, typed_values
from sparring.metamorphic._replay import LINK_KEY, MetamorphicLink, link_of
from sparring.metamorphic._result import (
    METAMORPHIC,
    METAMORPHIC_FILE,
    FollowUpSummary,
    MetamorphicResult,
    Metrics,
    RelationCheck,
    exit_code,
    metamorphic_outcome,
    read_metamorphic,
)
from sparring.metamorphic._seeds import Seed, load_seeds
from sparring.metamorphic._settings import (
    MetamorphicSettings,
    choose_similarity,
    parse_perturbations,
)
from sparring.metamorphic._transform import TRANSFORMATIONS, Transformation, load_transformations

__all__ = [
    "DIALOGUE_PERTURBATIONS",
    "LINK_KEY",
    "METAMORPHIC",
    "METAMORPHIC_FILE",
    "TEXT_PERTURBATIONS",
    "TRANSFORMATIONS",
    "FollowUp",
    "FollowUpSummary",
    "MetamorphicJob",
    "MetamorphicLink",
    "MetamorphicResult",
    "MetamorphicSettings",
    "Metrics",
    "Perturbation",
    "RelationCheck",
    "Seed",
    "Similarity",
    "Transformation",
    "check_follow_up",
    "choose_similarity",
    "dialogue_order",
    "exit_code",
    "link_of",
    "load_seeds",
    "load_transformations",
    "make_follow_ups",
    "metamorphic_outcome",
    "parse_perturbations",
    "read_metamorphic",
    "typed_values",
]
