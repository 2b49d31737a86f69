"""Mutation operators for AIML chatbots (ALICE and other AIML 1.0 sets).

An AIML project is a folder of ``*.aiml`` files (searched recursively; ``*.aiml-2.0`` and
other files are not part of it, as PyAIML's loader leaves them out). A ``<category>``
pairs a ``<pattern>`` (and optionally a ``<that>``, the bot's previous answer it follows)
with a ``<template>``; templates redirect to other categories with ``<srai>`` (``<sr/>``
is ``<srai><star/></srai>``) and read and write the bot's memory with ``<get>`` and
``<set>``. The operators follow SENSEI §7.1.1's idea — delete or swap what the bot
answers, break what links its answers — for AIML: delete a category; swap the templates
of two consecutive categories of a file; delete an ``<srai>``/``<sr/>``; delete a
category's ``<that>``; drop a ``<set>`` (its content stays, nothing is remembered); drop
a ``<get>``.

The files are scanned with regular expressions (categories do not nest; comments and
CDATA sections are skipped), not parsed, so that ALICE's ~98,000 categories are listed in
about a second and every mutant edits only the characters of the changed element. A
location's key is ``category N`` (1-based in its file), plus ``/srai K`` etc. for an
element of it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

from sparring.mutation._model import Location, ProjectKind
from sparring.mutation._operators.taskyto_yaml import Candidate, Edit, apply_edits
from sparring.mutation._registry import mutation_operator

_CATEGORY = re.compile(r"<!--.*?-->|<!\[CDATA\[.*?\]\]>|<(/?)category\b[^>]*>", re.DOTALL)
_TEMPLATE = re.compile(r"<template\b[^>]*>.*</template\s*>", re.DOTALL)
_PATTERN = re.compile(r"<pattern\b[^>]*>(.*?)</pattern\s*>", re.DOTALL)
_THAT = re.compile(r"<that\s*>.*?</that\s*>", re.DOTALL)
_TAG = re.compile(r"<!--.*?-->|<(/?)(srai|sr|set|get)\b([^>]*?)(/?)>", re.DOTALL)


@dataclass(frozen=True)
class Category:
    """One ``<category>…</category>``: its file, its number there (1-based), the file's
    text, its span in it and the line where it starts."""

    file: str
    number: int
    text: str
    start: int
    end: int
    line: int

    def at(self, suffix: str = "") -> Location:
        return Location(file=self.file, key=f"category {self.number}{suffix}", line=self.line)

    @property
    def pattern(self) -> str:
        found = _PATTERN.search(self.text, self.start, self.end)
        return " ".join(found.group(1).split()) if found else ""

    def template(self) -> tuple[int, int] | None:
        found = _TEMPLATE.search(self.text, self.start, self.end)
        return found.span() if found else None

    def elements(self, tag: str) -> Iterator[tuple[int, int, int, int]]:
        """Each ``tag`` element in the template, outermost first by start: (start, end,
        content start, content end); an empty element's content is empty."""
        span = self.template()
        if span is None:
            return
        opened: list[tuple[int, int]] = []
        found: list[tuple[int, int, int, int]] = []
        for match in _TAG.finditer(self.text, *span):
            if match.group(2) is None or match.group(2) != tag:
                continue
            if match.group(4):
                found.append((match.start(), match.end(), match.end(), match.end()))
            elif not match.group(1):
                opened.append((match.start(), match.end()))
            elif opened:
                start, content = opened.pop()
                found.append((start, match.end(), content, match.start()))
        yield from sorted(found)


def categories(file: str, text: str) -> Iterator[Category]:
    """The categories of one file, in order."""
    number, line, counted, start = 0, 1, 0, -1
    for match in _CATEGORY.finditer(text):
        closing = match.group(1)
        if closing is None:
            continue
        if not closing:
            start = match.start()
        elif start >= 0:
            number += 1
            line += text.count("\n", counted, start)
            counted = start
            yield Category(file, number, text, start, match.end(), line)
            start = -1


def aiml_files(project: Path) -> list[Path]:
    """The project's ``*.aiml`` files, recursively, by relative path."""
    return sorted(project.rglob("*.aiml"))


def _whole_lines(text: str, start: int, end: int) -> Edit:
    """Delete ``text[start:end]``, and its line when nothing else is on it."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end + 1
    if not text[line_start:start].strip() and not text[end:line_end].strip():
        return Edit(line_start, line_end)
    return Edit(start, end)


class AimlOperator:
    """An operator over categories: ``found(categories of one file)`` gives its
    candidates; ``apply`` rescans only the location's file."""

    name: str
    kind: ProjectKind = "aiml"
    description: str

    def found(self, file: list[Category]) -> Iterator[Candidate]:
        raise NotImplementedError

    def _candidates(self, project: Path, path: Path) -> Iterator[Candidate]:
        text = path.read_text(encoding="utf-8")
        return self.found(list(categories(path.relative_to(project).as_posix(), text)))

    def locations(self, project: Path) -> list[Location]:
        return [
            candidate.location
            for path in aiml_files(project)
            for candidate in self._candidates(project, path)
        ]

    def apply(self, project: Path, location: Location) -> tuple[dict[str, str], str]:
        path = project / location.file
        if path.suffix == ".aiml" and path.is_file():
            for candidate in self._candidates(project, path):
                if candidate.location.key == location.key:
                    text = path.read_text(encoding="utf-8")
                    return {location.file: apply_edits(text, candidate.edits)}, (
                        candidate.description
                    )
        raise ValueError(f"{self.name} does not apply at {location.tag()}")


@mutation_operator
class DeleteCategory(AimlOperator):
    """Delete one category: the bot no longer answers its pattern (SENSEI §7.1.1's
    deletion of a question–answer pair, for AIML)."""

    name = "aiml.delete_category"
    description = "delete one category"

    def found(self, file: list[Category]) -> Iterator[Candidate]:
        for category in file:
            yield Candidate(
                category.at(),
                (_whole_lines(category.text, category.start, category.end),),
                f"deleted the category of pattern {category.pattern!r}",
            )


@mutation_operator
class SwapCategories(AimlOperator):
    """Swap the templates of two consecutive categories of a file: each pattern gets the
    other's answer (SENSEI §7.1.1's swap of answers, for AIML; consecutive, so that the
    locations grow with the set, not with its square)."""

    name = "aiml.swap_categories"
    description = "swap the templates of two consecutive categories"

    def found(self, file: list[Category]) -> Iterator[Candidate]:
        for first, second in pairwise(file):
            a, b = first.template(), second.template()
            if a is None or b is None:
                continue
            text = first.text
            yield Candidate(
                first.at(f",{second.number}"),
                (Edit(*a, text[b[0] : b[1]]), Edit(*b, text[a[0] : a[1]])),
                f"swapped the templates of the categories of patterns {first.pattern!r} "
                f"and {second.pattern!r}",
            )


@mutation_operator
class BreakSrai(AimlOperator):
    """Delete one ``<srai>`` (or ``<sr/>``): the category no longer redirects to the one
    that answers the reduced input."""

    name = "aiml.break_srai"
    description = "delete one <srai> redirection"

    def found(self, file: list[Category]) -> Iterator[Candidate]:
        for category in file:
            links = sorted([*category.elements("srai"), *category.elements("sr")])
            for index, (start, end, _, _) in enumerate(links, start=1):
                yield Candidate(
                    category.at(f"/srai {index}"),
                    (Edit(start, end),),
                    f"deleted {category.text[start:end]} from the category of pattern "
                    f"{category.pattern!r}",
                )


@mutation_operator
class BreakThat(AimlOperator):
    """Delete a category's ``<that>``: it answers its pattern whatever the bot said
    before, not only as the follow-up of that answer."""

    name = "aiml.break_that"
    description = "delete the <that> context of a category"

    def found(self, file: list[Category]) -> Iterator[Candidate]:
        for category in file:
            span = category.template()
            found = _THAT.search(category.text, category.start, span[0] if span else 0)
            if found is None:
                continue
            yield Candidate(
                category.at("/that"),
                (_whole_lines(category.text, *found.span()),),
                f"deleted {found.group()} from the category of pattern {category.pattern!r}",
            )


@mutation_operator
class DropSet(AimlOperator):
    """Replace one ``<set name="…">X</set>`` by ``X``: the answer is unchanged, the value
    is not remembered."""

    name = "aiml.drop_set"
    description = "drop one <set> (nothing is remembered)"

    def found(self, file: list[Category]) -> Iterator[Candidate]:
        for category in file:
            for index, (start, end, inner, close) in enumerate(category.elements("set"), 1):
                text = category.text
                yield Candidate(
                    category.at(f"/set {index}"),
                    (Edit(start, inner), Edit(close, end))
                    if inner < close
                    else (Edit(start, end),),
                    f"dropped {text[start:inner]} from the category of pattern "
                    f"{category.pattern!r}",
                )


@mutation_operator
class DropGet(AimlOperator):
    """Delete one ``<get>``: the answer no longer says what the bot remembered."""

    name = "aiml.drop_get"
    description = "delete one <get> (a remembered value is not said)"

    def found(self, file: list[Category]) -> Iterator[Candidate]:
        for category in file:
            for index, (start, end, _, _) in enumerate(category.elements("get"), 1):
                yield Candidate(
                    category.at(f"/get {index}"),
                    (Edit(start, end),),
                    f"deleted {category.text[start:end]} from the category of pattern "
                    f"{category.pattern!r}",
                )
