"""Rasa operators on the NLU training data: change a regular expression, delete an intent
with its training phrases, delete synonyms, keep only two training phrases of an intent.

After the operators for task-oriented chatbots of Gómez-Abajo et al., "A tool for the
definition and application of mutation operators for chatbots" (the Dialogflow/Rasa
operators SENSEI's §7.1 applies), on Rasa 3.x YAML and Rasa 1.x/2.x Markdown alike.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from sparring.mutation._operators.rasa_base import Candidate, RasaOperator, located
from sparring.mutation._operators.rasa_model import (
    cut_lines,
    delete_each,
    delete_lines,
    numbered,
    plural,
    replace_line,
)
from sparring.mutation._operators.rasa_regex import RegexSite, regex_sites
from sparring.mutation._registry import mutation_operator
from sparring.rasa_project import Example, NluBlock, RasaProject, TrainingFile


def _blocks(file: TrainingFile, kind: str) -> Iterator[tuple[str, NluBlock]]:
    """``(key, block)`` of the ``kind`` blocks of a file: ``intent:greet``, a repeated
    name numbered ``intent:greet (2)``."""
    keys = numbered(f"{block.kind}:{block.name}" for block in file.nlu)
    for key, block in zip(keys, file.nlu, strict=True):
        if block.kind == kind:
            yield key, block


@mutation_operator
class ChangeRegex(RasaOperator):
    """A regular expression (``regex:`` / ``## regex:``) altered at one site: a quantifier
    changed or a character class narrowed (``rasa_regex``). Locations are
    ``regex:<name>/pattern <n>/offset <i>`` (offset 0-based in the pattern)."""

    name = "rasa.change_regex"
    description = "alter a regular expression: change a quantifier or narrow a character class"

    def candidates(self, project: RasaProject) -> Iterator[Candidate]:
        for file in project.training:
            for key, block in _blocks(file, "regex"):
                for number, example in enumerate(block.examples, start=1):
                    for site in regex_sites(example.text):
                        where = f"{key}/pattern {number}/offset {site.start}"
                        edit = partial(self._edit, file, block, example, site)
                        yield located(file.path, where, example.line, edit)

    @staticmethod
    def _edit(
        file: TrainingFile, block: NluBlock, example: Example, site: RegexSite
    ) -> tuple[dict[str, str], str]:
        new = site.apply(example.text)
        text = replace_line(file.text, example.line, example.col, example.text, new)
        context = slice(max(site.start - 8, 0), site.end + 8)
        before = example.text[context]
        after = before[: site.start - context.start] + site.replacement
        after += example.text[site.end : context.stop]
        said = f"Regex `{block.name}`: {site.what} at offset {site.start} (`{before}` → `{after}`)."
        return {file.path: text}, said


@mutation_operator
class DeleteIntent(RasaOperator):
    """An intent deleted from the domain's ``intents`` and, with all its training
    examples, from the NLU data; stories and rules that use it are left as they are (that
    is the fault). Location: ``intent:<name>`` in the domain (else the first NLU file)."""

    name = "rasa.delete_intent"
    description = "delete an intent from the domain and its training phrases from the NLU data"

    def candidates(self, project: RasaProject) -> Iterator[Candidate]:
        places: dict[str, tuple[str, int]] = {}
        for domain in project.domains:
            for entry in domain.intents:
                places.setdefault(entry.name, (domain.path, entry.start))
        for file in project.training:
            for block in file.nlu:
                if block.kind == "intent":
                    places.setdefault(block.name, (file.path, block.start))
        for intent, (path, line) in places.items():
            yield located(path, f"intent:{intent}", line, partial(self._edit, project, intent))

    @staticmethod
    def _edit(project: RasaProject, intent: str) -> tuple[dict[str, str], str]:
        files: dict[str, str] = {}
        for domain in project.domains:
            ranges = [(e.start, e.end) for e in domain.intents if e.name == intent]
            if ranges:
                files[domain.path] = delete_each(domain.text, ranges)
        examples = 0
        for file in project.training:
            blocks = [b for b in file.nlu if b.kind == "intent" and b.name == intent]
            examples += sum(len(block.examples) for block in blocks)
            if blocks:
                files[file.path] = delete_each(file.text, [(b.start, b.end) for b in blocks])
        said = f"Deleted intent `{intent}` and its training data ({plural(examples, 'example')})."
        return files, said


@mutation_operator
class DeleteSynonyms(RasaOperator):
    """A synonym block (``synonym:`` / ``## synonym:``) deleted, so its values are no
    longer mapped to the entity value. Location: ``synonym:<value>``."""

    name = "rasa.delete_synonyms"
    description = "delete the synonyms of an entity value"

    def candidates(self, project: RasaProject) -> Iterator[Candidate]:
        for file in project.training:
            for key, block in _blocks(file, "synonym"):
                yield located(file.path, key, block.start, partial(self._edit, file, block))

    @staticmethod
    def _edit(file: TrainingFile, block: NluBlock) -> tuple[dict[str, str], str]:
        values = plural(len(block.examples), "value")
        said = f"Deleted the synonyms of `{block.name}` ({values})."
        return {file.path: delete_lines(file.text, block.start, block.end)}, said


@mutation_operator
class KeepTwoExamples(RasaOperator):
    """An intent's training examples cut to its first two (intents with more than two).
    Location: ``intent:<name>`` in the NLU file."""

    name = "rasa.keep_two_examples"
    description = "keep only the first two training phrases of an intent"

    def candidates(self, project: RasaProject) -> Iterator[Candidate]:
        for file in project.training:
            for key, block in _blocks(file, "intent"):
                if len(block.examples) > 2:
                    yield located(file.path, key, block.start, partial(self._edit, file, block))

    @staticmethod
    def _edit(file: TrainingFile, block: NluBlock) -> tuple[dict[str, str], str]:
        first, last = block.examples[2].line, block.examples[-1].line + 1
        said = (
            f"Kept the first two of the {len(block.examples)} training examples of intent "
            f"`{block.name}`."
        )
        return {file.path: cut_lines(file.text, first, last)}, said
