"""The settings of the ``metamorphic`` job and the checks of their values."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from pydantic import Field, field_validator

from sparring.errors import Problem, UserInputError
from sparring.jobs import JobSettings
from sparring.llm import MODEL_BASE_URL_HELP, MODEL_HELP
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
    before it; ``fallback_guard``: a fallback reply is read as an act, not text
    (``_acts``): both replies the fallback, MR1/MR3 pass and MR2/MR4 are not asserted; one
    the fallback, in another context, to an utterance the bot does not understand alone,
    nothing is asserted (``False``: compared as text, MORTAR's way); ``state_guard``: MR1,
    MR3 and EX on a round whose earlier rounds changed only where the bot's pending
    question before it is the same (or there is none on both sides); MR2 and MR4 not after
    the same pending question, nor (with the context probe) on a round that loses its
    context but whose reply asked alone is similar to its source reply.
    """

    job: ClassVar[str] = "metamorphic"

    seeds: Path = Field(description="A run directory, conversations folder or CoQA JSON file.")
    chatbot: Path = Field(description="chatbot.yaml of the chatbot under test.")
    perturbations: list[str] = Field(
        default_factory=lambda: [str(p) for p in DIALOGUE_PERTURBATIONS],
        description="drs, drr, drd, dsr, dsd, typos, leetspeak, random-words, char-noise or "
        "all (repeat or comma-separate; default the five dialogue-level ones).",
    )
    rules: list[Path] = Field(
        default_factory=list, description="Rule files whose `transformation` rules get follow-ups."
    )
    model: str | None = Field(None, description=MODEL_HELP)
    model_base_url: str | None = Field(None, description=MODEL_BASE_URL_HELP)
    similarity: str | None = Field(
        None, description="embeddings or tf-idf (default: embeddings when installed)."
    )
    concurrency: int = Field(default=4, ge=1, description="Follow-ups replayed at once.")
    seed: int = Field(0, description="Seed of every perturbation.")
    source_replays: int = Field(
        default=2,
        ge=1,
        description="Replays of each unperturbed seed; rounds whose replies vary between them "
        "are not checked (nondeterministic bots).",
    )
    context_probe: bool = Field(
        True,
        description="Also ask each source round alone; rounds whose reply then changes depend "
        "on their context (a task bot's state) and keep MR1/MR3 only where it is unchanged.",
    )
    fallback_guard: bool = Field(
        True,
        description="Read fallback replies as an act: no context relation fires on a fallback "
        "to an utterance the bot did not understand.",
    )
    state_guard: bool = Field(
        True,
        description="Hold a moved round to MR1/MR3/EX only where the bot's pending question "
        "before it is the same (a task bot's state); no MR2/MR4 after the same question, nor "
        "on a round the bot answers alike asked alone.",
    )
    probe: bool = Field(True, description="Check the chatbot answers before starting.")

    @field_validator("perturbations", mode="before")
    @classmethod
    def _comma_separated(cls, value: object) -> object:
        """``["drs,typos", "all"]`` → ``["drs", "typos", "all"]`` (empty: the default)."""
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            return value
        names = [n.strip() for item in value for n in str(item).split(",") if n.strip()]
        return names or [str(p) for p in DIALOGUE_PERTURBATIONS]


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
