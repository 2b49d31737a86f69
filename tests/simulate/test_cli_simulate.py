"""End-to-end ``sparring simulate`` on a local scripted chatbot: runs, resume, bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from typer.testing import CliRunner

from sparring.cli import app
from sparring.conversations import RunStore

DATA = Path(__file__).parent / "data"
runner = CliRunner()


def simulate(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["simulate", *args])
    return result.exit_code, result.output


def test_simulate_writes_records_manifest_and_summary(tmp_path: Path) -> None:
    out = tmp_path / "run"
    code, output = simulate(
        str(DATA / "profiles"), "--chatbot", str(DATA / "chatbot.yaml"), "--out", str(out)
    )
    assert code == 0, output
    store = RunStore.open(out)
    records = sorted(store.iter_records(), key=lambda r: r.id)
    assert [r.id for r in records] == ["order/0", "order/1", "order/2"]
    assert store.manifest.planned == ["order/0", "order/1", "order/2"]
    # forward() over [small, medium, large]: one size per conversation, in order
    assert [r.variables["size"] for r in records] == ["small", "medium", "large"]
    for record in records:
        assert record.simulator == "agenda"
        assert record.outputs["order_id"].value == "ZX81Q"
        assert record.outputs["order_id"].strategy == "offline"
        assert record.errors == []
    summary = json.loads((out / "summary.json").read_text())
    assert summary["conversations"] == 3
    assert summary["turns"] == sum(1 for r in records for t in r.turns if t.role == "assistant")
    assert str(out / "summary.json") in output.replace("\n", "")


def test_same_seed_reproduces_the_conversations(tmp_path: Path) -> None:
    texts = []
    for name in ("a", "b"):
        code, output = simulate(
            str(DATA / "profiles"), "-c", str(DATA / "chatbot.yaml"), "-o", str(tmp_path / name)
        )
        assert code == 0, output
        records = sorted(RunStore.open(tmp_path / name).iter_records(), key=lambda r: r.id)
        texts.append([[t.text for t in r.turns] for r in records])
    assert texts[0] == texts[1]


def test_bad_profile_names_file_line_and_key_and_runs_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    text = (DATA / "profiles" / "order.yaml").read_text()
    bad.write_text(text.replace("function: random()", "function: randm()"))
    out = tmp_path / "run"
    result = runner.invoke(
        app, ["simulate", str(bad), "-c", str(DATA / "chatbot.yaml"), "-o", str(out)]
    )
    # main() maps UserInputError to exit 2; through CliRunner it surfaces as the exception
    from sparring.errors import UserInputError

    assert isinstance(result.exception, UserInputError)
    message = str(result.exception)
    assert "bad.yaml:" in message and "randm" in message
    assert not out.exists()


def test_llm_simulator_without_model_is_refused(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "simulate",
            str(DATA / "profiles"),
            "-c",
            str(DATA / "chatbot.yaml"),
            "--simulator",
            "llm",
        ],
    )
    assert result.exception is not None and "--model" in str(result.exception)


def test_exit_code_2_from_the_console_entry_point(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "sparring",
            "simulate",
            str(tmp_path / "missing.yaml"),
            "-c",
            str(DATA / "chatbot.yaml"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert "missing.yaml" in proc.stderr


def test_sigkill_leaves_no_partial_record_and_resume_completes(tmp_path: Path) -> None:
    chatbot = tmp_path / "slow.yaml"
    chatbot.write_text(
        (DATA / "chatbot.yaml").read_text().replace("params:\n", "params:\n  latency: 0.05\n", 1)
    )
    profile = tmp_path / "many.yaml"
    profile.write_text(
        (DATA / "profiles" / "order.yaml").read_text().replace("number: 3", "number: 60")
    )
    out = tmp_path / "run"
    cmd = [
        sys.executable,
        "-m",
        "sparring",
        "simulate",
        str(profile),
        "-c",
        str(chatbot),
        "-o",
        str(out),
        "--concurrency",
        "2",
        "--max-turns",
        "3",
    ]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ}
    )
    conversations = out / "conversations"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if conversations.is_dir() and len(list(conversations.glob("*.json"))) >= 5:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    written = list(conversations.glob("*.json"))
    assert 5 <= len(written) < 60, "the run should have been killed midway"
    for path in written:  # every record on disk is whole
        json.loads(path.read_text())
    before = {p.name: p.stat().st_mtime_ns for p in written}
    code, output = simulate("--resume", str(out))
    # --max-turns 3 cuts every conversation (code 1000): the finished run says so, exit 1
    assert code == 1 and "every conversation (60) failed" in output, output
    store = RunStore.open(out)
    assert store.finished_ids() == set(store.manifest.planned)
    assert len(store.manifest.planned) == 60
    for record in store.iter_records():  # the run's own --max-turns applies on resume too
        assert sum(t.role == "user" for t in record.turns) <= 3
    for name, mtime in before.items():  # finished conversations were not redone
        assert (conversations / name).stat().st_mtime_ns == mtime
    assert not list(conversations.glob("*.tmp"))
