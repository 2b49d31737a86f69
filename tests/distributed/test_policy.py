"""What a worker agrees to run (``sparring.distributed._policy``): files only under its
roots, no serve command or model base URL its operator did not allow, and the same code
and files as the coordinator. The broker-borne attack itself is tried in
``tests/integration/test_distributed_faults.py``."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("celery")

import sparring
from sparring.distributed._policy import Refused, WorkerPolicy, check_sender, code_digest
from sparring.mutation import MutateSettings
from sparring.simulate import SimulateSettings


def _project(root: Path) -> tuple[Path, Path]:
    profiles = root / "profiles"
    profiles.mkdir(parents=True)
    (profiles / "order.yaml").write_text("test_name: order\n")
    chatbot = root / "chatbot.yaml"
    chatbot.write_text("connector: rasa\nparams:\n  url: http://127.0.0.1:1\n")
    return profiles, chatbot


def test_files_outside_the_roots_are_refused_naming_the_setting(tmp_path: Path) -> None:
    profiles, chatbot = _project(tmp_path / "project")
    outside = tmp_path / "elsewhere" / "chatbot.yaml"
    outside.parent.mkdir()
    outside.write_text("connector: python\nparams:\n  target: evil:run\n")
    policy = WorkerPolicy(roots=((tmp_path / "project").resolve(),))
    policy.check(SimulateSettings(profiles=[profiles], chatbot=chatbot))
    with pytest.raises(Refused, match=r"settings\.chatbot: .*outside this worker's roots"):
        policy.check(SimulateSettings(profiles=[profiles], chatbot=outside))
    # a symlink inside a root that points out of it is followed before the check
    link = tmp_path / "project" / "link.yaml"
    link.symlink_to(outside)
    with pytest.raises(Refused, match=r"settings\.chatbot"):
        policy.check(SimulateSettings(profiles=[profiles], chatbot=link))
    with pytest.raises(Refused, match=r"settings\.profiles\[1\]"):
        policy.check(SimulateSettings(profiles=[profiles, outside.parent], chatbot=chatbot))


def test_commands_and_base_urls_come_from_the_worker_only(tmp_path: Path) -> None:
    profiles, chatbot = _project(tmp_path)
    root = (tmp_path,)
    forged = MutateSettings(
        project=tmp_path,
        kind="taskyto",
        profiles=[profiles],
        rules=[profiles],
        serve_command=["sh", "-c", "touch /tmp/pwned"],
    )
    with pytest.raises(
        Refused, match=r"settings\.serve_command: .*touch /tmp/pwned.* is not a serve command"
    ):
        WorkerPolicy(roots=root).check(forged)
    allowed = WorkerPolicy(roots=root, serve_commands=(("sh", "-c", "touch /tmp/pwned"),))
    allowed.check(forged)
    redirected = SimulateSettings(
        profiles=[profiles], chatbot=chatbot, model_base_url="http://attacker.example/v1"
    )
    with pytest.raises(Refused, match=r"settings\.model_base_url"):
        WorkerPolicy(roots=root).check(redirected)
    WorkerPolicy(roots=root, model_base_urls=("http://attacker.example/v1",)).check(redirected)


def test_the_policy_travels_to_pool_processes_through_the_environment(tmp_path: Path) -> None:
    env = {
        "SPARRING_WORKER_ROOTS": f"{tmp_path}",
        "SPARRING_WORKER_SERVE_COMMANDS": "taskyto-serve --chatbot '{project}'\n",
        "SPARRING_WORKER_MODEL_BASE_URLS": "http://127.0.0.1:8000/v1",
    }
    policy = WorkerPolicy.from_env(env)
    assert policy.roots == (tmp_path.resolve(),)
    assert policy.serve_commands == (("taskyto-serve", "--chatbot", "{project}"),)
    assert policy.model_base_urls == ("http://127.0.0.1:8000/v1",)
    assert WorkerPolicy.from_env({}).roots == (Path.cwd().resolve(),)


def test_other_code_or_another_version_is_refused_with_both() -> None:
    check_sender(sparring.__version__, code_digest())
    with pytest.raises(Refused, match=r"sparring 0\.0\.1"):
        check_sender("0.0.1", code_digest())
    with pytest.raises(
        Refused, match=rf"coordinator's digest is 0{{16}}, this worker's {code_digest()}"
    ):
        check_sender(sparring.__version__, "0" * 16)
