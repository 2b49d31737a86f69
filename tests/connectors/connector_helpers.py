"""A real loopback HTTP server whose routes tests program (``loopback`` fixture)."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any


@dataclass
class Answer:
    """What a route answers: ``status`` and ``body`` (bytes, text or JSON-able)."""

    status: int = 200
    body: Any = b""
    hang: bool = False
    close: bool = False


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    raw: bytes = b""


Route = Callable[[Received], Answer]


@dataclass
class LoopbackServer:
    """``url`` of a server on 127.0.0.1; ``routes[path]`` answers, ``received`` logs."""

    url: str
    routes: dict[str, Route] = field(default_factory=dict)
    received: list[Received] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)


def make_handler(server: LoopbackServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body: Any = json.loads(raw) if raw else None
            except ValueError:
                body = raw.decode(errors="replace")
            path = self.path.split("?")[0]
            request = Received(self.command, self.path, dict(self.headers.items()), body, raw)
            server.received.append(request)
            route = server.routes.get(path)
            answer = route(request) if route else Answer(404, {"error": "no route"})
            if answer.hang:
                server.release.wait(10)
                return
            if answer.close:
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            payload = answer.body
            if not isinstance(payload, bytes):
                payload = (
                    payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
                )
            self.send_response(answer.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_PUT = _serve

    return Handler


async def send_once(connector: Any, text: str = "hi") -> Any:
    """Open one conversation of ``connector``, send ``text``, close everything; the reply."""
    conversation = await connector.open()
    try:
        return await conversation.send(text)
    finally:
        await conversation.close()
        await connector.aclose()
