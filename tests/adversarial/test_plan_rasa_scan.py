"""The static scan of Rasa 3.x projects: the example pizzeria's real gaps (each checked
by reading its domain, rules and stories), every Rasa check on a small project with
planted gaps, and the graph of intents, actions, forms and slots."""

from __future__ import annotations

from pathlib import Path

from sparring.adversarial import FindingKind, graph_summary, scan_source

ROOT = Path(__file__).resolve().parents[2]
PIZZERIA = ROOT / "examples" / "pizzeria" / "rasa"
GAPPY = Path(__file__).parent / "plan_fixtures" / "gappy_rasa"


def test_the_pizzerias_real_gaps() -> None:
    scan = scan_source(PIZZERIA.parent)  # the folder holding rasa/ is found too
    assert scan.scanner == "rasa"
    found = {(f.kind.value, f.subject, f.file, f.line) for f in scan.findings}
    assert found == {
        # `affirm` (domain.yml:11) appears in no rule, story or slot mapping
        ("intent-unhandled", "affirm", "domain.yml", 11),
        # `deny` only fills `drink` (from_intent, inside pizza_form); no rule or story
        ("intent-only-in-form", "deny", "domain.yml", 12),
        # the "... during the order" rules cover price, hours, wait, order id, menu,
        # nlu_fallback and out_of_scope, but not greet, goodbye or thank
        ("form-interruption-unhandled", "pizza_form/greet", "domain.yml", 8),
        ("form-interruption-unhandled", "pizza_form/goodbye", "domain.yml", 9),
        ("form-interruption-unhandled", "pizza_form/thank", "domain.yml", 10),
        # both stories are happy paths
        ("stories-without-fallback", "stories", "data/stories.yml", 4),
    }
    # what the pizzeria does right is not flagged: order_drink fills the form's drink
    # slot, nlu_fallback has a rule and the pipeline a FallbackClassifier
    assert not any("order_drink" in f.subject for f in scan.findings)
    assert not any(f.kind is FindingKind.NO_NLU_FALLBACK for f in scan.findings)
    assert scan.findings[0].severity == "high"  # sorted by severity
    # the evidence is the intent's NLU examples as users type them (nlu.yml)
    evidence = {f.subject: f.evidence for f in scan.findings}
    assert evidence["affirm"] == ["yes", "yes please", "yeah"]
    assert evidence["pizza_form/goodbye"][:2] == ["bye", "goodbye"]


def test_the_pizzerias_graph_of_states_and_transitions() -> None:
    scan = scan_source(PIZZERIA)
    g = scan.graph
    assert g.edges["intent:ask_hours", "action:utter_opening_hours"]["kind"] == "predicts"
    assert g.edges["action:pizza_form", "slot:drink"]["kind"] == "asks"
    assert g.edges["intent:deny", "slot:drink"]["kind"] == "fills"
    assert g.edges["intent:ask_menu", "action:action_show_menu"]["kind"] == "predicts"
    assert g.nodes["intent:affirm"]["kind"] == "intent" and g.degree("intent:affirm") == 0
    summary = graph_summary(scan)
    assert summary.startswith("rasa project, 7 files:")
    assert "intent:ask_price -[predicts]-> action:action_tell_price" in summary
    assert "during=pizza_form" in summary


def test_every_rasa_check_on_a_project_with_planted_gaps() -> None:
    scan = scan_source(GAPPY)
    found = {(f.kind.value, f.subject, f.file, f.line) for f in scan.findings}
    assert found == {
        ("intent-unhandled", "ask_price", "domain.yml", 5),
        ("intent-without-examples", "ask_price", "domain.yml", 5),
        ("undeclared-name", "intent:cancel", "data/rules.yml", 14),
        ("undeclared-name", "action:action_cancel", "data/rules.yml", 15),
        ("response-unused", "utter_legal", "domain.yml", 28),
        ("action-unused", "action_book", "domain.yml", 31),
        ("action-unused", "action_refund", "domain.yml", 32),
        ("form-interruption-unhandled", "booking_form/greet", "domain.yml", 3),
        ("slot-never-asked", "booking_form.guests", "domain.yml", 19),
        ("slot-without-mapping", "booking_form.guests", "domain.yml", 19),
        ("mapping-unknown-entity", "date", "domain.yml", 9),
        ("slot-never-filled", "guests", "domain.yml", 14),
        ("no-nlu-fallback", "FallbackClassifier", "config.yml", 1),
    }
