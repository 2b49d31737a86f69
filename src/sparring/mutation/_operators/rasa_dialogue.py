"""Rasa operators on stories and rules: delete an action, delete a step (a user's intent
or a bot's action), delete the fallback.

After the operators for task-oriented chatbots of Gómez-Abajo et al., "A tool for the
definition and application of mutation operators for chatbots" (SENSEI §7.1), on Rasa
3.x YAML (``- intent:`` / ``- action:`` steps) and Rasa 1.x/2.x Markdown (``* intent`` /
``  - action`` lines) alike.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from sparring.mutation._operators.rasa_base import (
    Candidate,
    RasaOperator,
    located,
    named_dialogues,
)
from sparring.mutation._operators.rasa_model import cut_lines, delete_lines
from sparring.mutation._registry import mutation_operator
from sparring.rasa_project import Dialogue, Entry, RasaProject, Step, TrainingFile, YamlFile

FALLBACK_ACTIONS = frozenset(
    {"action_default_fallback", "action_two_stage_fallback", "utter_default"}
)
"""Rasa's fallback actions and response (``config.yml`` may name more)."""

FALLBACK_COMPONENTS = frozenset({"FallbackClassifier", "FallbackPolicy", "TwoStageFallbackPolicy"})
"""The pipeline component (Rasa ≥ 2) and policies (Rasa 1.x) that trigger the fallback."""

FALLBACK_INTENT = "nlu_fallback"


def _step_candidates(project: RasaProject, kinds: tuple[str, ...]) -> Iterator[Candidate]:
    for file in project.training:
        for key, dialogue in named_dialogues(file):
            if len(dialogue.steps) < 2:
                continue  # never leave a story or rule without steps
            for number, step in enumerate(dialogue.steps, start=1):
                if step.kind in kinds:
                    where = f"{key}/step {number}"
                    run = partial(_delete_step, file, dialogue, number, step)
                    yield located(file.path, where, step.start, run)


def _delete_step(
    file: TrainingFile, dialogue: Dialogue, number: int, step: Step
) -> tuple[dict[str, str], str]:
    said = (
        f"Deleted {step.kind} `{step.name}` (step {number}) of {dialogue.kind} `{dialogue.name}`."
    )
    return {file.path: cut_lines(file.text, step.start, step.end)}, said


@mutation_operator
class DeleteStoryAction(RasaOperator):
    """A bot action (``- action: name`` / ``  - name``) deleted from a story or rule, so
    the bot skips it there. Location: ``story:<name>/step <n>`` or ``rule:<name>/step
    <n>`` (``n`` counts every step from 1); stories and rules of one step are left."""

    name = "rasa.delete_story_action"
    description = "delete an action from a story or rule"

    def candidates(self, project: RasaProject) -> Iterator[Candidate]:
        return _step_candidates(project, ("action",))


@mutation_operator
class DeleteStep(RasaOperator):
    """A conversation step, the user's intent or the bot's action, deleted from a story
    or rule. Locations as ``rasa.delete_story_action``, intents included."""

    name = "rasa.delete_step"
    description = "delete a step (an intent or an action) of a story or rule"

    def candidates(self, project: RasaProject) -> Iterator[Candidate]:
        return _step_candidates(project, ("intent", "action"))


def _fallback_actions(project: RasaProject) -> frozenset[str]:
    configured = project.config.settings.values() if project.config else ()
    return FALLBACK_ACTIONS | frozenset(configured)


def _is_fallback(dialogue: Dialogue, actions: frozenset[str]) -> bool:
    return any(
        (step.kind == "intent" and step.name == FALLBACK_INTENT)
        or (step.kind == "action" and step.name in actions)
        for step in dialogue.steps
    )


@mutation_operator
class DeleteFallback(RasaOperator):
    """The fallback deleted, one place at a time: a whole rule or story handling it (one
    with the ``nlu_fallback`` intent, or an action among ``action_default_fallback``,
    ``action_two_stage_fallback``, ``utter_default`` and the fallback actions named in
    ``config.yml``), or the ``FallbackClassifier`` component / ``FallbackPolicy`` of
    ``config.yml`` that triggers it. Locations: ``rule:<name>``, ``story:<name>``,
    ``pipeline:FallbackClassifier``, ``policies:FallbackPolicy``."""

    name = "rasa.delete_fallback"
    description = "delete the fallback: a rule or story handling it, or its config component"

    def candidates(self, project: RasaProject) -> Iterator[Candidate]:
        actions = _fallback_actions(project)
        for file in project.training:
            for key, dialogue in named_dialogues(file):
                if _is_fallback(dialogue, actions):
                    edit = partial(self._delete_dialogue, file, dialogue)
                    yield located(file.path, key, dialogue.start, edit)
        config = project.config
        for entry in config.entries if config else ():
            if config and entry.name in FALLBACK_COMPONENTS:
                edit = partial(self._delete_entry, config, entry)
                yield located(config.path, f"{entry.section}:{entry.name}", entry.start, edit)

    @staticmethod
    def _delete_dialogue(file: TrainingFile, dialogue: Dialogue) -> tuple[dict[str, str], str]:
        said = f"Deleted the fallback {dialogue.kind} `{dialogue.name}`."
        return {file.path: delete_lines(file.text, dialogue.start, dialogue.end)}, said

    @staticmethod
    def _delete_entry(config: YamlFile, entry: Entry) -> tuple[dict[str, str], str]:
        said = f"Deleted `{entry.name}` from the {entry.section} of {config.path}."
        return {config.path: delete_lines(config.text, entry.start, entry.end)}, said
