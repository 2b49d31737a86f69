"""An informational test bot (independent questions, no buttons) and its scripted model.

``FaqBot`` answers about opening hours, location and contact; ``faq_responder`` explores
it and, at the workflow step, proposes links between independent topics that the
strategy must not keep (an informational bot's workflow is conservative).
"""

from __future__ import annotations

from typing import Any

from tests.explore.scripts.pizza_script import DONE, bot_lines, ids_in, say, step_of

FAQ_FALLBACK = "Sorry, I can only answer about hours, location and contact."


class FaqBot:
    """One conversation with the library help desk."""

    def greeting(self) -> str:
        """The greeting."""
        return "Hi! I am the library help desk. Ask me about hours, location or contact."

    def respond(self, text: str) -> str:
        """The answer to ``text``."""
        said = text.lower()
        if "open" in said or "hours" in said:
            return "We are open from 9:00 to 17:00, Monday to Friday."
        if "where" in said or "location" in said:
            return "We are at 1 Main Street."
        if "contact" in said or "phone" in said:
            return "Call 555-0100 or write to help@library.example."
        return FAQ_FALLBACK


def faq_responder(messages: list[dict[str, str]]) -> Any:
    """The scripted model for ``FaqBot``."""
    step = step_of(messages)
    if step == "probe":
        return {"languages": ["en"], "is_fallback": True, "fallback": FAQ_FALLBACK}
    if step == "explorer":
        focus = messages[0]["content"].split("FOCUS:", 1)[1]
        bot = messages[-1]["content"]
        if "'show_opening_hours'" in focus:
            return say("When are you open?") if "help desk" in bot else DONE
        plan = {
            "help desk": "When are you open?",
            "We are open": "Where are you?",
            "Main Street": "How can I contact you?",
        }
        return next((say(v) for k, v in plan.items() if k in bot), DONE)
    if step == "extract":
        found = []
        for marker, name in [
            ("We are open", "show_opening_hours"),
            ("Main Street", "show_location"),
            ("555-0100", "show_contact"),
        ]:
            turn = next((u for u, line in bot_lines(messages[-1]["content"]) if marker in line), 0)
            if turn:
                found.append({"name": name, "description": name, "user_turns": [turn]})
        return {"functionalities": found}
    if step == "merge":
        return {"duplicates": []}
    if step == "consolidate":
        return {"groups": []}
    if step == "classify":
        return {"bot_type": "informational", "reason": "independent questions"}
    if step == "workflow":
        invented = {"show_location": ["show_opening_hours"], "show_contact": ["show_location"]}
        return {"nodes": [{"id": i, "parents": invented.get(i, [])} for i in ids_in(messages)]}
    if step == "categories":
        return {"categories": [{"id": i, "category": "Library"} for i in ids_in(messages)]}
    raise AssertionError(step)
