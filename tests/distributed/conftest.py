"""A Redis for the distributed package's tests: Debian's ``redis-server`` on a free
loopback port for the module (skips without it)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest

pytest.importorskip("celery")

import redis


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[redis.Redis]:
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (Debian: apt-get install redis-server)")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    folder = tmp_path_factory.mktemp("redis")
    args = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", str(folder)]
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    connection = redis.Redis.from_url(f"redis://127.0.0.1:{port}/0")
    for _ in range(300):
        try:
            connection.ping()
            break
        except redis.ConnectionError:
            time.sleep(0.1)
    yield connection
    process.terminate()
    process.wait(timeout=30)
