"""The static scan of a Rasa 3.x project: domain, NLU, rules, stories, forms and the
pipeline, read as YAML with line numbers (no Rasa needed).

The checks (``FindingKind``): intents no rule, story or mapping uses; intents used only
by a form's slot mapping; intents without NLU examples; names used in rules or stories
but not declared; responses and actions nothing uses; form slots never asked or with no
mapping; custom-mapped slots no action code sets; ``from_entity`` mappings to unknown
entities; no ``FallbackClassifier`` or no ``nlu_fallback`` rule; intents not handled while
a form is active; stories with happy paths only. The graph: intents → actions they
predict (rules, stories), actions → the next action, forms → the slots they ask, intents
→ slots their mappings fill.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sparring._yaml import LineMap, load_yaml_with_lines
from sparring.adversarial._plan._findings import Finding, FindingKind, ScanResult, Severity

DEFAULT_ACTIONS = frozenset(
    {
        "action_listen",
        "action_restart",
        "action_session_start",
        "action_default_fallback",
        "action_deactivate_loop",
        "action_revert_fallback_events",
        "action_default_ask_affirmation",
        "action_default_ask_rephrase",
        "action_two_stage_fallback",
        "action_unlikely_intent",
        "action_back",
        "action_extract_slots",
    }
)
"""Rasa's built-in actions: used without being declared."""

EVIDENCE = 3
"""NLU examples kept as a finding's evidence at most."""
BUILTIN_INTENTS = frozenset({"nlu_fallback", "restart", "back", "session_start"})
UNHAPPY_INTENTS = frozenset({"nlu_fallback", "out_of_scope", "deny", "stop", "chitchat"})
_STRING = re.compile(r"""["']([A-Za-z_][\w]*)["']""")
_ANNOTATION = re.compile(r"\]\((\w+)\)|\"entity\":\s*\"(\w+)\"")
"""An entity annotated in an NLU example: ``[coke](drink)`` or ``{"entity": "drink"}``."""


@dataclass
class _Use:
    """Where a name is used: file and line."""

    file: str
    line: int | None


@dataclass
class _Project:
    root: Path
    domain_file: str = "domain.yml"
    intents: dict[str, _Use] = field(default_factory=dict)
    entities: set[str] = field(default_factory=set)
    slots: dict[str, tuple[_Use, list[dict[str, Any]]]] = field(default_factory=dict)
    forms: dict[str, tuple[_Use, list[str]]] = field(default_factory=dict)
    responses: dict[str, _Use] = field(default_factory=dict)
    actions: dict[str, _Use] = field(default_factory=dict)
    examples: dict[str, _Use] = field(default_factory=dict)
    example_entities: dict[str, set[str]] = field(default_factory=dict)
    example_texts: dict[str, list[str]] = field(default_factory=dict)
    flows: list[_Flow] = field(default_factory=list)
    pipeline: list[str] = field(default_factory=list)
    code_strings: set[str] = field(default_factory=set)
    stories_file: str | None = None


@dataclass
class _Flow:
    """A rule or story: its steps as ``(kind, name, line)``; ``condition`` the active
    loop it needs (rules)."""

    kind: str
    name: str
    use: _Use
    steps: list[tuple[str, str, int | None]]
    condition: str | None = None


def is_rasa_project(folder: Path) -> bool:
    """True when ``folder`` holds a Rasa domain (``domain.yml``/``.yaml`` or ``domain/``)."""
    return any((folder / name).exists() for name in ("domain.yml", "domain.yaml", "domain"))


def scan_rasa(folder: Path) -> ScanResult:
    """Scan the Rasa project in ``folder``; findings sorted, files relative to ``folder``.

    Raises ``ConfigError`` (file, line) for a YAML file that does not parse."""
    project = _read(folder)
    result = ScanResult(source=str(folder), scanner="rasa")
    result.files = len(list(_yaml_files(folder)))
    result.findings = list(_checks(project))
    _graph(project, result)
    result.sort()
    return result


# Reading -----------------------------------------------------------------------------------


def _yaml_files(folder: Path) -> Iterator[Path]:
    for path in sorted(folder.rglob("*")):
        if path.suffix in (".yml", ".yaml") and path.is_file():
            parts = set(path.relative_to(folder).parts)
            if not parts & {"models", ".rasa", "tests", "results"}:
                yield path


def _read(folder: Path) -> _Project:
    project = _Project(root=folder)
    for path in _yaml_files(folder):
        data, lines = load_yaml_with_lines(path)
        if not isinstance(data, dict):
            continue
        rel = path.relative_to(folder).as_posix()
        if rel.startswith("domain") or "intents" in data or "responses" in data:
            _read_domain(project, rel, data, lines)
        if isinstance(data.get("nlu"), list):
            _read_nlu(project, rel, data["nlu"], lines)
        for kind in ("rules", "stories"):
            if isinstance(data.get(kind), list):
                _read_flows(project, rel, kind, data[kind], lines)
        if isinstance(data.get("pipeline"), list):
            project.pipeline += [
                str(c.get("name")) for c in data["pipeline"] if isinstance(c, dict)
            ]
    for path in sorted(folder.rglob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        project.code_strings |= set(_STRING.findall(text))
    return project


def _name(item: Any) -> str:
    if isinstance(item, dict) and item:
        return str(next(iter(item)))
    return str(item)


def _read_domain(project: _Project, rel: str, data: dict[str, Any], lines: LineMap) -> None:
    project.domain_file = rel
    for index, item in enumerate(data.get("intents") or []):
        project.intents[_name(item)] = _Use(rel, lines.get(("intents", index)))
    project.entities |= {_name(e) for e in data.get("entities") or []}
    for name, slot in (data.get("slots") or {}).items():
        mappings = slot.get("mappings") if isinstance(slot, dict) else None
        use = _Use(rel, lines.get(("slots", name)))
        project.slots[str(name)] = (use, [m for m in mappings or [] if isinstance(m, dict)])
    for name, form in (data.get("forms") or {}).items():
        required = form.get("required_slots") if isinstance(form, dict) else None
        slots = [str(s) for s in required] if isinstance(required, list) else []
        project.forms[str(name)] = (_Use(rel, lines.get(("forms", name))), slots)
    for name in data.get("responses") or {}:
        project.responses[str(name)] = _Use(rel, lines.get(("responses", name)))
    for index, item in enumerate(data.get("actions") or []):
        project.actions[_name(item)] = _Use(rel, lines.get(("actions", index)))


def _read_nlu(project: _Project, rel: str, items: list[Any], lines: LineMap) -> None:
    for index, item in enumerate(items):
        if isinstance(item, dict) and "intent" in item:
            intent = str(item["intent"])
            project.examples.setdefault(intent, _Use(rel, lines.get(("nlu", index))))
            text = str(item.get("examples") or "")
            found = {a or b for a, b in _ANNOTATION.findall(text)}
            project.example_entities.setdefault(intent, set()).update(found)
            texts = project.example_texts.setdefault(intent, [])
            texts += [_plain_example(line) for line in text.splitlines() if line.strip()]


def _plain_example(line: str) -> str:
    """An NLU example as a user types it: ``- a [large](size) [coke](drink)`` → ``a large
    coke``."""
    text = re.sub(r"\[([^\]]*)\](\([^)]*\)|\{[^}]*\})", r"\1", line.strip())
    return text.removeprefix("-").strip()


def _read_flows(project: _Project, rel: str, kind: str, items: list[Any], lines: LineMap) -> None:
    if kind == "stories" and items:
        project.stories_file = rel
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        name = str(item.get("rule") or item.get("story") or f"{kind}[{index}]")
        flow = _Flow(kind, name, _Use(rel, lines.get((kind, index))), [])
        for cond in item.get("condition") or []:
            if isinstance(cond, dict) and cond.get("active_loop"):
                flow.condition = str(cond["active_loop"])
        for s_index, step in enumerate(item.get("steps") or []):
            line = lines.get((kind, index, "steps", s_index))
            flow.steps += list(_step(step, line))
        project.flows.append(flow)


def _step(step: Any, line: int | None) -> Iterator[tuple[str, str, int | None]]:
    if not isinstance(step, dict):
        return
    for key in ("intent", "action", "active_loop"):
        if step.get(key) is not None:
            yield key, str(step[key]), line
    for option in step.get("or") or []:
        if isinstance(option, dict) and option.get("intent"):
            yield "intent", str(option["intent"]), line


# Checks ------------------------------------------------------------------------------------


def _finding(
    kind: FindingKind,
    severity: Severity,
    use: _Use,
    subject: str,
    message: str,
    evidence: list[str] | None = None,
) -> Finding:
    return Finding(
        kind=kind,
        severity=severity,
        file=use.file,
        line=use.line,
        subject=subject,
        message=message,
        evidence=(evidence or [])[:EVIDENCE],
    )


def _checks(p: _Project) -> Iterator[Finding]:
    yield from _intent_checks(p)
    yield from _name_checks(p)
    yield from _slot_checks(p)
    yield from _fallback_checks(p)
    yield from _interruption_checks(p)


def _flow_intents(p: _Project) -> set[str]:
    return {name for f in p.flows for kind, name, _ in f.steps if kind == "intent"}


def _mapping_intents(p: _Project) -> dict[str, list[str]]:
    """intent → slots whose ``from_intent``/``from_trigger_intent`` mapping it fills."""
    found: dict[str, list[str]] = {}
    for slot, (_, mappings) in p.slots.items():
        for mapping in mappings:
            if str(mapping.get("type", "")).endswith("intent") and mapping.get("intent"):
                intents = mapping["intent"]
                for intent in intents if isinstance(intents, list) else [intents]:
                    found.setdefault(str(intent), []).append(slot)
    return found


def _intent_checks(p: _Project) -> Iterator[Finding]:
    in_flows, in_mappings = _flow_intents(p), _mapping_intents(p)
    for intent, use in p.intents.items():
        if intent not in in_flows and intent not in in_mappings:
            yield _finding(
                FindingKind.INTENT_UNHANDLED, "high", use, intent,
                f"intent `{intent}` is in the domain but no rule, story or slot mapping "
                "uses it: the next action is left to the policy's guess",
                p.example_texts.get(intent),
            )  # fmt: skip
        elif intent not in in_flows:
            slots = ", ".join(in_mappings[intent])
            yield _finding(
                FindingKind.INTENT_ONLY_IN_FORM, "medium", use, intent,
                f"intent `{intent}` is used only by the mapping of slot(s) {slots}; no "
                "rule or story handles it outside that form",
                p.example_texts.get(intent),
            )  # fmt: skip
        if intent not in p.examples and intent not in BUILTIN_INTENTS:
            yield _finding(
                FindingKind.INTENT_WITHOUT_EXAMPLES, "medium", use, intent,
                f"intent `{intent}` has no NLU examples: it can never be recognised",
            )  # fmt: skip


def _name_checks(p: _Project) -> Iterator[Finding]:
    declared_actions = set(p.actions) | set(p.responses) | set(p.forms) | DEFAULT_ACTIONS
    used_actions: set[str] = set()
    for flow in p.flows:
        for kind, name, line in flow.steps:
            use = _Use(flow.use.file, line)
            if kind == "intent" and name not in p.intents and name not in BUILTIN_INTENTS:
                yield _finding(
                    FindingKind.UNDECLARED_NAME, "high", use, f"intent:{name}",
                    f"{flow.kind[:-1]} `{flow.name}` uses intent `{name}`, which the "
                    "domain does not declare",
                )  # fmt: skip
            if kind == "action":
                used_actions.add(name)
                if name not in declared_actions:
                    yield _finding(
                        FindingKind.UNDECLARED_NAME, "high", use, f"action:{name}",
                        f"{flow.kind[:-1]} `{flow.name}` runs `{name}`, which the domain "
                        "declares neither as action, response nor form",
                    )  # fmt: skip
    asked = {f"utter_ask_{slot}" for slot in p.slots} | {
        f"utter_ask_{form}_{slot}" for form, (_, slots) in p.forms.items() for slot in slots
    }
    for response, use in p.responses.items():
        if (
            response not in used_actions
            and response not in asked
            and response not in p.code_strings
            and response != "utter_default"
        ):
            yield _finding(
                FindingKind.RESPONSE_UNUSED, "low", use, response,
                f"response `{response}` is never used by a rule, story, form or action",
            )  # fmt: skip
    for action, use in p.actions.items():
        validating = action.startswith(("validate_", "action_ask_"))
        if action not in used_actions and not validating:
            yield _finding(
                FindingKind.ACTION_UNUSED, "low", use, action,
                f"action `{action}` is declared but no rule or story runs it",
            )  # fmt: skip


def _slot_checks(p: _Project) -> Iterator[Finding]:
    askers = set(p.responses) | set(p.actions)
    for form, (form_use, slots) in p.forms.items():
        for slot in slots:
            names = {f"utter_ask_{form}_{slot}", f"utter_ask_{slot}"}
            names |= {f"action_ask_{form}_{slot}", f"action_ask_{slot}"}
            if not names & askers:
                yield _finding(
                    FindingKind.SLOT_NEVER_ASKED, "high", form_use, f"{form}.{slot}",
                    f"form `{form}` requires slot `{slot}` but has no `utter_ask_{slot}` "
                    "or `action_ask_{slot}`: it cannot ask for it",
                )  # fmt: skip
            mappings = p.slots.get(slot, (form_use, []))[1]
            real = [m for m in mappings if m.get("type") != "custom"]
            if not real and f"validate_{form}" not in p.actions:
                yield _finding(
                    FindingKind.SLOT_WITHOUT_MAPPING, "high", form_use, f"{form}.{slot}",
                    f"form `{form}` requires slot `{slot}`, which has no mapping that fills "
                    f"it and no `validate_{form}` action",
                )  # fmt: skip
    for slot, (use, mappings) in p.slots.items():
        for mapping in mappings:
            entity = mapping.get("entity")
            if mapping.get("type") == "from_entity" and entity and entity not in p.entities:
                yield _finding(
                    FindingKind.MAPPING_UNKNOWN_ENTITY, "high", use, slot,
                    f"slot `{slot}` is filled from entity `{entity}`, which the domain "
                    "does not declare",
                )  # fmt: skip
        custom_only = all(m.get("type") == "custom" for m in mappings)
        if custom_only and slot not in p.code_strings:
            yield _finding(
                FindingKind.SLOT_NEVER_FILLED, "medium", use, slot,
                f"slot `{slot}` has only custom mappings and no action code names it: "
                "nothing ever fills it",
            )  # fmt: skip


def _fallback_checks(p: _Project) -> Iterator[Finding]:
    domain = _Use(p.domain_file, 1)
    if p.pipeline and "FallbackClassifier" not in p.pipeline:
        yield _finding(
            FindingKind.NO_NLU_FALLBACK, "high", _Use("config.yml", 1), "FallbackClassifier",
            "the pipeline has no FallbackClassifier: a message the NLU barely recognises "
            "is taken as its best intent",
        )  # fmt: skip
    elif "nlu_fallback" not in _flow_intents(p):
        yield _finding(
            FindingKind.NO_NLU_FALLBACK, "high", domain, "nlu_fallback",
            "no rule or story handles `nlu_fallback`: a message the bot does not "
            "understand gets no fallback answer",
        )  # fmt: skip
    stories = [f for f in p.flows if f.kind == "stories"]
    if stories and not any(_unhappy(story, set(p.forms)) for story in stories):
        first = stories[0].use
        yield _finding(
            FindingKind.STORIES_WITHOUT_FALLBACK, "low", first, "stories",
            f"none of the {len(stories)} stories shows a fallback, an out-of-scope "
            "message, a denial or an interrupted form: the policy learns happy paths only",
        )  # fmt: skip


def _unhappy(story: _Flow, forms: set[str]) -> bool:
    """A story with a fallback, out-of-scope or denial intent, or an intent said while
    one of ``forms`` is active."""
    in_form = False
    for kind, name, _ in story.steps:
        if kind == "intent" and (name in UNHAPPY_INTENTS or in_form):
            return True
        if kind == "active_loop":
            in_form = name in forms
    return False


def _interruption_checks(p: _Project) -> Iterator[Finding]:
    flagged = set(p.intents) - _flow_intents(p)
    for form, (_, slots) in p.forms.items():
        starters: set[str] = set()
        inside: set[str] = set()
        for flow in p.flows:
            intents = [(i, name) for i, (k, name, _) in enumerate(flow.steps) if k == "intent"]
            loops = [i for i, (k, name, _) in enumerate(flow.steps) if name == form]
            if flow.condition == form:
                inside |= {name for _, name in intents}
            elif loops:
                before = [name for i, name in intents if i < loops[0]]
                starters |= set(before[-1:])
                inside |= {name for i, name in intents if i > loops[0]}
        filling = {e for s in slots for e in _slot_entities(p, s)}
        mapped = {i for i, s in _mapping_intents(p).items() if set(s) & set(slots)}
        for intent, intent_use in p.intents.items():
            examples = p.example_entities.get(intent, set())
            if (
                intent in flagged | starters | inside | mapped
                or intent in BUILTIN_INTENTS
                or examples & filling
            ):
                continue
            yield _finding(
                FindingKind.FORM_INTERRUPTION_UNHANDLED, "medium", intent_use,
                f"{form}/{intent}",
                f"intent `{intent}` has no rule or story while form `{form}` is active, "
                "and its examples fill none of the form's slots: said mid-form, the form "
                "rejects it and no rule brings the user back to the form",
                p.example_texts.get(intent),
            )  # fmt: skip


def _slot_entities(p: _Project, slot: str) -> set[str]:
    mappings = p.slots.get(slot, (None, []))[1]
    return {
        str(m["entity"]) for m in mappings if m.get("type") == "from_entity" and m.get("entity")
    }


# Graph -------------------------------------------------------------------------------------


def _graph(p: _Project, result: ScanResult) -> None:
    g = result.graph
    for intent, use in p.intents.items():
        g.add_node(f"intent:{intent}", kind="intent", file=use.file, line=use.line)
    for name, use in p.responses.items():
        g.add_node(f"action:{name}", kind="response", file=use.file, line=use.line)
    for name, use in p.actions.items():
        g.add_node(f"action:{name}", kind="action", file=use.file, line=use.line)
    for form, (use, slots) in p.forms.items():
        g.add_node(f"action:{form}", kind="form", file=use.file, line=use.line)
        for slot in slots:
            g.add_node(f"slot:{slot}", kind="slot")
            g.add_edge(f"action:{form}", f"slot:{slot}", kind="asks")
        if f"validate_{form}" in p.actions:
            g.add_edge(f"action:{form}", f"action:validate_{form}", kind="validates")
    for slot in p.slots:
        for asker in (f"utter_ask_{slot}", f"action_ask_{slot}"):
            if asker in p.responses or asker in p.actions:
                g.add_node(f"slot:{slot}", kind="slot")
                g.add_edge(f"slot:{slot}", f"action:{asker}", kind="asked-by")
    for intent, slots in _mapping_intents(p).items():
        for slot in slots:
            g.add_edge(f"intent:{intent}", f"slot:{slot}", kind="fills")
    for flow in p.flows:
        previous: str | None = None
        for kind, name, _ in flow.steps:
            if kind == "active_loop":
                continue
            node = f"{kind}:{name}"
            if node not in g:
                g.add_node(node, kind=kind)
            if previous is not None:
                edge = "predicts" if previous.startswith("intent:") else "follows"
                if kind == "intent":
                    edge = "follows"
                g.add_edge(previous, node, kind=edge, via=f"{flow.kind[:-1]}: {flow.name}")
                if flow.condition:
                    g.edges[previous, node]["during"] = flow.condition
            previous = node
