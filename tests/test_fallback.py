"""The one fallback recogniser (``sparring.fallback``): its rule, the jobs that call it,
and an architecture test that no other module decides "is this reply the fallback?"."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from sparring.adversarial._probes._oracles import fallback as probe_fallback
from sparring.dialogue_acts import DialogueAct, classify_dialogue_act
from sparring.fallback import FallbackConfig, is_fallback

SRC = Path(__file__).resolve().parent.parent / "src" / "sparring"
PIZZA = "I'm sorry, I did not get what you said. I can help you ordering pizzas, and drinks."


def test_the_profile_override_comes_before_chatbot_yaml() -> None:
    config = FallbackConfig.of("Sorry, what?", override="Pardon? I only take pizza orders.")
    assert config.phrases == ("Pardon? I only take pizza orders.", "Sorry, what?")
    match = is_fallback("pardon, I only take pizza orders", config)
    assert match is not None and match.kind == "configured"
    assert match.phrase == "Pardon? I only take pizza orders."


@pytest.mark.parametrize(
    "reply",
    [
        PIZZA,  # the phrase itself
        PIZZA.replace("pizzas", "pizza"),  # a small variation (similarity)
        f"{PIZZA} You can choose: Margarita or Carbonara.",  # contained, followed by help
        f"Hello!\n{PIZZA.replace('drinks', 'sodas')}",  # one line of several, near
    ],
)
def test_a_configured_phrase_is_recognised_contained_similar_or_on_one_line(reply: str) -> None:
    match = is_fallback(reply, PIZZA)
    assert match is not None and match.kind == "configured" and match.phrase == PIZZA


@pytest.mark.parametrize(
    "reply",
    [
        "Sorry, I didn't get that.",
        "I do not understand your message.",
        "Could you please rephrase?",
        "I'm not sure what you mean.",
        "Sorry, can you say that again?",
    ],
)
def test_generic_phrases_are_recognised_whatever_is_configured(reply: str) -> None:
    match = is_fallback(reply, PIZZA)
    assert match is not None and match.kind == "generic" and match.similarity == 1.0
    assert is_fallback(reply, FallbackConfig((PIZZA,), generic=False)) is None


@pytest.mark.parametrize(
    "reply",
    [
        "Thanks for ordering a small pizza! Which drink?",
        "I'm sorry, we are closed on Sundays.",
        "I didn't get a reply from the kitchen yet, one moment.",
        "",
    ],
)
def test_other_replies_are_not_the_fallback(reply: str) -> None:
    assert is_fallback(reply, PIZZA) is None


def test_a_fallback_that_asks_again_is_a_reprompt() -> None:
    asks = is_fallback("Sorry, I didn't understand. What size do you want?")
    assert asks is not None and asks.reprompt
    plain = is_fallback("Sorry, could you rephrase?", "Sorry, can you rephrase?")
    assert plain is not None and not plain.reprompt and plain.kind == "configured"


def test_simulate_probes_and_dialogue_acts_agree() -> None:
    """One reply, one answer: the probes' oracle and the dialogue act say the same."""
    for reply in ("Sorry, I didn't catch that.", "We open at 9."):
        recognised = is_fallback(reply) is not None
        assert (probe_fallback(reply, None) is not None) is recognised
        act = classify_dialogue_act(reply)
        assert (act is DialogueAct.FALLBACK) is recognised


_ALLOWED = {
    # a Rasa project's fallback *action* in its stories (mutation operators), not a reply
    ("mutation/_operators/rasa_dialogue.py", "_fallback_actions"),
    ("mutation/_operators/rasa_dialogue.py", "_is_fallback"),
    # planning findings about a Rasa project's fallback configuration, not a reply
    ("adversarial/_plan/_rasa_scan.py", "_fallback_checks"),
    # a value used when a model call fails, not a reply
    ("metamorphic/_answerability/_llm.py", "_fallback"),
    # the offline breakdown classifier's features, kept as it was trained on DBDC3
    # (its phrase list and similarity are inputs of a shipped, measured model: changing
    # them means retraining and re-measuring, benchmarks/bench_breakdown_offline.py)
    ("evaluate/_features.py", "fallback_similarity"),
    # where simulate takes the phrase from (profile, then chatbot.yaml), not a decision
    ("simulate/_plan.py", "fallback_of"),
    # what the simulated user says after a fallback the runner recognised
    ("simulate/_agenda.py", "_after_fallback"),
    # the accessors of the configured phrase
    ("profiles/_model.py", "fallback"),
    # evaluate's typed breakdown detector: it reads the recogniser's decisions
    # (DialogueView.fallbacks calls is_fallback) and judges the user turn before them
    ("evaluate/_typed.py", "fallback"),
}


def test_no_fallback_decision_outside_the_recogniser() -> None:
    """Every function named for the fallback either is on the list above (another
    meaning of the word) or calls ``is_fallback``: the decision is made in one place."""
    offenders: list[str] = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel == "fallback.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if "fallback" not in node.name.lower() or (rel, node.name) in _ALLOWED:
                continue
            calls = {
                n.func.id if isinstance(n.func, ast.Name) else getattr(n.func, "attr", "")
                for n in ast.walk(node)
                if isinstance(n, ast.Call)
            }
            if not calls & {"is_fallback", "_generic_fallback"}:
                offenders.append(f"{rel}:{node.lineno} {node.name}")
    assert offenders == []


def test_no_module_keeps_its_own_fallback_phrases() -> None:
    """The generic phrases live in ``sparring.fallback.GENERIC_PATTERNS`` only."""
    holders = [
        path.relative_to(SRC).as_posix()
        for path in sorted(SRC.rglob("*.py"))
        if path.name != "fallback.py"
        and any(
            cue in path.read_text(encoding="utf-8")
            for cue in ("(?:understand|", "understand|get|catch", "(?:rephrase|")
        )
    ]
    assert holders == []
