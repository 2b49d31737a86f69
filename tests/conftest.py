"""Test-wide guards: no network except loopback, no real model requests."""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ["SPARRING_ALLOW_MODEL_REQUESTS"] = "0"
# The console is a CI log's, never a terminal's, whoever runs the tests: pytest-xdist's
# workers inherit COLUMNS=80, which made the CLI wrap its output at 80 columns there.
for _name in ("COLUMNS", "LINES"):
    os.environ.pop(_name, None)

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"

_real_connect = socket.socket.connect


def _guarded_connect(self: socket.socket, address: Any) -> Any:
    host = address[0] if isinstance(address, tuple) else address
    local = host in ("localhost", "::1", "0.0.0.0") or str(host).startswith("127.")
    if isinstance(host, str) and not local and self.family in (socket.AF_INET, socket.AF_INET6):
        raise RuntimeError(f"test tried to reach the network: {address!r}")
    return _real_connect(self, address)


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
    yield


@pytest.fixture(autouse=True)
def _restore_policies() -> Iterator[None]:
    """A test that starts the dashboard's set-up installs its execution and network
    policies for the whole process (``sparring.web._serve.guard_network``): put back what
    was in force, so no later test (in any order, in any xdist worker) runs under them."""
    from sparring import _policy, _ssrf

    execution, network = _policy.current_policy(), _ssrf.installed_policy()
    yield
    _policy.install_policy(execution)
    _ssrf.install_policy(network)


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    """CLI tests run with -v/-vv reconfigure the root logger; put it back afterwards."""
    root = logging.getLogger()
    level, handlers = root.level, root.handlers[:]
    yield
    root.setLevel(level)
    root.handlers[:] = handlers


@pytest.fixture
def registries() -> Iterator[None]:
    """Every registry (connectors, model providers, rule functions, schemas) starts from its
    built-ins (no plug-in loaded yet, so a mocked ``importlib.metadata.entry_points`` is
    read) and is put back as it was after the test: register, override or load freely."""
    from sparring.check import RULE_FUNCTIONS
    from sparring.connectors import CONNECTORS
    from sparring.llm import PROVIDERS
    from sparring.schemas import SCHEMAS

    with ExitStack() as stack:
        for registry in (CONNECTORS, PROVIDERS, RULE_FUNCTIONS, SCHEMAS):
            stack.enter_context(registry.snapshot())
            registry.reset()
        yield


@pytest.fixture
def shared_data() -> Path:
    """``../shared/data``; skips the test where it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present")
    return SHARED_DATA
