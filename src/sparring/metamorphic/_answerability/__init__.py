"""Answerability of follow-up rounds (MORTAR's equivalent-context check, Guo et al., arXiv
2412.15557, §3.3): the contract types and the two analysers that fill them —
``analyse_offline`` (spaCy's small English pipeline and a NetworkX knowledge graph) and
``analyse_llm`` (MORTAR's extraction pipeline as structured model outputs). See
docs/metamorphic-answerability.md."""

from __future__ import annotations

from sparring.metamorphic._answerability._llm import analyse_llm, analyse_llm_many
from sparring.metamorphic._answerability._nlp import SPACY_MODEL, load_pipeline
from sparring.metamorphic._answerability._offline import analyse_offline
from sparring.metamorphic._answerability._types import (
    DialogueAnalysis,
    RoundAnalysis,
    RoundAnswerability,
    SeedDialogue,
    SeedRound,
)

__all__ = [
    "SPACY_MODEL",
    "DialogueAnalysis",
    "RoundAnalysis",
    "RoundAnswerability",
    "SeedDialogue",
    "SeedRound",
    "analyse_llm",
    "analyse_llm_many",
    "analyse_offline",
    "load_pipeline",
]
