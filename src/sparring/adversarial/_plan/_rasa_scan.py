"""The static scan of a Rasa project: domain, NLU, rules, stories, forms and the
pipeline, read with line numbers by ``sparring.rasa_project`` (no Rasa needed).

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

from collections.abc import Iterator
from pathlib import Path

from sparring.adversarial._plan._findings import Finding, FindingKind, ScanResult, Severity
from sparring.adversarial._plan._rasa_project import (
    BUILTIN_INTENTS,
    DEFAULT_ACTIONS,
    EVIDENCE,
    UNHAPPY_INTENTS,
    Flow,
    RasaProject,
    Use,
    read_project,
)


def scan_rasa(folder: Path) -> ScanResult:
    """Scan the Rasa project in ``folder``; findings sorted, files relative to ``folder``.

    Raises ``ConfigError`` (file, line) for a YAML file that does not parse."""
    project = read_project(folder)
    result = ScanResult(source=str(folder), scanner="rasa")
    result.files = project.files
    result.findings = list(_checks(project))
    _graph(project, result)
    result.sort()
    return result


# Checks ------------------------------------------------------------------------------------


def _finding(
    kind: FindingKind,
    severity: Severity,
    use: Use,
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


def _checks(p: RasaProject) -> Iterator[Finding]:
    yield from _intent_checks(p)
    yield from _name_checks(p)
    yield from _slot_checks(p)
    yield from _fallback_checks(p)
    yield from _interruption_checks(p)


def _flow_intents(p: RasaProject) -> set[str]:
    return {name for f in p.flows for kind, name, _ in f.steps if kind == "intent"}


def _mapping_intents(p: RasaProject) -> dict[str, list[str]]:
    """intent → slots whose ``from_intent``/``from_trigger_intent`` mapping it fills."""
    found: dict[str, list[str]] = {}
    for slot, (_, mappings) in p.slots.items():
        for mapping in mappings:
            if str(mapping.get("type", "")).endswith("intent") and mapping.get("intent"):
                intents = mapping["intent"]
                for intent in intents if isinstance(intents, list) else [intents]:
                    found.setdefault(str(intent), []).append(slot)
    return found


def _intent_checks(p: RasaProject) -> Iterator[Finding]:
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


def _name_checks(p: RasaProject) -> Iterator[Finding]:
    declared_actions = set(p.actions) | set(p.responses) | set(p.forms) | DEFAULT_ACTIONS
    used_actions: set[str] = set()
    for flow in p.flows:
        for kind, name, line in flow.steps:
            use = Use(flow.use.file, line)
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


def _slot_checks(p: RasaProject) -> Iterator[Finding]:
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


def _fallback_checks(p: RasaProject) -> Iterator[Finding]:
    domain = Use(p.domain_file, 1)
    if p.pipeline and "FallbackClassifier" not in p.pipeline:
        yield _finding(
            FindingKind.NO_NLU_FALLBACK, "high", Use("config.yml", 1), "FallbackClassifier",
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


def _unhappy(story: Flow, forms: set[str]) -> bool:
    """A story with a fallback, out-of-scope or denial intent, or an intent said while
    one of ``forms`` is active."""
    in_form = False
    for kind, name, _ in story.steps:
        if kind == "intent" and (name in UNHAPPY_INTENTS or in_form):
            return True
        if kind == "active_loop":
            in_form = name in forms
    return False


def _interruption_checks(p: RasaProject) -> Iterator[Finding]:
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


def _slot_entities(p: RasaProject, slot: str) -> set[str]:
    mappings = p.slots.get(slot, (None, []))[1]
    return {
        str(m["entity"]) for m in mappings if m.get("type") == "from_entity" and m.get("entity")
    }


# Graph -------------------------------------------------------------------------------------


def _graph(p: RasaProject, result: ScanResult) -> None:
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
