"""The conversation list's filters and search on a 2,000-conversation run (issue 37).

    PYTHONPATH=src python benchmarks/bench_web_filters.py                 # 2,000 conversations
    PYTHONPATH=src python benchmarks/bench_web_filters.py --size 2000 --repeat 5

A run is synthesised as ``bench_report`` does (``n`` conversations of 10 turns, checked
with two rules) and imported into a project of a fresh dashboard (temporary data folder,
SQLite); building it is not timed. Timed through Django's test client, signed in (the
whole request): the index the filters read built on the request (*cold*: the worker did
not warm the run, or the cache was lost), then, as after the worker or ``sparring web
import`` warmed it (the best of ``--repeat``): the unfiltered first page, failing only,
one rule, full text, and all of them at once. Target: every answer under 1 s.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).parent))
    from bench_web import dashboard

    client, project = dashboard("sparring-bench-filters-")
    from bench_report import build_run
    from django.core.cache import cache

    from sparring.web._imports import import_run
    from sparring.web._run_page import failed_rules

    run = import_run(
        build_run(Path(tempfile.mkdtemp(prefix="sparring-bench-run-")), args.size), project
    )
    cache.clear()
    failed_rules(run)  # the run page's own cache (the worker fills it): not timed here
    base = f"/runs/{run.pk}/conversations/"

    def timed(query: str) -> float:
        start = time.perf_counter()
        response = client.get(base + query)
        assert response.status_code == 200
        return time.perf_counter() - start

    print(f"{args.size} conversations; seconds per request")
    print(f"cold (index built on the request), failing only: {timed('?failing=1'):.3f}")
    queries = {
        "unfiltered page 1": "",
        "failing only": "?failing=1",
        "one rule": "?rule=no_apology_loop",
        "full text": "?q=salad",
        "all at once": "?failing=1&rule=no_apology_loop&q=sorry",
    }
    for name, query in queries.items():
        best = min(timed(query) for _ in range(args.repeat))
        print(f"{name}: {best:.3f}")


if __name__ == "__main__":
    main()
