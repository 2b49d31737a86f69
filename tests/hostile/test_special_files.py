"""A user's file is read as a regular file of bounded size, never trusted by ``stat()``
(issue 36, defect 2): a profile linked to ``/dev/zero`` grew to 7.6 GB in 12 s,
``adversarial plan --source`` with such a link inside was killed at 23.8 GB, and a FIFO as
a profile or as ``chatbot.yaml`` hung for ever.

Each command runs in a child process with an address-space limit and a time limit, so a
regression fails the test instead of taking the machine down.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from test_matrix import PROFILE

from sparring._files import confine, read_user_bytes, read_user_text, user_files
from sparring.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]
SECONDS = 120
"""Generous for a loaded machine; each command takes a second or two."""
MEMORY_BYTES = 3 * 1024**3
"""Address space a command may use (sparring needs a few hundred megabytes)."""
CHATBOT = "connector: python\nparams:\n  target: hostile_bot:respond\n  path: {path}\n"

pytestmark = pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))


def _sparring(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run(
        [sys.executable, "-m", "sparring", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=SECONDS,
        preexec_fn=_limits,
        stdin=subprocess.DEVNULL,
    )


def _project(tmp_path: Path) -> Path:
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "hello.yaml").write_text(PROFILE)
    (tmp_path / "chatbot.yaml").write_text(CHATBOT.format(path=Path(__file__).parent))
    return tmp_path


def _refused(result: subprocess.CompletedProcess[str], name: str, what: str) -> None:
    output = result.stdout + result.stderr
    assert result.returncode == 2, output[-2000:]
    assert name in output and what in output, output[-2000:]
    assert "Traceback" not in output, output[-2000:]


@pytest.mark.parametrize("named", ["folder", "file"])
@pytest.mark.parametrize("command", ["validate", "simulate"])
def test_a_profile_linked_to_dev_zero_is_refused(tmp_path: Path, command: str, named: str) -> None:
    project = _project(tmp_path)
    (project / "profiles" / "zero.yaml").symlink_to("/dev/zero")
    given = "profiles" if named == "folder" else "profiles/zero.yaml"
    args = [command, given] + (["-c", "chatbot.yaml", "-o", "out"] * (command == "simulate"))
    _refused(_sparring(project, *args), "zero.yaml", "character device")


@pytest.mark.parametrize("command", ["validate", "simulate"])
def test_a_fifo_profile_is_refused_without_waiting(tmp_path: Path, command: str) -> None:
    project = _project(tmp_path)
    os.mkfifo(project / "profiles" / "pipe.yaml")
    args = [command, "profiles"] + (["-c", "chatbot.yaml", "-o", "out"] * (command == "simulate"))
    _refused(_sparring(project, *args), "pipe.yaml", "FIFO")


def test_a_fifo_chatbot_yaml_is_refused_without_waiting(tmp_path: Path) -> None:
    project = _project(tmp_path)
    os.mkfifo(project / "fifo.yaml")
    result = _sparring(project, "simulate", "profiles", "-c", "fifo.yaml", "-o", "out")
    _refused(result, "fifo.yaml", "FIFO")


def test_plan_source_with_a_dev_zero_link_is_refused(tmp_path: Path) -> None:
    project = _project(tmp_path)
    source = project / "agent"
    source.mkdir()
    (source / "agent.py").write_text("def answer(text):\n    return text\n")
    (source / "zero.py").symlink_to("/dev/zero")
    result = _sparring(
        project, "adversarial", "plan", "-c", "chatbot.yaml", "--source", "agent", "-o", "w.yaml"
    )
    _refused(result, "zero.py", "character device")


def test_a_read_stops_at_the_limit_whatever_stat_says() -> None:
    status = Path("/proc/self/status")  # a regular file whose stat() size is 0
    if not status.exists() or status.stat().st_size != 0:
        pytest.skip("needs Linux /proc")
    assert len(read_user_bytes(status, 1_000_000)) > 10
    with pytest.raises(ConfigError, match="larger than 10 bytes"):
        read_user_bytes(status, 10)


def test_special_files_and_links_out_of_a_folder_are_refused(tmp_path: Path) -> None:
    inside, outside = tmp_path / "inside", tmp_path / "outside"
    inside.mkdir()
    outside.mkdir()
    (outside / "secret.md").write_text("outside")
    (inside / "page.md").write_text("inside")
    assert read_user_text(inside / "page.md") == "inside"
    assert user_files(inside, (".md",)) == [inside / "page.md"]
    (inside / "elsewhere").symlink_to(outside)  # a link to a folder is not followed
    assert user_files(inside, (".md",)) == [inside / "page.md"]
    (inside / "linked.md").symlink_to(outside / "secret.md")
    with pytest.raises(ConfigError, match="leads outside"):
        user_files(inside, (".md",))
    with pytest.raises(ConfigError, match="leads outside"):
        confine(inside / "linked.md", inside)
    (inside / "linked.md").unlink()
    os.mkfifo(inside / "pipe.md")
    with pytest.raises(ConfigError, match="FIFO"):
        user_files(inside, (".md",))
    with pytest.raises(ConfigError, match="FIFO"):
        read_user_bytes(inside / "pipe.md")
    with pytest.raises(ConfigError, match="a folder"):
        read_user_bytes(inside)


@pytest.mark.parametrize(
    ("reference", "link"),
    [
        ("  persona: evil.yaml", "evil.yaml"),
        ("  - personality: evil.yml", "evil.yml"),
        ("  - personality: evil", "personalities/evil.yml"),
    ],
    ids=["persona", "personality-file", "personalities-folder"],
)
def test_a_profile_includes_no_file_through_a_link_out_of_its_project(
    tmp_path: Path, reference: str, link: str
) -> None:
    """A persona or personality named in a profile, inside its folder but a symbolic link
    to a file elsewhere, is refused, located, and none of that file's keys is shown (the
    include check followed the link and listed the outside file's key names)."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.yaml").write_text("db_password: hunter2\naws_secret_key: x\n")
    project = tmp_path / "project"
    (project / "profiles" / "personalities").mkdir(parents=True)
    target = project / "profiles" / link
    target.symlink_to(outside / "secret.yaml")
    if reference.startswith("  -"):  # an item of the context
        profile = PROFILE.replace("  context: [you are polite]", f"  context:\n  {reference}")
    else:
        profile = PROFILE.replace("user:\n", f"user:\n{reference}\n", 1)
    (project / "profiles" / "hello.yaml").write_text(profile)
    result = _sparring(project, "validate", "profiles/hello.yaml")
    output = result.stdout + result.stderr
    assert result.returncode == 2, output
    assert "outside" in output and "hello.yaml" in output, output
    assert "db_password" not in output and "aws_secret_key" not in output, output
