"""A small ChatChecker chatbot folder, written the way ChatChecker's users write theirs:
``config.yaml`` (its chatbot config) and ``chatbot_client.py`` (a ``ChatbotClient`` on
ChatChecker's ``ChatbotClientInterface``), plus a SENSEI profile to simulate against it."""

from __future__ import annotations

from pathlib import Path

CONFIG = """\
id: pizza_bot
chatbot_info:
  name: Pizza Bot
  description: A bot that takes pizza orders for a small pizzeria.
  interaction_method: text-based chat interface
  type: task-oriented
  task: The chatbot must take an order with a size and confirm it.
  constraints:
    - The chatbot should redirect off-topic requests to the pizzeria's phone line.
  known_limitations:
    - Can NOT take payments.
  available_languages:
    - English
    - Spanish
user_simulation_config:
  # turn lengths in words, as ChatChecker writes them
  typical_user_turn_length: "8 words"
  max_user_turn_length: "30 words"
  max_user_turns: 12
"""

CLIENT = """\
from pathlib import Path
from typing import Any, Optional, Tuple

from chat_checker.chatbot_connection.chatbot_client_base import ChatbotClientInterface

MODE = "{mode}"
LOG = Path(__file__).parent / "calls.log"


def log(call: str) -> None:
    with LOG.open("a", encoding="utf-8") as handle:
        handle.write(call + "\\n")


class ChatbotClient(ChatbotClientInterface):
    def __init__(self):
        self.turns = 0

    @classmethod
    def set_up_class(cls) -> Any:
        log("set_up_class")

    @classmethod
    def tear_down_class(cls) -> Any:
        log("tear_down_class")

    def set_up_chat(self) -> Optional[str]:
        log("set_up_chat")
        return "Hi! I take pizza orders. What would you like?"

    def tear_down_chat(self, *args) -> Any:
        log("tear_down_chat")

    def get_response(self, user_message: str) -> Tuple[str, bool]:
        self.turns += 1
        if MODE == "crash":
            raise RuntimeError("the pizza server is down")
        if self.turns >= 2:
            return "Your order is placed. Goodbye!", True
        return "Sure. Which size would you like?", False
"""

PROFILE = """\
test_name: order
llm:
  model: gpt-4o-mini
user:
  language: English
  role: a customer who wants to order a pizza
  context:
    - personality: direct
  goals:
    - "I would like to order a pizza"
    - "a {{size}} one please"
    - "how long will it take"
    - size:
        function: forward()
        type: string
        data: [small]
chatbot:
  is_starter: true
  fallback: "Sorry, I did not understand."
conversation:
  number: 1
  goal_style:
    steps: 8
  interaction_style:
    - single question
"""


def write_chatchecker_bot(folder: Path, mode: str = "end") -> Path:
    """A ChatChecker chatbot folder whose client ends the chat after two answers
    (``mode="end"``) or crashes on the first message (``mode="crash"``)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "__init__.py").write_text("", encoding="utf-8")
    (folder / "config.yaml").write_text(CONFIG, encoding="utf-8")
    (folder / "chatbot_client.py").write_text(CLIENT.format(mode=mode), encoding="utf-8")
    return folder


def write_profile(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "order.yaml").write_text(PROFILE, encoding="utf-8")
    return folder


def calls(folder: Path) -> list[str]:
    log = folder / "calls.log"
    return log.read_text(encoding="utf-8").split() if log.is_file() else []
