"""Seeds for the exploration from outside the conversation (issue 20, tiers 3 and 4).

- ``definition_seeds``: with ``--project DIR``, one real example utterance per intent of
  the bot's definition (``_project``), each with its evidence ("the definition: intent
  hour"), and the definition's example values for the form questions it asks;
- ``docs_seeds``: with ``--docs DIR``, the FAQ or help pages (text, Markdown, HTML):
  their questions ("How do I reset my password?"), headings and short list items become
  capability probes, each with the file it came from.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from sparring._files import read_user_text, user_files
from sparring.errors import UserInputError
from sparring.explore._model import ExplorationModel
from sparring.explore._project import Definition

DOC_SUFFIXES = (".txt", ".md", ".markdown", ".html", ".htm")
MAX_DOC_SEEDS = 40
"""Probes taken from the docs at most (the first ones, file by file)."""
MAX_SEED_WORDS = 12
_HEADING = re.compile(r"^\s{0,3}#{1,4}\s+(.+?)\s*#*\s*$")
_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,2}[.)])\s+(.+?)\s*$")


def definition_seeds(definition: Definition) -> list[tuple[str, str]]:
    """Per intent that has examples: the first; then, for each form slot its examples
    carry a value of, the example with the most entity values *without* that slot (the
    form then asks for it: "… for dental care on Monday" makes the bot ask the time);
    when no form slot is among them, the example with the fewest entity values (at least
    one). Each seed once."""
    seeds: list[tuple[str, str]] = []
    for intent, examples in definition.intents.items():
        if not examples:
            continue
        origin = f"the definition: intent {intent}"
        chosen = [examples[0]]
        carried = {e: set(definition.carried.get(e, ())) for e in examples}
        for slot in definition.questions:
            if not any(slot in entities for entities in carried.values()):
                continue
            lacking = [e for e in examples if carried[e] and slot not in carried[e]]
            richest = max(lacking, key=lambda e: len(carried[e]), default=None)
            if richest is not None and richest not in chosen:
                chosen.append(richest)
        if len(chosen) == 1:
            partial = [e for e in examples if definition.entities.get(e, 0) > 0]
            fewest = min(partial, key=lambda e: definition.entities[e], default=None)
            chosen += [fewest] if fewest is not None and fewest != examples[0] else []
        seeds += [(example, origin) for example in chosen]
    return seeds


def docs_seeds(folder: Path | str) -> list[tuple[str, str]]:
    """Capability probes read from the help pages in ``folder`` (see the module
    docstring). Raises ``UserInputError`` when it is no folder or holds no page."""
    root = Path(folder)
    if not root.is_dir():
        raise UserInputError(f"{root}: --docs must be a folder of help pages")
    pages = user_files(root, DOC_SUFFIXES)
    if not pages:
        raise UserInputError(f"{root}: no help page ({', '.join(DOC_SUFFIXES)})")
    seeds: dict[str, tuple[str, str]] = {}
    for page in pages:
        text = read_user_text(page, errors="replace")
        lines = _html_lines(text) if page.suffix.lower() in (".html", ".htm") else text.splitlines()
        for probe in _probes(lines):
            seeds.setdefault(probe.lower(), (probe, f"the docs: {page.relative_to(root)}"))
            if len(seeds) >= MAX_DOC_SEEDS:
                return list(seeds.values())
    return list(seeds.values())


def _probes(lines: list[str]) -> list[str]:
    found = []
    for line in lines:
        heading, item = _HEADING.match(line), _ITEM.match(line)
        marked = heading or item
        text = marked.group(1) if marked is not None else line.strip()
        text = re.sub(r"[*_`\[\]]|\(http[^)]*\)", "", text).strip()
        words = text.split()
        if not words or len(words) > MAX_SEED_WORDS:
            continue
        if heading or item or text.endswith("?"):
            found.append(text)
    return found


class _Text(HTMLParser):
    """Block-level lines of an HTML page (headings, list items, paragraphs)."""

    BLOCKS = frozenset({"h1", "h2", "h3", "h4", "li", "dt", "p", "summary", "br", "div"})

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = [""]
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self.skip += 1
        if tag in self.BLOCKS:
            self.lines.append("- " if tag in ("li", "dt") else "# " if tag[0] == "h" else "")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self.skip = max(0, self.skip - 1)
        if tag in self.BLOCKS:
            self.lines.append("")

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.lines[-1] += " ".join(data.split()) + " "


def _html_lines(text: str) -> list[str]:
    parser = _Text()
    parser.feed(text)
    return [line.strip() for line in parser.lines if line.strip(" -#")]


def seed_notes(model: ExplorationModel, seeds: list[tuple[str, str]]) -> list[str]:
    """Which seeds the bot confirmed (a node records the seed's evidence) and which not
    (it answered with the fallback, or the exploration ran out of sessions)."""
    if not seeds:
        return []
    confirmed = {e for node in model.functionalities for e in node.evidence}
    notes = []
    for kind in ("the definition", "the docs"):
        mine = [(u, o) for u, o in seeds if o.startswith(kind)]
        if not mine:
            continue
        origins = list(dict.fromkeys(o for _, o in mine))
        missed = [o.split(": ", 1)[1] for o in origins if o not in confirmed]
        line = f"{kind}: {len(origins) - len(missed)} of {len(origins)} confirmed by the bot"
        notes.append(line + (f" (not confirmed: {', '.join(missed)})" if missed else ""))
    if model.strategy.value != "offline":
        notes.append("seeds (--project, --docs) are used by the offline crawler only")
    return notes
