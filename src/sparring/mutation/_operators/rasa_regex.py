"""Where a regular expression can be altered, and how (deterministically).

Two kinds of site, after the regular-expression mutations of Gómez-Abajo et al.'s
operators for task-oriented chatbots ("change a regular expression"):

- a **quantifier** changed: ``?`` removed (an optional part becomes mandatory), ``*``
  made ``+`` (at least once), ``+`` removed (exactly once), ``{m,n}``/``{m,}`` made
  ``{m}``; a lazy or possessive suffix goes with it;
- a **character class** narrowed: its last member dropped (``[a-z0-9]`` → ``[a-z]``), or
  a lone range shortened by its last character (``[1-9]`` → ``[1-8]``).

Escapes (``\\b``, ``\\s``) and group openers (``(?=``, ``(?:``) are never sites.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_BRACES = re.compile(r"\{(\d+)(,(\d*))?\}")


@dataclass(frozen=True)
class RegexSite:
    """Characters ``start``–``end`` of the pattern become ``replacement``; ``what`` says
    so in words."""

    start: int
    end: int
    replacement: str
    what: str

    def apply(self, pattern: str) -> str:
        return pattern[: self.start] + self.replacement + pattern[self.end :]


def _class_end(pattern: str, start: int) -> int:
    """The index just past the ``]`` closing the class opened at ``start``."""
    index = start + 1
    if index < len(pattern) and pattern[index] == "^":
        index += 1
    if index < len(pattern) and pattern[index] == "]":
        index += 1
    while index < len(pattern) and pattern[index] != "]":
        index += 2 if pattern[index] == "\\" else 1
    return min(index + 1, len(pattern))


def _members(body: str) -> list[str]:
    """The members of a class body: ``\\d``, ``a-z`` or one character each."""
    members: list[str] = []
    index = 0
    while index < len(body):
        size = 2 if body[index] == "\\" else 1
        if index + size + 1 < len(body) and body[index + size] == "-":
            end = index + size + 1
            end += 2 if body[end] == "\\" else 1
            members.append(body[index:end])
            index = end
        else:
            members.append(body[index : index + size])
            index += size
    return members


def _narrow(pattern: str, start: int, end: int) -> RegexSite | None:
    opener = 2 if pattern.startswith("[^", start) else 1
    body = pattern[start + opener : end - 1]
    members = _members(body)
    if len(members) >= 2:
        new = pattern[start : start + opener] + "".join(members[:-1]) + "]"
        return RegexSite(start, end, new, f"class {pattern[start:end]} narrowed to {new}")
    lone = members[0] if members else ""
    if len(lone) == 3 and lone[1] == "-" and ord(lone[2]) > ord(lone[0]):
        last = chr(ord(lone[2]) - 1)
        member = lone[0] if last == lone[0] else f"{lone[0]}-{last}"
        new = f"{pattern[start : start + opener]}{member}]"
        return RegexSite(start, end, new, f"class {pattern[start:end]} narrowed to {new}")
    return None


def _quantifier(pattern: str, index: int) -> RegexSite | None:
    char = pattern[index]
    braces = _BRACES.match(pattern, index) if char == "{" else None
    if char not in "?*+" and braces is None:
        return None
    end = braces.end() if braces else index + 1
    if end < len(pattern) and pattern[end] in "?+":
        end += 1  # lazy or possessive
    written = pattern[index:end]
    if char == "?":
        return RegexSite(index, end, "", f"quantifier {written} removed (made mandatory)")
    if char == "*":
        new = "+" + written[1:]
        return RegexSite(index, end, new, f"quantifier {written} made {new} (at least once)")
    if char == "+":
        return RegexSite(index, end, "", f"quantifier {written} removed (exactly once)")
    assert braces is not None
    if braces.group(2) is None:
        return None
    new = "{" + braces.group(1) + "}"
    return RegexSite(index, end, new, f"quantifier {written} made {new}")


def regex_sites(pattern: str) -> list[RegexSite]:
    """Every site of ``pattern``, left to right."""
    sites: list[RegexSite] = []
    index = 0
    previous = ""
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index, previous = index + 2, "atom"
        elif char == "[":
            end = _class_end(pattern, index)
            site = _narrow(pattern, index, end)
            sites.extend([site] if site else [])
            index, previous = end, "atom"
        elif char == "(":
            index, previous = index + 1, "("
            if pattern.startswith("?", index):
                index += 1  # (?:, (?=, (?P<…>: not a quantifier
        elif char in "|^":
            index, previous = index + 1, char
        elif previous == "atom" and (site := _quantifier(pattern, index)) is not None:
            sites.append(site)
            index, previous = site.end, "quantifier"
        else:
            index, previous = index + 1, "atom"
    return sites
