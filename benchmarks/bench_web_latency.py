"""How long after a dashboard job ends its run row shows the end.

    PYTHONPATH=src python benchmarks/bench_web_latency.py [--runs 5] [--conversations 2]

A fresh dashboard (``bench_web.dashboard``: a temporary data folder, SQLite, migrations)
runs ``--runs`` simulate runs one after the other through the dashboard's own worker as
``sparring web`` runs it (``Worker.start``, each job in a job process of its own, the
``scripted`` chatbot, the offline user simulator). The job's end is the last write into
its run directory (the newest modification time of a file in it: the HTML report the
runner writes last); the row shows the end when its status leaves ``running`` (read from
the database every 5 ms by this process). Prints each run's delay and their median and
maximum, in seconds. Before issue 35 the worker asked its executor every 0.5 s.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

PROFILE = """\
test_name: order
llm: {{model: gpt-4o-mini}}
user:
  language: English
  role: a customer who wants to order a pizza
  context: [{{personality: impatient}}]
  goals: ["I would like to order a pizza"]
chatbot: {{is_starter: false, fallback: "Sorry, I did not understand."}}
conversation:
  number: {number}
  goal_style: {{steps: 2}}
  interaction_style: [single question]
"""


def _last_write(folder: Path) -> float:
    """The newest modification time (``time.time()`` seconds) of a file in ``folder``."""
    return max(p.stat().st_mtime for p in folder.rglob("*") if p.is_file())


def one_run(project: object, owner: object, conversations: int) -> float:
    """Launch one run, wait for its row to leave ``running``; seconds from the job's last
    write to the moment the row said it ended."""
    from sparring.web._worker import launch, run_folder
    from sparring.web.models import Run, RunStatus

    run = Run.objects.create(project=project, job="simulate", path="", created_by=owner)
    run.path = str(run_folder(run.project, run.pk))
    run.save(update_fields=["path"])
    settings = {"chatbot": "chatbot.yaml", "profiles": ["profiles"], "concurrency": 1}
    launch(run, settings)
    deadline = time.monotonic() + 600
    while True:
        status = Run.objects.filter(pk=run.pk).values_list("status", flat=True).first()
        if status not in (RunStatus.QUEUED, RunStatus.RUNNING):
            seen = time.time()
            break
        if time.monotonic() > deadline:
            raise RuntimeError(f"run {run.pk} never ended")
        time.sleep(0.005)
    assert status == RunStatus.FINISHED, (status, Run.objects.get(pk=run.pk).error)
    return seen - _last_write(Path(run.path))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--conversations", type=int, default=2)
    args = parser.parse_args()

    from bench_web import dashboard

    _client, project = dashboard("sparring-bench-latency-")
    from django.contrib.auth import get_user_model

    from sparring.web._files import save_file
    from sparring.web._worker import start_worker

    owner = get_user_model().objects.get(username="bench")
    save_file(project, "chatbot", "chatbot.yaml", "connector: scripted\nparams: {}\n", owner)
    profile = PROFILE.format(number=args.conversations)
    save_file(project, "profile", "profiles/order.yaml", profile, owner)
    start_worker()
    delays = []
    for index in range(args.runs):
        delays.append(one_run(project, owner, args.conversations))
        print(f"run {index + 1}: the row showed the end {delays[-1]:.3f} s after the job's end")
    print(
        f"delay from a job's end to its row: median {statistics.median(delays):.3f} s, "
        f"max {max(delays):.3f} s over {len(delays)} runs"
    )


if __name__ == "__main__":
    main()
