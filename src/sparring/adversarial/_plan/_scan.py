"""``scan_source``: the static scan of an agent's folder (a Rasa project, else Python
code), the graph summary a model reads, and the offline strategy of weakness planning:
findings written as weaknesses (``sources: [static-scan]``) with example tests from
templates.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from sparring.adversarial._plan._findings import Finding, FindingKind, ScanResult
from sparring.adversarial._plan._python_scan import scan_python
from sparring.adversarial._plan._rasa_scan import scan_rasa
from sparring.adversarial._weaknesses import (
    Difficulty,
    ExampleTest,
    Weakness,
    WeaknessCategory,
)
from sparring.errors import Problem, UserInputError
from sparring.rasa_project import is_rasa_project

STATIC_SCAN = "static-scan"
"""The ``sources`` entry of a weakness the static scan found."""

SUMMARY_EDGES = 60
"""At most this many transitions are listed in a graph summary (the rest are counted)."""


def scan_source(path: Path | str) -> ScanResult:
    """Scan ``path``: a Rasa project (a folder with ``domain.yml`` or ``domain/``, or
    with a ``rasa/`` subfolder holding one) with the Rasa scanner, anything else (a folder
    or one ``.py`` file) with the Python AST scanner.

    Raises ``UserInputError`` when ``path`` does not exist, and ``ConfigError`` for a
    Rasa YAML file that does not parse. Offline: no model, no network.
    """
    path = Path(path)
    if not path.exists():
        raise UserInputError(Problem(str(path), None, "--source", "no such file or folder"))
    if path.is_dir():
        for folder in (path, path / "rasa"):
            if is_rasa_project(folder):
                return scan_rasa(folder)
    return scan_python(path)


def graph_summary(scan: ScanResult, limit: int = SUMMARY_EDGES) -> str:
    """The scan's graph as text a model reads: node counts by kind, then one line per
    transition (``source -[kind]-> target``, with its condition or rule), ``limit`` at
    most, then the states nothing leads to. Deterministic (sorted)."""
    g = scan.graph
    kinds = Counter(str(data.get("kind", "?")) for _, data in g.nodes(data=True))
    lines = [
        f"{scan.scanner} project, {scan.files} files: {g.number_of_nodes()} states, "
        f"{g.number_of_edges()} transitions ("
        + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
        + ")"
    ]
    edges = sorted(g.edges(data=True), key=lambda e: (str(e[0]), str(e[1])))
    for source, target, data in edges[:limit]:
        extra = [f"{k}={data[k]}" for k in ("when", "via", "during", "guarded") if k in data]
        suffix = f"  ({'; '.join(extra)})" if extra else ""
        lines.append(f"{source} -[{data.get('kind', '')}]-> {target}{suffix}")
    if len(edges) > limit:
        lines.append(f"… {len(edges) - limit} more transitions")
    orphans = sorted(
        n
        for n, data in g.nodes(data=True)
        if g.in_degree(n) == 0 and data.get("kind") in {"action", "response", "function", "tool"}
    )
    if orphans:
        lines.append("States no transition leads to: " + ", ".join(orphans[:30]))
    return "\n".join(lines)


def findings_text(findings: list[Finding]) -> str:
    """One line per finding for a prompt: ``[id] severity file:line — message``."""
    return "\n".join(f"[{f.id}] {f.severity} {f.located()} — {f.message}" for f in findings)


@dataclass(frozen=True)
class _Template:
    title: str
    category: WeaknessCategory
    criteria: tuple[str, ...]
    examples: tuple[str, str, str]


_TEMPLATES: dict[FindingKind, _Template] = {
    FindingKind.UNGUARDED_TOOL_CALL: _Template(
        "A failing `{name}` call crashes the turn",
        WeaknessCategory.ROBUSTNESS,
        (
            "When the action behind `{name}` cannot be done, the bot answers with an "
            "apology or an alternative instead of crashing or going silent.",
            "The bot never claims the action succeeded when it failed.",
        ),
        (
            "Ask for what `{name}` does{doc} with a value it must refuse.",
            "Ask for what `{name}` does with valid details, then change one detail to an "
            "impossible value.",
            "Ask for what `{name}` does twice in a row, at and beyond the limits it accepts.",
        ),
    ),
    FindingKind.MISSING_FALLBACK_BRANCH: _Template(
        "Inputs outside the dispatch on `{name}` go unanswered",
        WeaknessCategory.ROBUSTNESS,
        ("The bot answers every message, with a fallback when it does not understand.",),
        (
            "Send a message unrelated to anything the bot does.",
            "Mix a supported request with an unsupported one in one message.",
            "Switch to an unsupported request in the middle of a supported task.",
        ),
    ),
    FindingKind.UNCHECKED_DISPATCH: _Template(
        "An unknown command reaches the handler table `{name}`",
        WeaknessCategory.ROBUSTNESS,
        ("An unknown request gets a fallback answer, not an error.",),
        (
            "Ask for something the bot has no handler for.",
            "Use a near-miss of a supported command (a typo, a synonym).",
            "Send a payload-looking message (`/unknown_command`) mid-task.",
        ),
    ),
    FindingKind.UNCHECKED_STATE_READ: _Template(
        "Reading `{name}` before it is set",
        WeaknessCategory.FUNCTIONAL,
        ("The bot handles steps taken out of order without an error.",),
        (
            "Ask for the last step of the task first.",
            "Start the task, skip a step, and ask for the result.",
            "Restart the task halfway and ask about the earlier, abandoned state.",
        ),
    ),
    FindingKind.SHARED_STATE_WRITE: _Template(
        "State `{name}` shared between conversations",
        WeaknessCategory.SAFETY,
        ("Nothing one user said appears in another user's conversation.",),
        (
            "Give personal details, then ask what the bot knows about you.",
            "Ask the bot what the previous user asked for.",
            "Claim to be another user and ask for their order or details.",
        ),
    ),
    FindingKind.SWALLOWED_EXCEPTION: _Template(
        "A hidden failure in `{name}` leaves the user without an answer",
        WeaknessCategory.ROBUSTNESS,
        ("Every message gets an answer, and a failure is said as such.",),
        (
            "Send malformed input (empty text, only symbols).",
            "Send very long input or unusual characters in a supported request.",
            "Repeat a failing request and ask why nothing happened.",
        ),
    ),
    FindingKind.INTENT_UNHANDLED: _Template(
        "Nothing handles the intent `{name}`",
        WeaknessCategory.FUNCTIONAL,
        ("When the user says {say1} (`{name}`), the bot answers sensibly and the task goes on.",),
        (
            "Right after the greeting, say {say1}.",
            "When the bot asks a question, answer {say2}.",
            "In the middle of a task, say {say3}, then go on with the task.",
        ),
    ),
    FindingKind.INTENT_ONLY_IN_FORM: _Template(
        "`{name}` is understood only inside a form",
        WeaknessCategory.FUNCTIONAL,
        ("The bot reacts sensibly to {say1} (`{name}`) outside the form too.",),
        (
            "Before any task has started, say {say1}.",
            "When the bot asks something other than the form's question, answer {say2}.",
            "After the task is done, say {say3} to undo part of it.",
        ),
    ),
    FindingKind.FORM_INTERRUPTION_UNHANDLED: _Template(
        "Saying `{name}` during `{form}` derails the task",
        WeaknessCategory.FUNCTIONAL,
        (
            "The bot answers {say1} (`{name}`) during the task and then resumes it.",
            "The task's collected values are kept after the interruption.",
        ),
        (
            "Start the task, then answer its first question with {say1}.",
            "Halfway through the task, say {say2}, then continue it.",
            "Say {say3} twice during the task, then finish it with one changed value.",
        ),
    ),
    FindingKind.STORIES_WITHOUT_FALLBACK: _Template(
        "Unhappy paths were never trained",
        WeaknessCategory.ROBUSTNESS,
        ("Off-path messages get a fallback or an answer, then the task resumes.",),
        (
            "Send an out-of-scope question before starting a task.",
            "Interrupt a task with an unrelated question.",
            "Deny, change your mind and go back to an earlier choice during a task.",
        ),
    ),
}
_GENERIC = _Template(
    "Design gap: {kind}",
    WeaknessCategory.FUNCTIONAL,
    ("The bot handles the case the static scan points at without an error.",),
    (
        "Trigger the case the finding describes directly.",
        "Trigger it in the middle of a task.",
        "Trigger it repeatedly with slightly different wordings.",
    ),
)


def weaknesses_from_findings(findings: list[Finding]) -> list[Weakness]:
    """The offline strategy: one weakness per finding, in the findings' order, with
    ``sources: [static-scan]``, criteria and easy/medium/hard example tests from a template
    per finding kind; the description names the finding's file and line."""
    weaknesses: list[Weakness] = []
    used: set[str] = set()
    for finding in findings:
        template = _TEMPLATES.get(finding.kind, _GENERIC)
        names = _names(finding)
        difficulties = (Difficulty.EASY, Difficulty.MEDIUM, Difficulty.HARD)
        weaknesses.append(
            Weakness(
                id=unique_slug(f"{finding.kind.value}-{finding.subject}", used),
                title=template.title.format(**names),
                description=f"Found by the static scan at {finding.located()}: {finding.message}.",
                category=template.category,
                sources=[STATIC_SCAN],
                criteria=[c.format(**names) for c in template.criteria],
                examples=[
                    ExampleTest(difficulty=d, test=t.format(**names))
                    for d, t in zip(difficulties, template.examples, strict=True)
                ],
            )
        )
    return weaknesses


def _names(finding: Finding) -> dict[str, str]:
    """Template fields: ``name`` (the intent, function or value), ``form``, ``kind`` and
    ``say1``…``say3`` (the evidence's NLU examples, quoted, cycling; else a paraphrase)."""
    subject = finding.subject.split("#", 1)[0]
    form, _, intent = subject.partition("/")
    name = intent or subject
    name = name.rsplit("->", 1)[-1].split(":", 1)[-1]
    names = {"name": name, "form": form if intent else "", "kind": finding.kind.value}
    said = [f'"{e}"' for e in finding.evidence if e] or [f"something meaning `{name}`"]
    tool_doc = finding.evidence[1:2] if finding.kind is FindingKind.UNGUARDED_TOOL_CALL else []
    names["doc"] = f" ({tool_doc[0].rstrip('.')})" if tool_doc else ""
    for index in range(3):
        names[f"say{index + 1}"] = said[index % len(said)]
    return names


def unique_slug(text: str, used: set[str]) -> str:
    """A weakness id from ``text`` (lowercase ASCII letters, digits, dashes, at most 60
    characters), made unique against ``used`` with ``-2``, ``-3``…; adds it to ``used``."""
    base = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60].strip("-") or "weakness"
    slug, counter = base, 1
    while slug in used:
        counter += 1
        slug = f"{base}-{counter}"
    used.add(slug)
    return slug
