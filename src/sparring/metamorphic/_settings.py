"""The settings of the ``metamorphic`` job and the checks of their values."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from pydantic import Field

from sparring.errors import Problem, UserInputError
from sparring.jobs import JobSettings
from sparring.metamorphic._perturb import DIALOGUE_PERTURBATIONS, Perturbation
from sparring.similarity import similarity_method


class MetamorphicSettings(JobSettings):
    """Settings of ``sparring metamorphic`` (stored in the run's manifest).

    ``seeds``: a run directory, a folder of conversations or a CoQA-format JSON file;
    ``perturbations``: names of ``Perturbation`` (default the five dialogue-level ones);
    ``rules``: rule files whose ``transformation`` rules get follow-ups; ``model``: the
    model of MORTAR's LLM answerability pipeline (``None``: the offline spaCy strategy);
    ``similarity``: ``embeddings`` or ``tf-idf`` (``None``: embeddings when installed, else
    TF-IDF); ``concurrency``: follow-ups replayed at once; ``seed``: of every perturbation;
    ``source_replays``: how many times each seed's unperturbed sequence is replayed — with
    2 or more, a source round whose replies differ between the replays is nondeterministic
    (a bot choosing among templates) and no relation is checked on it;
    ``context_probe``: each source round after the first is also asked alone (with the
    story, if any) — a round whose reply then differs from its source reply depends on its
    context for this bot (a task bot's state: "how much will it cost" before and after the
    order), so MR1 and MR3 are not asserted on it where a perturbation changed the rounds
    before it.
    """

    job: ClassVar[str] = "metamorphic"

    seeds: Path
    chatbot: Path
    perturbations: list[str] = Field(
        default_factory=lambda: [str(p) for p in DIALOGUE_PERTURBATIONS]
    )
    rules: list[Path] = Field(default_factory=list)
    model: str | None = None
    model_base_url: str | None = None
    similarity: str | None = None
    concurrency: int = Field(default=4, ge=1)
    seed: int = 0
    source_replays: int = Field(default=2, ge=1)
    context_probe: bool = True
    probe: bool = True


def parse_perturbations(names: Sequence[str]) -> list[Perturbation]:
    """The perturbations named (``all`` for every one). Raises ``UserInputError`` naming
    ``--perturbations`` for an unknown name."""
    out: list[Perturbation] = []
    for name in names:
        if name.strip().lower() == "all":
            out += list(Perturbation)
            continue
        try:
            out.append(Perturbation(name.strip().lower()))
        except ValueError:
            known = ", ".join(p.value for p in Perturbation)
            raise UserInputError(
                Problem("", None, "--perturbations", f"unknown perturbation {name!r}: use {known}")
            ) from None
    return list(dict.fromkeys(out))


def choose_similarity(requested: str | None) -> tuple[str, str | None]:
    """The similarity method and, when the embeddings are missing, a note saying the
    TF-IDF fallback is used."""
    if requested:
        return similarity_method(requested), None
    try:
        return similarity_method("embeddings"), None
    except UserInputError:
        return "tf-idf", "sentence embeddings not installed: TF-IDF similarity used instead"
