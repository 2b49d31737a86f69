"""Mutation operators for the flow of Taskyto chatbots: sequences, responses, memory —
the last four of SENSEI's eleven (thesis §7.1.1; Taskyto's ``taskyto/mutator.py``). See
``taskyto`` for the format and the first seven.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from yaml.nodes import Node

from sparring.mutation._operators.taskyto import TaskytoModule, taskyto_modules
from sparring.mutation._operators.taskyto_yaml import (
    Candidate,
    Edit,
    SpanOperator,
    delete_item,
    get,
    insert_pair,
    items,
    pair_index,
    pairs,
    replace_node,
    scalar,
    swap_nodes,
)
from sparring.mutation._registry import mutation_operator

REPHRASE_MODES = ("direct", "simple", "in-caller")
"""Taskyto's rephrase modes; an absent ``rephrase`` is ``direct``."""

_DATA_EXPRESSION = re.compile(r"\{{1,2}.*?\}{1,2}")
"""A computed value in a response text: ``{name}`` or ``{{result}}`` (Taskyto's regex)."""


def sequences(project: Path) -> Iterator[tuple[TaskytoModule, str, Node]]:
    """Each sequence (a menu's ``kind: sequence`` item, or a sequence module): its module,
    its key prefix and the mapping holding ``references`` and ``memory``."""
    for module in taskyto_modules(project, "menu", "sequence"):
        if module.kind == "sequence":
            yield module, "", module.node
            continue
        for index, item in enumerate(items(get(module.node, "items"))):
            if scalar(get(item, "kind")) == "sequence":
                yield module, f"items/{index}/", item


def response(module: TaskytoModule) -> tuple[Node | None, Node | None]:
    """The ``on-success`` response: (the mapping holding ``text``, or ``None``; the text
    node)."""
    response = get(get(module.node, "on-success"), "response")
    if scalar(response) is not None:
        return None, response
    return response, get(response, "text")


@mutation_operator
class DeleteSequenceStep(SpanOperator):
    """Delete one step (module reference) of a sequence (SENSEI §7.1.1;
    ``DeleteSequenceStep``; here also in ``kind: sequence`` modules)."""

    name = "taskyto.delete_sequence_step"
    kind = "taskyto"
    description = "delete one step of a sequence"

    def found(self, project: Path) -> Iterator[Candidate | None]:
        for module, prefix, holder in sequences(project):
            at = pair_index(holder, "references")
            if at is None:
                continue
            key, steps = pairs(holder)[at]
            for index, step in enumerate(items(steps)):
                yield module.candidate(
                    f"{prefix}references/{index}",
                    step,
                    [delete_item(module.text, key, steps, index)],
                    f"deleted the step {scalar(step)!r} of a sequence",
                )


@mutation_operator
class SwapSequenceSteps(SpanOperator):
    """Swap two steps of a sequence (SENSEI §7.1.1; ``SwapSequenceStep``): every pair
    ``i < j``."""

    name = "taskyto.swap_sequence_steps"
    kind = "taskyto"
    description = "swap two steps of a sequence"

    def found(self, project: Path) -> Iterator[Candidate | None]:
        for module, prefix, holder in sequences(project):
            steps = items(get(holder, "references"))
            for i, first in enumerate(steps):
                for j in range(i + 1, len(steps)):
                    yield module.candidate(
                        f"{prefix}references/{i},{j}",
                        first,
                        list(swap_nodes(module.text, first, steps[j])),
                        f"swapped the steps {scalar(first)!r} and {scalar(steps[j])!r}",
                    )


@mutation_operator
class DeleteResponseData(SpanOperator):
    """Delete one computed value (``{field}``, ``{{result}}``) from an ``on-success``
    response (SENSEI §7.1.1; ``DeleteDataFromResponse``)."""

    name = "taskyto.delete_response_data"
    kind = "taskyto"
    description = "delete a computed value from a response"

    def found(self, project: Path) -> Iterator[Candidate | None]:
        for module in taskyto_modules(project, "data_gathering", "action", "question_answering"):
            text_node = response(module)[1]
            if scalar(text_node) is None or text_node is None:
                continue
            start = int(text_node.start_mark.index)
            span = module.text[start : int(text_node.end_mark.index)]
            for index, match in enumerate(_DATA_EXPRESSION.finditer(span)):
                begin, end = match.start(), match.end()
                if span[begin - 1 : begin] == " " and span[end : end + 1] in {" ", ""}:
                    begin -= 1  # "a {size} pizza" → "a pizza", not "a  pizza"
                yield Candidate(
                    module.at(f"on-success/response/{index}", text_node),
                    (Edit(start + begin, start + end),),
                    f"deleted {match.group()} from the response of module {module.name!r}",
                )


@mutation_operator
class ChangeRephrase(SpanOperator):
    """Change how a response is rephrased, to each other mode of ``direct``, ``simple``
    and ``in-caller`` (SENSEI §7.1.1; ``ChangeRephrase``; Taskyto's code writes
    ``on-caller``, which its interpreter does not know, so ``in-caller`` is used here)."""

    name = "taskyto.change_rephrase"
    kind = "taskyto"
    description = "change the rephrase mode of a response"

    def found(self, project: Path) -> Iterator[Candidate | None]:
        for module in taskyto_modules(project, "data_gathering", "action", "question_answering"):
            holder, text_node = response(module)
            text_at = pair_index(holder, "text")
            if holder is None or text_node is None or text_at is None:
                continue
            node = get(holder, "rephrase")
            now = (scalar(node) or "direct").replace("_", "-")
            for mode in REPHRASE_MODES:
                if mode == now:
                    continue
                edit: Edit | None
                if node is not None:
                    edit = replace_node(module.text, node, mode)
                else:
                    edit = insert_pair(module.text, holder, text_at, f"rephrase: {mode}")
                yield module.candidate(
                    f"on-success/response/rephrase={mode}",
                    node or text_node,
                    [edit],
                    f"changed the rephrase mode from {now} to {mode}",
                )


@mutation_operator
class ChangeMemoryScope(SpanOperator):
    """Switch a sequence's memory between ``individual`` (the default) and ``full``
    (SENSEI §7.1.1; ``ChangeMemoryScope``)."""

    name = "taskyto.change_memory_scope"
    kind = "taskyto"
    description = "switch a sequence's memory between individual and full"

    def found(self, project: Path) -> Iterator[Candidate | None]:
        for module, prefix, holder in sequences(project):
            node = get(holder, "memory")
            now = scalar(node) or "individual"
            new = "individual" if now == "full" else "full"
            edit: Edit | None
            if node is not None:
                edit = replace_node(module.text, node, new)
            else:
                edit = insert_pair(
                    module.text, holder, pair_index(holder, "kind") or 0, f"memory: {new}"
                )
            yield module.candidate(
                f"{prefix}memory",
                node or holder,
                [edit],
                f"changed a sequence's memory from {now} to {new}",
            )
