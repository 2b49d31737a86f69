"""The HTTP front of the test bots (standard library only), shared so each bot is its logic.

POST /chat  {"session": "<id>", "message": "<text>"}  ->  {"replies": ["..."]}
GET  /      -> {"status": "ok", "bot": "<name>"}

A conversation object is made per session by ``factory(bug=...)``; its ``respond(text)``
returns the reply text, and anything it raises becomes an HTTP 500 (a crash the tester must
see). ``main`` is each bot's command line: ``--port N`` and ``--bug NAME`` (repeatable,
``--buggy`` for every seeded bug of the bot).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import threading
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol


class Conversation(Protocol):
    def respond(self, text: str) -> str: ...


Factory = Callable[..., Conversation]


def make_server(factory: Factory, bugs: Iterable[str], port: int = 0) -> ThreadingHTTPServer:
    """A server on 127.0.0.1:``port`` (0: a free port) answering with ``factory(bugs=...)``."""
    sessions: dict[str, Conversation] = {}
    lock = threading.Lock()
    chosen = frozenset(bugs)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def _send(self, code: int, obj: object) -> None:
            body = json.dumps(obj).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            self._send(200, {"status": "ok", "bot": factory.__module__})

        def do_POST(self) -> None:
            if self.path != "/chat":
                return self._send(404, {"error": "not found"})
            length = int(self.headers.get("Content-Length") or 0)
            try:
                data = json.loads(self.rfile.read(length) or b"{}")
                sid = str(data["session"])
                message = str(data.get("message", ""))
            except Exception:
                return self._send(400, {"error": "bad request"})
            with lock:
                conversation = sessions.get(sid)
                if conversation is None:
                    conversation = sessions[sid] = factory(bugs=chosen)
                try:
                    reply = conversation.respond(message)
                except Exception as exc:  # the seeded crash: a 500, as a web framework does
                    return self._send(500, {"error": f"internal error: {type(exc).__name__}"})
            return self._send(200, {"replies": [reply]})

    return ThreadingHTTPServer(("127.0.0.1", port), Handler)


def main(factory: Factory, bugs: dict[str, str], default_port: int) -> None:
    """The bot's command line: serve it until interrupted."""
    parser = argparse.ArgumentParser(description=(factory.__doc__ or "").strip())
    parser.add_argument("--port", type=int, default=default_port)
    parser.add_argument("--bug", action="append", default=[], choices=sorted(bugs))
    parser.add_argument("--buggy", action="store_true", help="every seeded bug at once")
    args = parser.parse_args()
    chosen = sorted(bugs) if args.buggy else args.bug
    server = make_server(factory, chosen, args.port)
    label = ", ".join(chosen) or "correct"
    print(f"{factory.__module__} ({label}) on :{server.server_address[1]}", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
