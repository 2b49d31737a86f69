"""Answerability of follow-up rounds (MORTAR's equivalent-context check): the contract
types; the offline (spaCy) and LLM analysers live beside them."""

from __future__ import annotations

from sparring.metamorphic._answerability._types import (
    DialogueAnalysis,
    RoundAnalysis,
    RoundAnswerability,
    SeedDialogue,
    SeedRound,
)

__all__ = ["DialogueAnalysis", "RoundAnalysis", "RoundAnswerability", "SeedDialogue", "SeedRound"]
