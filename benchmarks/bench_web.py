"""The dashboard's run pages on a 2,000-conversation run, and the idle server's memory.

    PYTHONPATH=src python benchmarks/bench_web.py                    # 2,000 conversations
    PYTHONPATH=src python benchmarks/bench_web.py --sizes 200,2000 --repeat 5 --no-memory

A run is synthesised as ``bench_report`` does (``n`` conversations of 10 turns, checked
with two rules) and imported into a project of a fresh dashboard (a temporary data
folder, SQLite, migrations applied); building it is not timed. Timed through Django's
test client, signed in (the whole request: URL routing, the permission layer, reading
the run directory, templates):

- the run page ``/runs/ID/`` **cold** (the report's sections rendered: every record read)
  and **warm** (the sections from the cache, as after the worker or ``sparring web
  import`` rendered them when the run ended; the best of ``--repeat``);
- the first page of conversations ``/runs/ID/conversations/`` and one conversation's page
  (best of ``--repeat``).

Then, unless ``--no-memory``, ``bench_web_idle.idle_server``: the resident memory of an
idle ``sparring web`` with its in-process worker. Targets (issue 23): the run page and the
first conversations page under 1 s at 2,000 conversations; the idle server under 200 MB.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path


def _timed(call: object, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        response = call()  # type: ignore[operator]
        best = min(best, time.perf_counter() - start)
        assert response.status_code == 200, response.status_code
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000", help="conversations per run, comma-separated")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--idle", type=float, default=20.0, help="seconds the server idles")
    parser.add_argument("--no-memory", action="store_true")
    args = parser.parse_args()

    os.environ["SPARRING_WEB_DATA"] = tempfile.mkdtemp(prefix="sparring-bench-web-")
    sys.path.insert(0, str(Path(__file__).parent))
    from bench_report import build_run

    from sparring.web import configure

    configure(loopback=True)
    from django.contrib.auth import get_user_model
    from django.core.cache import cache
    from django.core.management import call_command
    from django.test import Client

    from sparring.web._imports import import_run
    from sparring.web._views import create_project

    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create_user("bench", password="a long bench passphrase")
    project = create_project(user, "bench")
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    print("conversations  run page cold  run page warm  conversations p.1  one conversation")
    for size in (int(s) for s in args.sizes.split(",")):
        folder = Path(tempfile.mkdtemp(prefix="sparring-bench-run-"))
        run = import_run(build_run(folder, size), project)
        cache.clear()
        start = time.perf_counter()
        assert client.get(f"/runs/{run.pk}/").status_code == 200
        cold = time.perf_counter() - start
        page = f"/runs/{run.pk}/"
        warm = _timed(lambda url=page: client.get(url), args.repeat)
        listing = _timed(lambda url=page + "conversations/": client.get(url), args.repeat)
        one = _timed(lambda url=page + "conversations/pizza%2F0": client.get(url), args.repeat)
        print(f"{size:13d}  {cold:11.3f} s  {warm:11.3f} s  {listing:15.3f} s  {one:14.3f} s")
    if not args.no_memory:
        from bench_web_idle import idle_server

        print(f"idle server with its in-process worker: {idle_server(args.idle):.0f} MB resident")


if __name__ == "__main__":
    main()
