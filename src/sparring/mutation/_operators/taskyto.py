"""Mutation operators for Taskyto chatbots: SENSEI's eleven (thesis §7.1.1), as Taskyto's
own ``taskyto/mutator.py`` implements them (satori-chatbots/taskyto).

A Taskyto project is a folder of YAML modules (each file one module, or ``modules:`` a
list of them); a module has a ``name`` and a ``kind``: ``menu`` (``presentation``,
``fallback``, ``items`` of kind ``module``/``answer``/``sequence``), ``data_gathering``
and ``action`` (``data``: a list of ``- name: type`` or ``- name: {type: enum, values:
[...], required: bool}``; ``on-success``), ``question_answering`` (``questions`` of
``question``/``answer``), ``sequence`` (``references``, ``memory``). An ``on-success``
``response`` is text, or ``{text, rephrase: direct|simple|in-caller}``; a sequence's
``memory`` is ``individual`` (the default) or ``full``.

Each mutant edits the text spans of one file (see ``taskyto_yaml``), so the rest of the
file is unchanged. Location keys start with the module's name.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from yaml.nodes import Node

from sparring.mutation._model import Location
from sparring.mutation._operators.taskyto_yaml import (
    Candidate,
    Edit,
    SpanOperator,
    delete_item,
    delete_pair,
    get,
    insert_pair,
    items,
    line_of,
    pair_index,
    pairs,
    replace_node,
    scalar,
    swap_nodes,
    yaml_files,
)
from sparring.mutation._registry import mutation_operator


@dataclass(frozen=True)
class TaskytoModule:
    """One module: its file (relative), the file's text, its node, name and kind."""

    file: str
    text: str
    node: Node
    name: str
    kind: str

    def at(self, key: str, node: Node) -> Location:
        return Location(file=self.file, key=f"{self.name}/{key}", line=line_of(node))

    def candidate(
        self, key: str, node: Node, edits: list[Edit | None], what: str
    ) -> Candidate | None:
        if any(edit is None for edit in edits):
            return None
        done = tuple(edit for edit in edits if edit is not None)
        return Candidate(self.at(key, node), done, f"{what} in module {self.name!r}")


def taskyto_modules(project: Path, *kinds: str) -> Iterator[TaskytoModule]:
    """The project's modules of the given kinds, file by file, in file order."""
    for file, text, root in yaml_files(project):
        listed = get(root, "modules")
        for node in items(listed) if listed is not None else [root]:
            name, kind = scalar(get(node, "name")), scalar(get(node, "kind"))
            if name and kind in kinds:
                yield TaskytoModule(file, text, node, name, kind)


def _data(module: TaskytoModule) -> Iterator[tuple[str, Node]]:
    for item in items(get(module.node, "data")):
        for key, value in pairs(item):
            yield str(scalar(key)), value


@mutation_operator
class DeleteEnumValue(SpanOperator):
    """Delete one value of an ``enum`` data field (SENSEI §7.1.1; ``DeleteEnumDataValue``)."""

    name = "taskyto.delete_enum_value"
    kind = "taskyto"
    description = "delete one literal of an enum data field"

    def found(self, project: Path) -> Iterator[Candidate | None]:
        for module in taskyto_modules(project, "data_gathering", "action"):
            for field, spec in _data(module):
                if scalar(get(spec, "type")) != "enum":
                    continue
                values_at = pair_index(spec, "values")
                if values_at is None:
                    continue
                key, values = pairs(spec)[values_at]
                for index, value in enumerate(items(values)):
                    label = scalar(value) or scalar(pairs(value)[0][0] if pairs(value) else None)
                    yield module.candidate(
                        f"{field}/values/{index}",
                        value,
                        [delete_item(module.text, key, values, index)],
                        f"deleted the value {label!r} of the enum {field!r}",
                    )


@mutation_operator
class ToggleRequired(SpanOperator):
    """Make a required data field optional or an optional one required (SENSEI §7.1.1;
    ``ChangeRequiredData``). Fields are required unless they say ``required: false``; a
    field with a ``type:`` mapping and no ``required`` gets ``required: false``."""

    name = "taskyto.toggle_required"
    kind = "taskyto"
    description = "make a data field optional, or required"

    def found(self, project: Path) -> Iterator[Candidate | None]:
        for module in taskyto_modules(project, "data_gathering", "action"):
            for field, spec in _data(module):
                required = get(spec, "required")
                type_at = pair_index(spec, "type")
                edit: Edit | None
                if required is not None:
                    now = str(scalar(required)).lower() in {"true", "yes", "on"}
                    edit = replace_node(module.text, required, "false" if now else "true")
                    node = required
                elif type_at is not None:
                    now, node = True, spec
                    edit = insert_pair(module.text, spec, type_at, "required: false")
                else:
                    continue
                change = "optional" if now else "required"
                yield module.candidate(
                    f"{field}/required", node, [edit], f"made the data field {field!r} {change}"
                )


@mutation_operator
class DeleteQuestion(SpanOperator):
    """Delete one question–answer pair (SENSEI §7.1.1; ``DeleteQuestionAnswer``)."""

    name = "taskyto.delete_question"
    kind = "taskyto"
    description = "delete a question-answer pair"

    def found(self, project: Path) -> Iterator[Candidate | None]:
        return _item_deletions(project, "question_answering", "questions", "question", "question")


@mutation_operator
class SwapAnswers(SpanOperator):
    """Swap the answers of two questions (SENSEI §7.1.1; ``SwapQuestionAnswer``): every
    pair ``i < j`` of one module."""

    name = "taskyto.swap_answers"
    kind = "taskyto"
    description = "swap the answers of two questions"

    def found(self, project: Path) -> Iterator[Candidate | None]:
        for module in taskyto_modules(project, "question_answering"):
            questions = items(get(module.node, "questions"))
            for i, first in enumerate(questions):
                for j in range(i + 1, len(questions)):
                    a, b = get(first, "answer"), get(questions[j], "answer")
                    if a is None or b is None:
                        continue
                    yield module.candidate(
                        f"questions/{i},{j}",
                        a,
                        list(swap_nodes(module.text, a, b)),
                        f"swapped the answers of the questions "
                        f"{scalar(get(first, 'question'))!r} and "
                        f"{scalar(get(questions[j], 'question'))!r}",
                    )


@mutation_operator
class DeleteFallback(SpanOperator):
    """Delete a menu's ``fallback`` (SENSEI §7.1.1; ``DeleteFallback``)."""

    name = "taskyto.delete_fallback"
    kind = "taskyto"
    description = "delete a menu's fallback answer"

    def found(self, project: Path) -> Iterator[Candidate | None]:
        for module in taskyto_modules(project, "menu"):
            at = pair_index(module.node, "fallback")
            if at is None:
                continue
            key = pairs(module.node)[at][0]
            yield module.candidate(
                "fallback", key, [delete_pair(module.text, module.node, at)], "deleted the fallback"
            )


@mutation_operator
class DeleteMenuItem(SpanOperator):
    """Delete one alternative of a menu (SENSEI §7.1.1; ``DeleteItemTopModule``)."""

    name = "taskyto.delete_menu_item"
    kind = "taskyto"
    description = "delete one alternative of a menu"

    def found(self, project: Path) -> Iterator[Candidate | None]:
        return _item_deletions(project, "menu", "items", "title", "menu item")


def _item_deletions(
    project: Path, module_type: str, list_key: str, label_key: str, noun: str
) -> Iterator[Candidate | None]:
    """One deletion per item of the ``list_key`` list of every ``module_type`` module,
    described by the item's ``label_key`` ("deleted the menu item 'Pizzas'")."""
    for module in taskyto_modules(project, module_type):
        at = pair_index(module.node, list_key)
        if at is None:
            continue
        key, listed = pairs(module.node)[at]
        for index, item in enumerate(items(listed)):
            yield module.candidate(
                f"{list_key}/{index}",
                item,
                [delete_item(module.text, key, listed, index)],
                f"deleted the {noun} {scalar(get(item, label_key))!r}",
            )
