"""The ``mutate`` job's settings (``MutateSettings``, stored in the run's manifest), the
copy of its inputs it takes when it starts, and the builder for each kind of project."""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field, field_validator

from sparring._policy import current_policy
from sparring.conversations import RunStore
from sparring.errors import ConfigError, Problem, UserInputError
from sparring.jobs import JobSettings
from sparring.llm import MODEL_BASE_URL_HELP, MODEL_HELP
from sparring.mutation._build_command import TASKYTO_COMMAND, TASKYTO_ENV, ServeCommandBuilder
from sparring.mutation._build_rasa import RasaBuilder, default_helper
from sparring.mutation._builders import CopyBuilder, MutantBuilder
from sparring.mutation._harness import RunPlan
from sparring.mutation._model import Location, ProjectKind
from sparring.mutation._operators.aiml_reach import Utterance, reached_filter


class MutateSettings(JobSettings):
    """Settings of the ``mutate`` job (stored in the run's manifest and ``mutation.json``).

    ``project`` is the chatbot project folder the operators mutate, of ``kind``;
    ``profiles`` and ``rules`` are files or folders, run on every bot with ``seed``;
    ``sample`` mutants are drawn (``None``: every one); ``workers`` mutants run at once
    (``None``: the builder's default — half the cores for Rasa, 4 in process);
    ``chatbot`` is the ``chatbot.yaml`` (Rasa: the original's, whose ``params.url`` each
    build replaces, default ``<project>/../chatbot.yaml``; in-process kinds: a path
    inside the project, default ``<project>/chatbot.yaml``); ``rasa_helper`` the project's
    Rasa helper file (default ``<project>/../rasa_bot.py``); ``model`` serves the user
    simulator and model-backed rules (``None``: offline); ``concurrency`` conversations at
    once per bot; ``max_turns`` caps user turns; ``exercised_only`` draws the sample, after
    the original's run, only from locations its conversations reach (``EXERCISED``: AIML);
    ``serve_command`` serves each build with a command instead (``{project}``, ``{port}``;
    Taskyto's ``taskyto-serve`` by default for ``taskyto``); ``original_runs`` runs the
    original that many times, and a rule failing on any of them kills nothing (a bot that
    answers at random); ``min_score`` (a share in [0, 1]) makes a lower mutation score a
    failure (``mutation_outcome``).
    """

    job: ClassVar[str] = "mutate"

    project: Path = Field(description="The chatbot project folder to mutate.")
    kind: ProjectKind = Field(description="rasa, taskyto, aiml or prompt.")
    profiles: list[Path] = Field(min_length=1, description="Profile files or folders (repeat).")
    rules: list[Path] = Field(min_length=1, description="Rule files or folders (repeat).")
    sample: int | None = Field(None, ge=1, description="Mutants to draw (default: every one).")
    seed: int = Field(0, description="Seed of the sample and of every simulation.")
    workers: int | None = Field(
        None, ge=1, description="Mutants at once (default: half the cores for Rasa)."
    )
    chatbot: Path | None = Field(
        None, description="chatbot.yaml (rasa: <project>/../chatbot.yaml; else in the project)."
    )
    rasa_helper: Path | None = Field(
        None, description="The Rasa project's helper (<project>/../rasa_bot.py)."
    )
    model: str | None = Field(None, description=MODEL_HELP)
    model_base_url: str | None = Field(None, description=MODEL_BASE_URL_HELP)
    cache: bool = Field(False, description="Cache model replies on disk ($SPARRING_CACHE).")
    concurrency: int = Field(4, ge=1, description="Conversations at once per bot.")
    max_turns: int = Field(40, ge=1, description="Most user turns per conversation.")
    exercised_only: bool = Field(
        False, description="Draw mutants only where the original's conversations reach (aiml)."
    )
    serve_command: list[str] | None = Field(
        None,
        description="Serve each build with this command ({project}, {port}); taskyto: "
        "`taskyto-serve --chatbot {project}`.",
    )
    original_runs: int = Field(
        1,
        ge=1,
        description="Run the original this many times; what fails on any run kills nothing "
        "(bots that answer at random).",
    )
    min_score: float | None = Field(
        None,
        ge=0,
        le=1,
        description="Fail (exit 1) when the mutation score is below this share (0-1).",
    )

    @field_validator("serve_command", mode="before")
    @classmethod
    def _split_command(cls, value: Any) -> Any:
        """A command given as one string (``--serve-command "taskyto-serve …"``) is split
        as a shell would."""
        return shlex.split(value) if isinstance(value, str) else value

    CODE_KINDS: ClassVar[frozenset[str]] = frozenset({"rasa", "taskyto"})
    """Kinds whose builds run code on this machine: a Rasa project's helper (Python) and
    its training and serving processes, Taskyto's serve command."""

    def policy_problems(self, source: str = "settings") -> list[Problem]:
        """``JobSettings.policy_problems``, and ``kind`` when its builds run code (a
        ``CODE_KINDS`` kind, or any kind served by ``serve_command``) and the execution
        policy refuses code (``sparring._policy``): each build would run the project's
        Python or a process outside this one's guards."""
        problems = super().policy_problems(source)
        if self.kind in self.CODE_KINDS or self.serve_command:
            feature = f"mutating a {self.kind} project (its builds run code)"
            found = current_policy().code_problem(feature, source, None, "kind")
            problems += [found] if found else []
        return problems

    def plan(self, root: Path | None = None) -> RunPlan:
        """What every bot is run with; the profiles and rules are the copies the job took
        into ``root/inputs`` when it started (``snapshot_inputs``), where there are any."""
        profiles, rules = self.profiles, self.rules
        if root is not None and (root / INPUTS).is_dir():
            profiles, rules = _inputs(root, "profiles"), _inputs(root, "rules")
        return RunPlan(
            project=self.project,
            profiles=profiles,
            rules=rules,
            seed=self.seed,
            model=self.model,
            model_base_url=self.model_base_url,
            cache=self.cache,
            concurrency=self.concurrency,
            max_turns=self.max_turns,
        )


INPUTS = "inputs"
"""The job folder's copy of its profiles and rules: editing the originals while a long job
runs must not judge some mutants with other rules than the original."""


def snapshot_inputs(settings: MutateSettings, root: Path) -> None:
    """Copy the profiles and rules (files or folders) into ``root/inputs/{profiles,rules}/
    <n>-<name>``."""
    for kind, paths in (("profiles", settings.profiles), ("rules", settings.rules)):
        folder = root / INPUTS / kind
        folder.mkdir(parents=True, exist_ok=True)
        for n, path in enumerate(paths):
            target = folder / f"{n}-{path.name}"
            if path.is_dir():
                shutil.copytree(path, target, dirs_exist_ok=True)
            else:
                shutil.copyfile(path, target)


def _inputs(root: Path, kind: str) -> list[Path]:
    found = sorted((root / INPUTS / kind).iterdir(), key=lambda p: int(p.name.split("-")[0]))
    return list(found)


EXERCISED: dict[str, Callable[[Path, Iterable[Utterance]], Callable[[Location], bool]]] = {
    "aiml": reached_filter,
}
"""Per kind of project: a predicate on mutant locations from the user utterances (each with
the bot's reply before it) that a run sent, for ``exercised_only``."""


def exercised_utterances(run: Path) -> list[Utterance]:
    """Each user utterance of the run in ``run`` with the bot's reply before it."""
    found: list[Utterance] = []
    for record in RunStore.open(run, clean=False).iter_records():
        before: str | None = None
        for turn in record.turns:
            if turn.role == "user":
                found.append((turn.text, before))
            else:
                before = turn.text
    return found


def builder_for(settings: MutateSettings) -> MutantBuilder:
    """The builder for ``settings.kind``. Raises ``UserInputError`` for a missing helper
    or chatbot.yaml, ``ConfigError`` for a kind whose builds run code where the execution
    policy refuses it (``MutateSettings.policy_problems``)."""
    project = settings.project
    if problems := settings.policy_problems():
        raise ConfigError(problems)
    if settings.kind == "taskyto" or settings.serve_command:
        chatbot = settings.chatbot or project.resolve().parent / "chatbot.yaml"
        if not chatbot.is_file():
            raise UserInputError(f"no chatbot.yaml at {chatbot} (--chatbot)")
        if settings.serve_command:
            return ServeCommandBuilder(settings.serve_command, chatbot)
        return ServeCommandBuilder(TASKYTO_COMMAND, chatbot, env=TASKYTO_ENV)
    if settings.kind == "rasa":
        helper = settings.rasa_helper or default_helper(project)
        chatbot = settings.chatbot or project.resolve().parent / "chatbot.yaml"
        for path, what in ((helper, "Rasa helper (--rasa-helper)"), (chatbot, "chatbot.yaml")):
            if not path.is_file():
                raise UserInputError(f"no {what} at {path}")
        return RasaBuilder(helper, chatbot)
    if settings.kind in ("aiml", "prompt"):
        chatbot = settings.chatbot or project / "chatbot.yaml"
        if not chatbot.resolve().is_relative_to(project.resolve()):
            raise UserInputError(f"{chatbot} must be inside the project {project}")
        relative = chatbot.resolve().relative_to(project.resolve()).as_posix()
        return CopyBuilder(relative, workers=os.cpu_count() or 4)
    raise UserInputError(f"mutate cannot build {settings.kind} projects")


def resolved(settings: MutateSettings) -> MutateSettings:
    """``settings`` with absolute paths, so the job resumes from any folder."""
    return settings.model_copy(
        update={
            "project": settings.project.resolve(),
            "profiles": [p.resolve() for p in settings.profiles],
            "rules": [p.resolve() for p in settings.rules],
            "chatbot": settings.chatbot.resolve() if settings.chatbot else None,
            "rasa_helper": settings.rasa_helper.resolve() if settings.rasa_helper else None,
        }
    )
