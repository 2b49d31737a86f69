"""From a crawl to the functionality model (the offline counterpart of TRACER's
extraction and workflow inference, §3.3–3.5).

- Every state but the start and the fallback is a node. At a state, options that lead to
  the same next state are *values of one parameter* (the state's question, with those
  options); an option that alone leads somewhere else is a *navigation* to its own node,
  named after the option ("Custom", "Opening hours"). Options of the start state are
  navigations. Options not tried are counted with the largest group.
- A node reached by values is named after what its question asks ("choose size"); an
  answer (asks and offers nothing) reached by values is the *confirmation* of the flow.
- Paths are workflow edges: a node's parents are the nodes whose states lead to it; a
  node reached from the start has none. Outputs are the typed values (money, times,
  dates, numbers) and ids found in the node's reply. The bot is transactional when some
  flow asks for two parameters in a row, informational otherwise.
"""

from __future__ import annotations

import re
from datetime import date

from sparring.explore._crawl import FREE, Crawl, State
from sparring.explore._model import (
    FREE_ANSWER_EVIDENCE,
    BotType,
    ExplorationModel,
    Functionality,
    Output,
    Parameter,
    ValueType,
)
from sparring.explore._options import parameter_name
from sparring.explore._session import Findings
from sparring.explore._stated import add_stated_dates
from sparring.types import Strategy
from sparring.values import find_values, format_value

_OUTPUT_KINDS: tuple[tuple[str, ValueType, str], ...] = (
    ("money", "money", "price"),
    ("time", "time", "time"),
    ("date", "date", "date"),
)
_ID = re.compile(r"\b(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z])[A-Z0-9-]{4,}\b")


def build_model(crawl: Crawl, findings: Findings, chatbot: str = "") -> ExplorationModel:
    """The ``ExplorationModel`` of ``crawl`` (see the module docstring)."""
    roles = _roles(crawl)
    names: dict[str, str] = {}
    notes = list(crawl.notes)
    root = crawl.states.get(crawl.root or "")
    for key, state in crawl.states.items():
        if state.fallback or not (state.text.strip() or state.offer.options):
            continue  # the fallback, or an empty reply (recorded in its session), is no task
        if key == crawl.root and state.offer.options:
            continue  # a menu: where conversations start, not something the user does
        names[key] = _unique(_name(crawl, key, roles), set(names.values()))
    nodes: list[Functionality] = []
    for key, name in names.items():
        state = crawl.states[key]
        parents = sorted(
            {names[s] for s, _, d in crawl.edges if d == key and s in names},
            key=list(names.values()).index,
        )
        nodes.append(
            Functionality(
                id=name,
                name=name.replace("_", " "),
                description=_description(state),
                parameters=_parameters(crawl, state, roles, names),
                outputs=_outputs(state),
                parents=[p for p in parents if p != name],
                utterances=sorted(
                    {crawl.utterances[s, o] for s, o, d in crawl.edges if d == key and o != FREE}
                    | ({state.path[-1].text} if key == crawl.root and state.path else set())
                ),
                sessions=sorted(state.sessions),
                strategy=Strategy.OFFLINE,
                evidence=_evidence(crawl, key),
            )
        )
    _break_cycles(nodes)
    add_stated_dates(crawl, nodes)
    model = ExplorationModel(
        chatbot=chatbot,
        languages=findings.languages,
        fallback=findings.fallback,
        greeting=findings.greeting or (root.text if root is not None else None),
        functionalities=nodes,
        strategy=Strategy.OFFLINE,
        sessions=crawl.sessions,
        turns=crawl.turns,
        notes=notes,
    )
    free_text = root is not None and (not root.offer.options or bool(crawl.origins))
    if free_text and len([n for n in nodes if n.id != "greeting"]) < 2:
        model.notes.append(
            "the chatbot offers no options to follow (no buttons, none announced in its text), "
            "and the capability probes, what its greeting, fallback and help replies list and "
            "the common requests led to fewer than 2 functionalities; explore with a model "
            "(--model) for TRACER's sessions, or seed the crawl with the bot's definition "
            "(--project DIR) or its help pages (--docs DIR)"
        )
    for node in model.functionalities:
        node.category = _category(model, node)
    model.bot_type = _bot_type(model)
    return model


def _roles(crawl: Crawl) -> dict[tuple[str, str], str]:
    """``"value"`` or ``"navigation"`` for every tried (state, option)."""
    roles: dict[tuple[str, str], str] = {}
    by_state: dict[str, dict[str, list[str]]] = {}
    for (src, option), dst in crawl.transitions.items():
        by_state.setdefault(src, {}).setdefault(dst, []).append(option)
    for src, groups in by_state.items():
        largest = max(groups.values(), key=len)
        for options in groups.values():
            value = src != crawl.root and (options is largest or len(options) > 1)
            for option in options:
                roles[(src, option)] = "value" if value or option == FREE else "navigation"
    return roles


def _name(crawl: Crawl, key: str, roles: dict[tuple[str, str], str]) -> str:
    state = crawl.states[key]
    if key == crawl.root:
        return "greeting"
    incoming = [(s, o) for s, o, d in sorted(crawl.edges) if d == key]
    navigation = [t for t in incoming if roles.get(t) == "navigation"]
    # the bot's own words name a node before a common request that reached it too
    navigation.sort(key=lambda t: crawl.origins.get(t[1].lower(), "").startswith("a common"))
    if navigation:
        return _slug(crawl.utterances[navigation[0]])
    if state.offer.options or state.asks:
        return _slug(f"choose {parameter_name(state.offer.question)}")
    return "confirmation" if _outputs(state) else "answer"


def _parameters(
    crawl: Crawl, state: State, roles: dict[tuple[str, str], str], names: dict[str, str]
) -> list[Parameter]:
    if state.key == crawl.root or not (state.offer.options or state.asks):
        return []  # the greeting's "What can I do for you?" is an invitation, not a parameter
    values = [o for o in state.options if roles.get((state.key, o), "value") == "value"]
    if not values:
        return []
    options = [o for o in values if o != FREE]
    examples = _said_back(crawl, state.key, list(crawl.accepted.get(state.key, [])))
    leads: dict[str, list[str]] = {}
    for answer in examples:
        target = names.get(crawl.led.get((state.key, answer), ""))
        if target is not None:
            leads.setdefault(target, []).append(answer)
    return [
        Parameter(
            name=parameter_name(state.offer.question),
            description=state.offer.question or "",
            options=options,
            type="string",
            question=state.offer.question,
            examples=examples,
            leads=leads,
            said_back=bool(options) or all(_stated(crawl, state.key, e) for e in examples),
        )
    ]


def _stated(crawl: Crawl, key: str, answer: str) -> bool:
    """Whether the bot stated ``answer`` when it took it at state ``key``: in its reply
    to it or the state that reply opened, in a sentence that is no question ("Alex Smith
    said Alex Smith?" only asks about it). A bot that says a value back somewhere else
    (another question's reply) gives no evidence for this one."""
    wanted = answer.strip().lower()
    led = crawl.states.get(crawl.led.get((key, answer), ""))
    texts = [crawl.replies.get((key, answer), ""), led.text if led is not None else ""]
    return any(
        wanted in sentence.lower() and not sentence.rstrip().endswith("?")
        for text in texts
        for sentence in _SENTENCE_END.split(text)
    )


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n")


def _said_back(crawl: Crawl, key: str, answers: list[str]) -> list[str]:
    """The accepted answers without the synonyms of another one: an answer whose reply
    states another accepted answer instead of itself ("service" → "… for tune-up") is the
    bot's word for that one, and a profile offering both would take the bot's own word
    for a mistake."""
    kept = []
    for answer in answers:
        reply = crawl.replies.get((key, answer), "").lower()
        says_other = any(o != answer and o.lower() in reply for o in answers)
        if not (says_other and answer.lower() not in reply):
            kept.append(answer)
    return kept


def _outputs(state: State) -> list[Output]:
    """Typed values and ids in the state's reply; each output's description is the
    sentence that gave it, so the offline extraction finds the same sentence again."""
    found: list[Output] = []
    for kind, vtype, name in _OUTPUT_KINDS:
        values = find_values(kind, state.text, date.today())
        if values:
            example = str(format_value(kind, values[0].value, None))
            where = f"{name}, as in: {_sentence_at(state.text, values[0].start)}"
            found.append(Output(name=name, description=where, type=vtype, example=example))
    ids = _ID.findall(state.text)
    if ids:
        offset = state.text.index(ids[0])
        name = _id_name(state.text[:offset])
        where = f"{name.replace('_', ' ')}, as in: {_sentence_at(state.text, offset)}"
        found.append(Output(name=name, description=where, type="string", example=ids[0]))
    return found


_ID_NAMED = re.compile(
    r"\b([a-z]+)[\s-]+(id|number|no|code|reference|ref)\b\W*(?:is|was|:|#)?\W*$", re.I
)


def _id_name(before: str) -> str:
    """The bot's own name of the identifier that follows ``before`` ("… your order ID is"
    → ``order_id``, "Booking reference:" → ``booking_reference``); ``id`` when it names
    none. Rules and readers of the run meet the output under the bot's word for it."""
    found = _ID_NAMED.search(before[-60:])
    if found is None or found.group(1).lower() in _NOT_A_NOUN:
        return "id"
    return f"{found.group(1).lower()}_{found.group(2).lower()}"


_NOT_A_NOUN = frozenset({"your", "the", "a", "an", "my", "our", "is", "this", "that", "its"})


def _sentence_at(text: str, offset: int) -> str:
    """The sentence of ``text`` around character ``offset`` (at most 200 characters)."""
    start = max(text.rfind(m, 0, offset) for m in (". ", "! ", "? ", "\n"))
    end_marks = [i for i in (text.find(m, offset) for m in (". ", "! ", "? ", "\n")) if i >= 0]
    end = min(end_marks, default=len(text))
    return text[start + 1 if start >= 0 else 0 : end + 1].strip()[:200]


def _category(model: ExplorationModel, node: Functionality) -> str:
    """The name of the start-level node the node belongs to (its first root ancestor)."""
    seen = {node.id}
    current = node
    while current.parents:
        parent = model.node(current.parents[0])
        if parent.id in seen:
            break
        seen.add(parent.id)
        current = parent
    return current.name


def _bot_type(model: ExplorationModel) -> BotType:
    for node in model.functionalities:
        if node.parameters and any(model.node(c).parameters for c in node.children):
            return "transactional"
    return "informational" if model.functionalities else "unknown"


def _break_cycles(nodes: list[Functionality]) -> None:
    """Drop parent links that close a cycle (a bot that loops back); the first path wins."""
    import networkx as nx

    graph: nx.DiGraph[str] = nx.DiGraph()
    graph.add_nodes_from(n.id for n in nodes)
    for node in nodes:
        kept = []
        for parent in node.parents:
            if not nx.has_path(graph, node.id, parent):
                graph.add_edge(parent, node.id)
                kept.append(parent)
        node.parents = kept


def _slug(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", "_", text.lower()).strip("_") or "functionality"


def _unique(name: str, taken: set[str]) -> str:
    candidate, n = name, 2
    while candidate in taken:
        candidate, n = f"{name}_{n}", n + 1
    return candidate


def _evidence(crawl: Crawl, key: str) -> list[str]:
    """How the node was reached: per incoming option, where that option came from."""
    found: list[str] = []
    for source, option, target in sorted(crawl.edges):
        if target != key:
            continue
        offer = crawl.states[source].offer
        if option == FREE:
            item = FREE_ANSWER_EVIDENCE
        elif option.lower() in crawl.origins and source == crawl.root:
            item = crawl.origins[option.lower()]
        elif offer.from_buttons:
            item = "a button"
        else:
            item = "an option listed in the reply"
        if item not in found:
            found.append(item)
    found.sort(key=lambda item: item.startswith("a common"))  # the bot's own words first
    return found or (["the greeting"] if key == crawl.root else [])


def _description(state: State) -> str:
    """What the bot said at the node: its first sentence for a question or a menu, its
    whole reply (at most 200 characters) for an answer, whose first sentence may be only
    "Thanks Alex!" (coverage finds the node again by these words)."""
    if state.offer.options or state.asks:
        return _first_sentence(state.text)
    return state.text.strip()[:200]


def _first_sentence(text: str) -> str:
    sentence = re.split(r"(?<=[.!?])\s+", text.strip(), maxsplit=1)[0]
    return sentence[:200]
