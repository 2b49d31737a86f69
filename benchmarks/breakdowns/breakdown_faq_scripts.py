"""The user scripts played against the FAQ bots, and the seeded faults' labels.

Each script is what a user says, one message per turn; ``play`` runs a script through a
bot in process and gives the conversation record (user turn, chatbot turn, …; a bot
that raises leaves an empty chatbot turn and a 500 error at it, as sparring's runner
records a crash). ``FAULTS`` says which user messages meet a seeded fault of
``BuggyFaqBot`` and why that turn is a breakdown.
"""

from __future__ import annotations

from breakdown_faq_bot import FaqBot

from sparring.conversations import ConversationError, ConversationRecord, ErrorCode, Turn

CORRECT_SCRIPTS: dict[str, list[str]] = {
    "hours-then-location": ["Hi", "When are you open?", "Where are you located?", "Thanks, bye"],
    "prices": [
        "Hello",
        "How much does a bike cost?",
        "And how much for an electric one?",
        "Thank you",
    ],
    "booking": ["Can I book a bike in advance?", "Do I have to pay a deposit?", "Great, thanks"],
    "family": [
        "Good morning",
        "Do you have bikes for kids?",
        "Are helmets included?",
        "Is there a lock too?",
        "Bye",
    ],
    "out-of-scope": [
        "Hi",
        "Can you recommend a restaurant?",
        "What about the weather tomorrow?",
        "OK, when do you close?",
        "Thanks",
    ],
    "repeated-question": ["What are your opening hours?", "Sorry, what are your hours?", "Bye"],
    "terse": ["price?", "address?", "helmet?", "card?", "bye"],
    "tourist": [
        "Hey",
        "Where can I find you?",
        "Do you have locks?",
        "Can I pay cash?",
        "What time do you open on Friday?",
        "Cheers",
    ],
    "e-bikes": ["Do you rent e-bikes?", "How much is an ebike per hour?", "Can I reserve one?"],
    "chit-chat": ["Hello", "How are you today?", "Do you like cycling?", "When are you open?"],
}
BUGGY_SCRIPTS: dict[str, list[str]] = {
    "closing-time": ["Hi", "When do you close today?", "Where are you?", "Thanks"],
    "e-bike-fallback": ["Hello", "Do you rent e-bikes?", "Electric bikes?", "OK bye"],
    "payment-repeat": ["How much is a bike per day?", "Can I pay by card?", "Bye"],
    "kids-crash": ["Hi", "Do you have children's bikes?", "Hello?", "Are helmets included?"],
    "mixed": [
        "When do you open?",
        "And when do you close?",
        "Is there a deposit to pay?",
        "Do you have electric bikes?",
        "Thanks",
    ],
    "correct-turns": ["Where are you located?", "Are helmets included?", "Can I book online?"],
}
FAULTS: dict[str, str] = {
    "When do you close today?": "seeded fault: gives the price to a question about closing time",
    "And when do you close?": "seeded fault: gives the price to a question about closing time",
    "Do you rent e-bikes?": "seeded fault: falls back on an in-domain question (e-bikes)",
    "Electric bikes?": "seeded fault: falls back on an in-domain question (e-bikes)",
    "Do you have electric bikes?": "seeded fault: falls back on an in-domain question (e-bikes)",
    "Can I pay by card?": "seeded fault: repeats its previous answer to a payment question",
    "Is there a deposit to pay?": "seeded fault: repeats its previous answer to a payment question",
    "Do you have children's bikes?": "seeded fault: the bot crashed (no reply)",
}
"""User message → why the buggy bot's reply to it is a breakdown (``BuggyFaqBot`` only)."""


def play(bot: FaqBot, script: list[str], conversation_id: str) -> ConversationRecord:
    """The conversation of ``bot`` with a user saying ``script`` (see the module docstring)."""
    record = ConversationRecord(id=conversation_id, profile=conversation_id.split("/")[0])
    for text in script:
        record.turns.append(Turn(role="user", text=text))
        try:
            reply = bot.respond(text)
        except RuntimeError as exc:
            record.errors.append(
                ConversationError(
                    code=ErrorCode.NO_RESPONSE, message=str(exc), turn=len(record.turns)
                )
            )
            reply = ""
        record.turns.append(Turn(role="assistant", text=reply, messages=[reply] if reply else []))
    return record
