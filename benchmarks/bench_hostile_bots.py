"""Time, peak memory and records of ``simulate`` against hostile HTTP bots (issue 26,
defects 1, 2 and 5).

A loopback server answers every message of a ``rest`` chatbot with one hostile body; for
each, ``python -m sparring simulate`` runs 6 conversations (3 user turns each, concurrency
4, reply timeout 20 s) in a fresh process, and the benchmark prints its exit code, wall
time, the child's peak resident memory (``ru_maxrss``: interpreter and imports included,
~150 MB) and the records written with their failure causes and notes:

- ``10mb``: a 10 MB JSON body per reply (was: timeouts, 1.2 GB for 6 conversations);
- ``deep``: JSON nested 100,000 levels (was: ``RecursionError``, 0 records);
- ``surrogate``: a reply holding a lone surrogate (was: ``PydanticSerializationError``,
  0 records).

Compare two trees by pointing ``PYTHONPATH`` at each one's ``src``::

    PYTHONPATH=src nice -n 10 python benchmarks/bench_hostile_bots.py [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

BODIES = {
    "10mb": json.dumps({"text": "x" * 10_000_000}).encode(),
    "deep": b"[" * 100_000 + b"]" * 100_000,
    "surrogate": b'{"text": "bad \\ud800 text"}',
}
PROFILE = """\
test_name: hello
user:
  language: English
  role: You ask a chatbot for help.
  context: [you are polite]
  goals: [Hello, What can you do?, Thanks]
chatbot:
  is_starter: false
  fallback: "I do not understand."
  output: []
conversation:
  number: 6
  goal_style: {steps: 3}
  interaction_style: [single question]
"""


def _serve(body: bytes) -> tuple[ThreadingHTTPServer, str]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    httpd.handle_error = lambda request, address: None  # type: ignore[method-assign]  # a client that stops reading
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


def _records(out: Path) -> tuple[int, Counter[str], int]:
    causes: Counter[str] = Counter()
    noted = count = 0
    for file in (out / "conversations").glob("*.json"):
        record = json.loads(file.read_text())
        count += 1
        causes.update(str(e.get("cause")) for e in record.get("errors", []))
        noted += any("surrogate" in n for n in record.get("notes", []))
    return count, causes, noted


def run(name: str, body: bytes, folder: Path) -> dict[str, Any]:
    httpd, url = _serve(body)
    try:
        (folder / "profiles").mkdir()
        (folder / "profiles" / "hello.yaml").write_text(PROFILE)
        chatbot = folder / "chatbot.yaml"
        chatbot.write_text(
            f"connector: rest\nparams:\n  url: {url}\n  response_path: text\n  timeout: 20\n"
            "  send_message: {path: /chat, payload_template: {message: '{message}'}}\n"
        )
        started = time.perf_counter()
        log = folder / "output.txt"
        with log.open("w") as output:
            child = subprocess.Popen(
                [sys.executable, "-m", "sparring", "simulate", str(folder / "profiles"),
                 "-c", str(chatbot), "-o", str(folder / "out"), "--concurrency", "4"],
                stdout=output, stderr=subprocess.STDOUT, env=os.environ,
            )  # fmt: skip
            _, status, usage = os.wait4(child.pid, 0)  # this child's own peak memory
        seconds = time.perf_counter() - started
    finally:
        httpd.shutdown()
    count, causes, noted = _records(folder / "out")
    crashed = "Traceback" in log.read_text(errors="replace")
    return {
        "body": name,
        "exit": os.waitstatus_to_exitcode(status),
        "seconds": round(seconds, 1),
        "peak_mb": round(usage.ru_maxrss / 1024),
        "records": count,
        "causes": dict(causes),
        "surrogate_noted": noted,
        "traceback": crashed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="Also write the results here.")
    parser.add_argument("--only", choices=sorted(BODIES), action="append")
    args = parser.parse_args()
    results = []
    for name in args.only or BODIES:
        with tempfile.TemporaryDirectory() as tmp:
            result = run(name, BODIES[name], Path(tmp))
        results.append(result)
        print(json.dumps(result), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
