"""Fakes for the mutate harness's tests (no test here): a tiny in-process pizzeria whose
replies come from ``replies.txt``, two operators that mutate that file, and a builder that
is the real in-process one, plus a build that fails on purpose and, optionally, a harmless
child process standing in for a Rasa server."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from pathlib import Path

from sparring.mutation import Location
from sparring.mutation._builders import BuildFailed, BuiltBot, CopyBuilder
from sparring.mutation._processes import spawn, stop

BOT = """
import os
import re
import time
from pathlib import Path

HERE = Path(__file__).parent


class Bot:
    def __init__(self):
        self.rules = []
        for line in (HERE / "replies.txt").read_text().splitlines():
            if line.count("::") >= 2:
                name, pattern, reply = (part.strip() for part in line.split("::", 2))
                self.rules.append((re.compile(pattern), reply))


    def respond(self, text):
        for pattern, reply in self.rules:
            if pattern.search(text.lower()):
                if reply == "!!crash":
                    raise RuntimeError("crashed")
                if reply.startswith("!!slow"):  # slower than the chatbot.yaml timeout
                    once = Path(os.environ.get("FAKE_SLOW_ONCE", "/nonexistent/slow-once"))
                    if reply == "!!slow-always":
                        time.sleep(2)
                    elif not once.exists():
                        if once.parent.is_dir():
                            once.touch()
                        time.sleep(2)
                    return "Pizzas cost 8$ to 16$."
                return reply
        return "Sorry, I did not understand."
"""

DONE = "Done: your order is confirmed. The total price is 14.50$ and your order ID is ZX81Q."
REPLIES = f"""\
both :: \\b(small|medium|large)\\b.*\\b(coke|water|sprite)\\b :: {DONE}
pizza :: \\bpizza\\b :: Sure. Which size would you like? We have small, medium and large.
size :: \\b(small|medium|large)\\b :: Great. What would you like to drink?
drink :: \\b(coke|water|sprite)\\b :: {DONE}
price :: \\b(cost|price|how much)\\b :: A pizza costs between 8$ and 16$ depending on the size.
hours :: \\b(open|hours)\\b :: We open every day from 12:00 to 23:00.
"""

CHATBOT = """\
connector: python
params:
  target: "bot.py:Bot"
  path: .
  timeout: 5
info:
  name: Fake pizzeria
  type: task-oriented
  languages: [English]
  fallback: "Sorry, I did not understand."
"""

PROFILE = """\
test_name: order
llm: {model: gpt-4o-mini, temperature: 0.8}
user:
  language: English
  role: a customer who wants to order a pizza and a drink
  context: [{personality: impatient}]
  goals:
    - "I would like to order a pizza"
    - "how much will it cost"
    - size: {function: forward(), type: string, data: [small, large]}
    - drink: {function: random(), type: string, data: [coke, water]}
chatbot:
  is_starter: false
  fallback: "Sorry, I did not understand."
  output:
    - price: {type: money, description: the total price of the order}
conversation:
  number: 1
  goal_style: {all_answered: {limit: 8}}
  interaction_style: [single question]
"""

CONFIRMS = """\
name: confirms_the_order
description: The bot confirms the order
active: True
conversations: 1
oracle: len(chatbot_returns('confirmed')) > 0
"""

ALWAYS_FAILS = """\
name: mentions_delivery
description: A rule that fails on the original bot too (a false positive)
active: True
conversations: 1
oracle: len(chatbot_returns('delivery')) > 0
"""


def make_project(root: Path) -> tuple[Path, Path, Path]:
    """Write the fake project, its profiles and rules under ``root``; return them."""
    project, profiles, rules = root / "project", root / "profiles", root / "rules"
    for folder in (project, profiles, rules):
        folder.mkdir(parents=True, exist_ok=True)
    (project / "bot.py").write_text(BOT)
    (project / "replies.txt").write_text(REPLIES)
    (project / "chatbot.yaml").write_text(CHATBOT)
    (profiles / "order.yaml").write_text(PROFILE)
    (rules / "confirms.yaml").write_text(CONFIRMS)
    (rules / "delivery.yaml").write_text(ALWAYS_FAILS)
    return project, profiles, rules


class DropReply:
    """Deletes one line of ``replies.txt``."""

    name = "fake.drop_reply"
    kind = "aiml"
    description = "Delete one reply"

    def locations(self, project: Path) -> list[Location]:
        lines = (project / "replies.txt").read_text().splitlines()
        return [
            Location(file="replies.txt", key=f"reply:{line.split('::')[0].strip()}", line=i + 1)
            for i, line in enumerate(lines)
        ]

    def apply(self, project: Path, location: Location) -> tuple[dict[str, str], str]:
        lines = (project / "replies.txt").read_text().splitlines(keepends=True)
        assert location.line is not None
        del lines[location.line - 1]
        return {"replies.txt": "".join(lines)}, f"deleted the reply {location.key}"


class BreakBuild:
    """Marks ``replies.txt`` so that ``FakeBuilder`` refuses to build it (stillborn)."""

    name = "fake.break_build"
    kind = "aiml"
    description = "Break the build"

    def locations(self, project: Path) -> list[Location]:
        return [Location(file="replies.txt", key="build")]

    def apply(self, project: Path, location: Location) -> tuple[dict[str, str], str]:
        text = (project / "replies.txt").read_text() + "!!broken\n"
        return {"replies.txt": text}, "broke the build"


class Crash:
    """Makes the bot crash when asked the price (``crash:price``: a generic failure, code
    500), or its server unreachable (``crash:server``: ``FakeBuilder`` points the
    chatbot.yaml at a closed port, so the probe fails: killed by ``unreachable``)."""

    name = "fake.crash"
    kind = "aiml"
    description = "Crash"

    def locations(self, project: Path) -> list[Location]:
        return [Location(file="replies.txt", key=f"crash:{w}") for w in ("price", "server")]

    def apply(self, project: Path, location: Location) -> tuple[dict[str, str], str]:
        what = location.key.removeprefix("crash:")
        text = "crash :: \\bcost\\b :: !!crash\n" if what == "price" else "!!unreachable\n"
        return {"replies.txt": text + (project / "replies.txt").read_text()}, f"crash {what}"


class Slow:
    """Makes the price reply slower than a 1 s timeout: always (``slow:always``), or only
    the first time in the test (``slow:once``, the marker file ``$FAKE_SLOW_ONCE``)."""

    name = "fake.slow"
    kind = "aiml"
    description = "Slow reply"

    def locations(self, project: Path) -> list[Location]:
        return [Location(file="replies.txt", key=f"slow:{w}") for w in ("always", "once")]

    def apply(self, project: Path, location: Location) -> tuple[dict[str, str], str]:
        what = location.key.removeprefix("slow:")
        text = f"slow :: \\bcost\\b :: !!slow-{what}\n"
        return {"replies.txt": text + (project / "replies.txt").read_text()}, f"slow {what}"


OPERATORS = [BreakBuild(), Crash(), DropReply()]

UNREACHABLE = """\
connector: rasa
params: {{url: "http://127.0.0.1:{port}", timeout: 2}}
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


SLEEPER = [sys.executable, "-c", "import time; time.sleep(60)"]


class FakeBuilder(CopyBuilder):
    """The in-process builder; a project marked ``!!broken`` fails to build. With
    ``server`` each build also starts a harmless child process (a stand-in for a Rasa
    server, stopped on close) and writes its pid to ``pids``; ``delay`` seconds of
    "training" per build."""

    def __init__(self, server: bool = False, delay: float = 0.0, pids: Path | None = None):
        super().__init__("chatbot.yaml", workers=2)
        self.server, self.delay, self.pids = server, delay, pids
        self.built: list[str] = []

    async def build(self, project: Path, work: Path) -> BuiltBot:
        self.built.append(work.parent.name)
        if "!!broken" in (project / "replies.txt").read_text():
            raise BuildFailed("replies.txt is broken")
        built = await super().build(project, work)
        try:
            return await self._serve(built, project, work)
        except BaseException:  # cancelled: a builder cleans up after itself
            await built.close()
            raise

    async def _serve(self, built: BuiltBot, project: Path, work: Path) -> BuiltBot:
        if "!!unreachable" in (project / "replies.txt").read_text():
            built.chatbot = work / "chatbot.yaml"
            built.chatbot.write_text(UNREACHABLE.format(port=free_port()))
        if self.server:
            process = await spawn(SLEEPER, cwd=work, env=os.environ, log=work / "s.log", what="s")
            if self.pids is not None:
                with self.pids.open("a") as out:
                    out.write(f"{process.pid}\n")

            async def close() -> None:
                await stop(process, 2.0)

            built.closers.append(close)
        if self.delay:
            await asyncio.sleep(self.delay)
        return built
