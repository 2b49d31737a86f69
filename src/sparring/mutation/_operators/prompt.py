"""Mutation operators for LLM chatbots defined by a system prompt (an ``openai``-connector
bot's ``system_prompt``, or a prompt text file; see ``prompt_text``).

SENSEI's operators (thesis §7.1.1) delete, swap or change what a Taskyto bot knows; these
do the same to a prompt: delete one instruction, swap the values of two facts (two
numbers, or two named values of ``label: value`` lines — swapping the facts' places would
rarely change what the model does), change one number (+1, keeping its decimals:
``1.50`` → ``2.50``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from sparring.mutation._model import Location
from sparring.mutation._operators.prompt_text import NUMBER, Prompt, prompts, units, without
from sparring.mutation._operators.taskyto_yaml import Candidate, SpanOperator
from sparring.mutation._registry import mutation_operator


def _candidate(prompt: Prompt, key: str, offset: int, new: str, what: str) -> Candidate:
    location = Location(file=prompt.file, key=key, line=prompt.line(offset))
    return Candidate(location, (prompt.rewrite(new),), what)


def _quote(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


@mutation_operator
class DeleteInstruction(SpanOperator):
    """Delete one instruction (a bullet, a line, or a sentence) of the system prompt."""

    name = "prompt.delete_instruction"
    kind = "prompt"
    description = "delete one instruction of the system prompt"

    def found(self, project: Path) -> Iterator[Candidate | None]:
        for prompt in prompts(project):
            for index, unit in enumerate(units(prompt.text), start=1):
                yield _candidate(
                    prompt,
                    f"instruction {index}",
                    unit.start,
                    without(prompt.text, unit),
                    f"deleted the instruction {_quote(prompt.text[unit.start : unit.end])}",
                )


@mutation_operator
class SwapFacts(SpanOperator):
    """Swap the values of two facts of the system prompt: the numbers of two
    instructions, or the named values of two ``label: value`` lines; every pair ``i < j``
    of facts whose values are of one kind (number or name) and differ."""

    name = "prompt.swap_facts"
    kind = "prompt"
    description = "swap the values of two facts of the system prompt"

    def found(self, project: Path) -> Iterator[Candidate | None]:
        for prompt in prompts(project):
            text = prompt.text
            facts = [
                (index, unit.value)
                for index, unit in enumerate(units(text), start=1)
                if unit.value is not None
            ]
            for i, (first, a) in enumerate(facts):
                for second, b in facts[i + 1 :]:
                    old_a, old_b = text[a[0] : a[1]], text[b[0] : b[1]]
                    numeric = NUMBER.fullmatch(old_a), NUMBER.fullmatch(old_b)
                    if old_a == old_b or bool(numeric[0]) != bool(numeric[1]):
                        continue
                    new = text[: a[0]] + old_b + text[a[1] : b[0]] + old_a + text[b[1] :]
                    yield _candidate(
                        prompt,
                        f"facts {first},{second}",
                        a[0],
                        new,
                        f"swapped the values {_quote(old_a)} and {_quote(old_b)} of "
                        f"instructions {first} and {second}",
                    )


@mutation_operator
class ChangeNumber(SpanOperator):
    """Add 1 to one number of the system prompt (its integer part; decimals are kept)."""

    name = "prompt.change_number"
    kind = "prompt"
    description = "change one number of the system prompt"

    def found(self, project: Path) -> Iterator[Candidate | None]:
        for prompt in prompts(project):
            text = prompt.text
            for index, match in enumerate(NUMBER.finditer(text), start=1):
                whole, _, decimals = match.group().partition(".")
                changed = str(int(whole) + 1) + (f".{decimals}" if decimals else "")
                yield _candidate(
                    prompt,
                    f"number {index}",
                    match.start(),
                    text[: match.start()] + changed + text[match.end() :],
                    f"changed the number {match.group()} to {changed}",
                )
