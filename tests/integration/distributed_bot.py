"""A loopback chatbot for the distributed tests: Rasa's REST channel, deterministic
replies after a fixed latency, every request logged.

    python distributed_bot.py PORT LATENCY LOG [TOKEN]

Replies depend only on the message (a pizza order: size, then drink). Each request is
logged as one JSON line: ``{"t": unix time, "sender": …, "message": …}``. With TOKEN,
requests without ``Authorization: Bearer TOKEN`` get 401. A message containing
``crash-the-worker`` is answered normally: the test's in-process bot does the crashing.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time

from aiohttp import web

DONE = "Done: your order is confirmed. The total price is 14.50$ and your order ID is ZX81Q."
RULES = [
    (r"\b(small|medium|large)\b.*\b(coke|water|sprite)\b", DONE),
    (r"\bpizza\b", "Sure. Which size would you like? We have small, medium and large."),
    (r"\b(small|medium|large)\b", "Great. What would you like to drink? Coke, water or sprite?"),
    (r"\b(coke|water|sprite)\b", DONE),
    (r"\b(cost|price|how much)\b", "A pizza costs between 8$ and 16$ depending on the size."),
]
FALLBACK = "Sorry, I did not understand."


def reply_to(message: str) -> str:
    for pattern, reply in RULES:
        if re.search(pattern, message, re.IGNORECASE):
            return reply
    return FALLBACK


def main() -> None:
    port, latency, log_path = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
    token = sys.argv[4] if len(sys.argv) > 4 else None
    log = open(log_path, "a", buffering=1)  # noqa: SIM115

    async def webhook(request: web.Request) -> web.Response:
        if token and request.headers.get("Authorization") != f"Bearer {token}":
            return web.json_response({"error": "unauthorized"}, status=401)
        body = await request.json()
        message = str(body.get("message", ""))
        entry = {"t": time.time(), "sender": body.get("sender"), "message": message}
        log.write(json.dumps(entry) + "\n")
        await asyncio.sleep(latency)
        return web.json_response([{"recipient_id": body.get("sender"), "text": reply_to(message)}])

    app = web.Application()
    app.router.add_post("/webhooks/rest/webhook", webhook)
    app.router.add_get("/", lambda _: web.Response(text="ok"))
    web.run_app(app, host="127.0.0.1", port=port, print=None, access_log=None)


if __name__ == "__main__":
    main()
