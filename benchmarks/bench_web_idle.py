"""The idle dashboard's memory and CPU, and whether the web extra slows ``sparring --help``.

    PYTHONPATH=src python benchmarks/bench_web_idle.py [--idle 20]

Starts ``sparring web`` on a free loopback port with a fresh data folder (migrations, the
first owner), waits until the sign-in page answers, lets it idle ``--idle`` seconds with
no job and no visitor and reads the server process's resident memory (``VmRSS``, Linux)
and the CPU time it spent idling (user + system, ``/proc/PID/stat``; as a share of one
core). Then times ``sparring --help`` five times and says whether Django was imported by
``import sparring.cli``. Target (issue 23): idle server under 200 MB.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="utf-8") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds ``pid`` has spent (``/proc/PID/stat``, Linux)."""
    with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def idle_server(idle: float) -> float:
    """The resident memory (MB) of ``sparring web`` after ``idle`` seconds of idling."""
    return idle_usage(idle)[0]


def idle_usage(idle: float) -> tuple[float, float]:
    """The resident memory (MB) of ``sparring web`` after ``idle`` seconds with no job
    and no visitor, and the CPU it spent meanwhile (% of one core)."""
    port = _free_port()
    with tempfile.TemporaryDirectory() as data:
        env = {**os.environ, "SPARRING_WEB_DATA": data}
        command = [sys.executable, "-m", "sparring", "web", "--port", str(port), "--no-browser"]
        server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 180
            while True:
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/login/", timeout=2)
                    break
                except OSError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise RuntimeError("the server did not start") from None
                    time.sleep(0.5)
            time.sleep(2)  # the start-up's last work (the page thread's imports) settles
            before, started = _cpu_seconds(server.pid), time.monotonic()
            time.sleep(idle)
            spent = _cpu_seconds(server.pid) - before
            return _rss_mb(server.pid), 100 * spent / (time.monotonic() - started)
        finally:
            server.terminate()
            server.wait(30)


def help_seconds(times: int = 5) -> list[float]:
    spent = []
    for _ in range(times):
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "sparring", "--help"], capture_output=True, check=True
        )
        spent.append(time.perf_counter() - started)
    return spent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--idle", type=float, default=20)
    args = parser.parse_args()
    rss, cpu = idle_usage(args.idle)
    print(f"idle server (after {args.idle:g} s): {rss:.0f} MB resident (target < 200 MB)")
    print(f"idle server CPU over those {args.idle:g} s: {cpu:.2f} % of one core")
    spent = help_seconds()
    print(f"sparring --help: median {statistics.median(spent):.2f} s over {len(spent)} runs")
    probe = "import sys, sparring.cli; print('django' in sys.modules)"
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    print(f"import sparring.cli imports Django: {loaded.stdout.strip()}")


if __name__ == "__main__":
    main()
