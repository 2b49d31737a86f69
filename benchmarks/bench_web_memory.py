"""The dashboard's memory after a day's work: the server process, idle after 20 jobs.

    PYTHONPATH=src python benchmarks/bench_web_memory.py [--runs 20] [--idle 10]

Plays the server in this process, as ``sparring web`` sets itself up (a fresh loopback
data folder, migrations, the SSRF and execution policies, the worker and the page
renderer preloaded), then has it do ``--runs`` jobs through its own worker — simulate
runs of the scripted pizza bot, and ``check`` and ``evaluate`` applied to them, each run's
page (the report's sections) rendered after it — waits ``--idle`` seconds and reads this
process's resident memory (``VmRSS``, Linux) after a garbage collection. Jobs run in job
processes of their own (``_job_process``), so what they import (LiteLLM, the report's
plotting) never stays in the server. Target (issue 32): under 250 MB.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

CHATBOT = """\
connector: scripted
params:
  greeting: "Hi! I take pizza orders."
  rules:
    - {match: "(?i)pizza|order", reply: "Which size: small, medium or large?"}
    - {match: "(?i)small|medium|large", reply: "Your {0} pizza is ordered. Order id 1234."}
  fallback: "Sorry, I did not understand."
"""
PROFILE = """\
test_name: order
llm: {model: gpt-4o-mini}
user:
  language: English
  role: a customer who wants to order a pizza
  context: [{personality: impatient}]
  goals:
    - "I would like to order a {{size}} pizza"
    - size: {function: forward(), type: string, data: [small, large]}
chatbot: {is_starter: false, fallback: "Sorry, I did not understand."}
conversation:
  number: 4
  goal_style: {steps: 3}
  interaction_style: [single question]
"""
RULES = """\
rules:
  - name: answered
    oracle: "len(conversation) > 0"
"""


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="utf-8") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def _wait(model: Any, pk: int, timeout: float = 600) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = str(model.objects.get(pk=pk).status)
        if status not in ("queued", "running"):
            return status
        time.sleep(0.5)
    raise RuntimeError(f"job {pk} did not end")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--idle", type=float, default=10)
    args = parser.parse_args()
    os.environ["SPARRING_WEB_DATA"] = tempfile.mkdtemp(prefix="sparring-bench-")
    from sparring.web import _serve

    _serve.configure(loopback=True)
    _serve.prepare(open(os.devnull, "w"))  # noqa: SIM115
    _serve.guard_network()
    from sparring.web._run_page import preload
    from sparring.web._worker import launch, launch_applied, run_folder, start_worker

    start_worker()
    preload()
    gc.collect()
    started = _rss_mb()
    from django.contrib.auth import get_user_model

    from sparring.web._files import save_file
    from sparring.web._views import create_project
    from sparring.web.models import Run, RunJob

    owner = get_user_model().objects.create_user("owner", password="a long passphrase 7")
    project = create_project(owner, "pizzeria")
    save_file(project, "chatbot", "chatbot.yaml", CHATBOT, owner)
    save_file(project, "profile", "profiles/order.yaml", PROFILE, owner)
    save_file(project, "rules", "rules/rules.yaml", RULES, owner)
    settings = {"chatbot": "chatbot.yaml", "profiles": ["profiles"], "concurrency": 2}
    done: list[str] = []
    began = time.perf_counter()
    while len(done) < args.runs:
        run = Run.objects.create(project=project, job="simulate", path="", created_by=owner)
        run.path = str(run_folder(project, run.pk))
        run.save(update_fields=["path"])
        launch(run, settings)
        done.append(f"simulate {_wait(Run, run.pk)}")
        for job, extra in (("check", {"rules": ["rules"]}), ("evaluate", {})):
            if len(done) >= args.runs:
                break
            applied = RunJob.objects.create(run=run, job=job, created_by=owner)
            launch_applied(applied, extra)
            done.append(f"{job} {_wait(RunJob, applied.pk)}")
    spent = time.perf_counter() - began
    time.sleep(args.idle)
    gc.collect()
    rss = _rss_mb()
    loaded = sorted(m for m in ("litellm", "matplotlib", "sklearn", "torch") if m in sys.modules)
    print(f"jobs: {len(done)} in {spent:.0f} s ({', '.join(sorted(set(done)))})")
    print(f"server process: {started:.0f} MB before, {rss:.0f} MB idle after (target < 250 MB)")
    print(f"heavy modules in the server: {', '.join(loaded) or 'none'}")
    print(f"data folder: {Path(os.environ['SPARRING_WEB_DATA'])}")


if __name__ == "__main__":
    main()
