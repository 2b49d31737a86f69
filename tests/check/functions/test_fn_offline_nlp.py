"""Offline strategies: Lingua language identification, VADER tone, lazy imports."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

import pytest

from sparring.check._context import FunctionContext
from sparring.check.functions import language, responds_in_same_language, tone
from sparring.check.functions._language import identify
from sparring.conversations import ConversationRecord

Make = Callable[..., ConversationRecord]
Ctx = Callable[..., FunctionContext]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Hello, which pizza would you like to order today?", "ENG"),
        ("Hola, ¿qué pizza quieres pedir hoy?", "ESP"),
        ("Bonjour, quelle pizza voulez-vous commander aujourd'hui ?", "FR"),
        ("Guten Tag, welche Pizza möchten Sie heute bestellen?", "GER"),
        ("Привет, какую пиццу вы хотите заказать?", "OTHER"),  # not one of SENSEI's codes
        ("12345 !!!", "OTHER"),
        (["Hello, how are you?", "Which size do you want?"], "ENG"),
    ],
)
def test_language_offline(context: Ctx, text: object, code: str) -> None:
    ctx = context(None)
    assert language(ctx, text) == code
    assert ctx.evidence[-1].strategy == "offline"
    assert "Lingua" in (ctx.evidence[-1].reason or "")


def test_short_words_are_not_zulu() -> None:
    name, _ = identify("ok")
    assert name in {"ENGLISH", "GERMAN", "SPANISH", "FRENCH", "ITALIAN", "PORTUGUESE"}


def test_declared_language_joins_the_candidates(record: Make) -> None:
    catalan = record(language="Catalan")
    name, confidence = identify("Bon dia, quina pizza voleu demanar avui al vespre?", catalan)
    assert name == "CATALAN" and confidence > 0.5


def test_same_language(record: Make, context: Ctx) -> None:
    conv = record(
        ("user", "Hola, quiero pedir una pizza grande de jamón."),
        ("assistant", "¡Claro! ¿Qué bebida quieres con tu pizza?"),
        ("user", "Una coca cola, por favor."),
        ("assistant", "Perfecto, tu pedido estará listo en quince minutos."),
    )
    ctx = context(conv)
    assert responds_in_same_language(ctx) is True
    assert ctx.evidence[-1].strategy == "offline" and ctx.evidence[-1].turns == []


def test_an_english_pardon_is_no_french(record: Make, context: Ctx) -> None:
    """ALICE's "Pardon me?" (a word English and French share) decides no language."""
    conv = record(
        ("user", "Does it still refer to Real Alex Smith? Yes, please."),
        ("assistant", "Pardon me?"),
    )
    assert responds_in_same_language(context(conv)) is True


def test_different_language_names_the_turns(record: Make, context: Ctx) -> None:
    conv = record(
        ("user", "Hi, I would like to borrow a laptop from the university library."),
        ("assistant", "Lo siento, no tengo información disponible sobre ese servicio."),
        ("user", "Thanks. Where can I print documents on campus?"),
        ("assistant", "ok"),  # too short to judge: skipped
        ("assistant", "Por favor, ¿me lo puedes decir con otras palabras?"),
    )
    ctx = context(conv)
    assert responds_in_same_language(ctx) is False
    assert ctx.evidence[-1].turns == [1, 4]
    assert "spanish after english" in (ctx.evidence[-1].reason or "")


def test_follows_the_user_when_the_user_switches(record: Make, context: Ctx) -> None:
    conv = record(
        ("user", "Hello, what time does the train to Boston leave?"),
        ("assistant", "The next train to Boston leaves at ten in the morning."),
        ("user", "¿Puedes responderme en español a partir de ahora, por favor?"),
        ("assistant", "Sorry, I can only help you with train schedules and tickets."),
    )
    ctx = context(conv)
    assert responds_in_same_language(ctx) is False
    assert ctx.evidence[-1].turns == [3]


def test_options_picked_from_the_chatbot_say_no_language(record: Make, context: Ctx) -> None:
    # "chicken or corn" alone reads as German (0.55): a false failure of a correct bot in
    # the newcomer's `sparring run` on the example pizzeria
    conv = record(
        ("user", "Can I order a pizza?"),
        ("assistant", "Which toppings would you like? You can choose ham, chicken or corn."),
        ("user", "chicken or corn"),
        ("assistant", "Which drink would you like with your order? We have coke and water."),
        ("user", "Lemonade"),
        ("assistant", "Your order is confirmed: a pizza with chicken and corn."),
    )
    ctx = context(conv)
    assert responds_in_same_language(ctx) is True, ctx.evidence[-1].reason


def test_server_errors_are_left_out_as_in_sensei(record: Make, context: Ctx) -> None:
    conv = record(
        ("user", "Hola, necesito ayuda para activar mi correo de la universidad."),
        ("assistant", "Error: The server did not respond."),
        ("assistant", "Error: The server did not respond."),
    )
    ctx = context(conv)
    assert responds_in_same_language(ctx) is True  # one utterance left: nothing to do
    assert ctx.evidence[-1].reason == "nothing to compare"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Great, thank you so much! I love it.", "POSITIVE"),
        ("This is terrible, I hate this awful service.", "NEGATIVE"),
        ("The store opens at 9.", "NEUTRAL"),
    ],
)
def test_tone_offline(context: Ctx, text: str, expected: str) -> None:
    ctx = context(None)
    assert tone(ctx, text) == [expected]
    assert ctx.evidence[-1].strategy == "offline"


def test_tone_of_a_list_and_of_a_bad_value(context: Ctx) -> None:
    assert tone(context(None), ["Wonderful!", "Horrible.", "Table."]) == [
        "POSITIVE",
        "NEGATIVE",
        "NEUTRAL",
    ]
    with pytest.raises(ValueError, match="list of strings"):
        tone(context(None), 3.5)


def test_heavy_libraries_load_lazily() -> None:
    code = (
        "import sys, sparring.check.functions;"
        "print(sorted(m for m in ('sklearn', 'lingua', 'vaderSentiment', 'litellm', "
        "'sentence_transformers') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_user_naming_an_option_does_not_switch_the_users_language(
    record: Make, context: Ctx
) -> None:
    conv = record(
        ("user", "I would like to order a pizza please"),
        ("assistant", "Which pizza would you like? We have margherita and pepperoni."),
        ("user", "pizza Margherita"),  # Lingua reads this as Italian
        ("assistant", "What size would you like: small, medium or large?"),
    )
    assert responds_in_same_language(context(conv)) is True
    switched = record(
        ("user", "I would like to order a pizza please"),
        ("assistant", "Which pizza would you like?"),
        ("user", "Vorrei una pizza margherita grande, per favore"),
        ("assistant", "What size would you like: small, medium or large?"),
    )
    assert responds_in_same_language(context(switched)) is False
