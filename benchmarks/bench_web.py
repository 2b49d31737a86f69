"""The dashboard's run pages on a 2,000-conversation run, and the idle server's memory.

    PYTHONPATH=src python benchmarks/bench_web.py                    # 2,000 conversations
    PYTHONPATH=src python benchmarks/bench_web.py --sizes 200,2000 --repeat 5 --no-memory

A run is synthesised as ``bench_report`` does (``n`` conversations of 10 turns, checked
with two rules) and imported into a project of a fresh dashboard (a temporary data
folder, SQLite, migrations applied); building it is not timed. Timed through Django's
test client, signed in (the whole request: URL routing, the permission layer, reading
the run directory and the cache, templates):

- the run page ``/runs/ID/`` **cold** (nothing cached: the first visit of a run the worker
  did not render, or the cache lost): the *answer* (the request alone) and *complete*
  (from the request until every section is rendered: the worker's page thread, then the
  page asked again and found without placeholders);
- **after a check is stored** into the run (a second rule set, ``store_verdicts``, not
  timed; its garbage collected before the next request): the first page of conversations
  and one conversation's page (both read the new check first), then the run page: answer
  and complete;
- **cached** (the best of ``--repeat``, as after the worker or ``sparring web import``
  rendered it), the first page of conversations ``/runs/ID/conversations/`` and one
  conversation's page (best of ``--repeat``).

The report's sections are imported first, as ``sparring web`` does when it starts, and the
process's first run page is taken on a one-conversation run (Django compiles its
templates): both timed apart. Then, unless ``--no-memory``, ``bench_web_idle.idle_server``:
the resident memory of an idle ``sparring web`` with its in-process worker. Targets
(issue 23): the run page and the first conversations page under 1 s at 2,000
conversations; the idle server under 200 MB.

Against a sparring that renders the page on the request (before the page thread), the
answer is the complete page: both columns then show the same time.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SECOND_RULES = """\
- name: says_sure
  description: The chatbot agrees at least once
  conversations: 1
  oracle: chatbot_returns('Sure')
"""


def _since(start: float) -> float:
    return time.perf_counter() - start


def _timed(call: Callable[[], Any], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        response = call()
        best = min(best, time.perf_counter() - start)
        assert response.status_code == 200, response.status_code
    return best


def _wait_for_pages() -> None:
    """Until the worker's page thread has rendered what was asked (nothing to wait for
    in a sparring that renders on the request)."""
    try:
        from sparring.web._page_renderer import renderer
    except ImportError:
        return
    renderer().wait()


def _preload() -> None:
    """Import the report's sections as ``sparring web`` does at start (before the page
    thread, the first request imported them)."""
    try:
        from sparring.web._page_renderer import renderer
        from sparring.web._run_page import preload
    except ImportError:
        return
    preload()
    renderer().wait()


def _answer_and_complete(client: Any, url: str) -> tuple[float, float]:
    """Seconds of the first request of ``url`` and until the page has no placeholder."""
    start = time.perf_counter()
    response = client.get(url)
    answer = time.perf_counter() - start
    assert response.status_code == 200, response.status_code
    _wait_for_pages()
    page = client.get(url).content.decode()
    complete = time.perf_counter() - start
    assert "Verdict:" in page and "hx-get=" not in page.split('class="links"')[1], "not complete"
    return answer, complete


def _store_second_check(path: Path) -> None:
    from sparring.check import check, load_rules, store_verdicts
    from sparring.conversations import RunStore

    rules = path.parent / "second-rules.yaml"
    rules.write_text(textwrap.dedent(SECOND_RULES), encoding="utf-8")
    records = list(RunStore.open(path, clean=False).iter_records())
    store_verdicts(check(load_rules([rules]), records), path, name="second")


def dashboard(prefix: str) -> tuple[Any, Any]:
    """A fresh dashboard (a temporary data folder named ``prefix…``, SQLite, migrations
    applied) with one user signed in through Django's test client, and their project."""
    os.environ["SPARRING_WEB_DATA"] = tempfile.mkdtemp(prefix=prefix)
    sys.path.insert(0, str(Path(__file__).parent))
    from sparring.web import configure

    configure(loopback=True)
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    from sparring.web._views import create_project

    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create_user("bench", password="a long bench passphrase")
    project = create_project(user, "bench")
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client, project


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000", help="conversations per run, comma-separated")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--idle", type=float, default=20.0, help="seconds the server idles")
    parser.add_argument("--no-memory", action="store_true")
    args = parser.parse_args()

    client, project = dashboard("sparring-bench-web-")
    from bench_report import build_run
    from django.core.cache import cache

    from sparring.web._imports import import_run

    start = time.perf_counter()
    _preload()
    print(f"report sections imported (as sparring web does at start): {_since(start):.3f} s")
    tiny = import_run(build_run(Path(tempfile.mkdtemp(prefix="sparring-bench-run-")), 1), project)
    first = _answer_and_complete(client, f"/runs/{tiny.pk}/")
    print("the process's first run page (1 conversation; templates compiled, matplotlib")
    print(f"imported by the page thread): answer {first[0]:.3f} s, complete {first[1]:.3f} s")
    print(
        "conversations | cold: answer, complete | after a check: answer, complete, "
        "conversations p.1, one conversation | cached | conversations p.1 | one conversation (s)"
    )
    for size in (int(s) for s in args.sizes.split(",")):
        folder = Path(tempfile.mkdtemp(prefix="sparring-bench-run-"))
        path = build_run(folder, size)
        run = import_run(path, project)
        cache.clear()
        gc.collect()
        page = f"/runs/{run.pk}/"
        cold = _answer_and_complete(client, page)
        _store_second_check(path)
        gc.collect()  # the untimed set-up's garbage, so that no collection of it is timed
        start = time.perf_counter()
        assert client.get(page + "conversations/").status_code == 200
        listing_after = _since(start)
        start = time.perf_counter()
        assert client.get(page + "conversations/pizza%2F3").status_code == 200
        one_after = _since(start)
        checked = _answer_and_complete(client, page)
        warm = _timed(lambda url=page: client.get(url), args.repeat)
        listing = _timed(lambda url=page + "conversations/": client.get(url), args.repeat)
        one = _timed(lambda url=page + "conversations/pizza%2F0": client.get(url), args.repeat)
        print(
            f"{size:13d} | {cold[0]:.3f}, {cold[1]:.3f} | {checked[0]:.3f}, {checked[1]:.3f}, "
            f"{listing_after:.3f}, {one_after:.3f} | {warm:.3f} | {listing:.3f} | {one:.3f}"
        )
    if not args.no_memory:
        from bench_web_idle import idle_server

        print(f"idle server with its in-process worker: {idle_server(args.idle):.0f} MB resident")


if __name__ == "__main__":
    main()
