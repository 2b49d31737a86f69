"""Redaction changes only secrets (issue 32): ordinary words after ``Basic``, ``Bearer`` or
``Token`` stay; known values, URL credentials, credential query parameters and
credential-shaped authorization values go. Over every SENSEI conversation in
``../shared/data`` it changes no turn that holds no secret and removes every planted one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from sparring._redact import REDACTED, add_secrets, counting, redact_text

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"

ORDINARY = [
    "Basic analytics are included in every plan.",
    "See Basic Commands in the manual.",
    "Bearer bonds were popular once; keep that in mind, Bearer of news.",
    "Token economy and Token Ring networks; a Token authentication guide.",
    "Basic Information about the internationalization settings",
    "Bearer internationalization",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_words_are_never_redacted(text: str) -> None:
    assert redact_text(text) == text


PLANTED = [
    ("Authorization: Bearer sk-proj-4f9a8b7c6d5e4f3a2b1c", "sk-proj-4f9a8b7c6d5e4f3a2b1c"),
    ("Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl", "eyJhbGciOiJIUzI1NiJ9"),
    ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA=="),
    ("Token ghp_abcdefABCDEF0123456789abcdef", "ghp_abcdefABCDEF0123456789abcdef"),
    ("see https://admin:hunter2pass@bot.example/api", "hunter2pass"),
    ("GET https://api.example/v1?api_key=AKIAFAKEKEY123&x=1", "AKIAFAKEKEY123"),
    ("the key is kn0wn-s3cret-value", "kn0wn-s3cret-value"),
]


@pytest.fixture
def known() -> Iterator[None]:
    add_secrets(["kn0wn-s3cret-value"])
    yield


@pytest.mark.parametrize(("text", "secret"), PLANTED)
def test_every_planted_secret_is_removed_and_counted(known: None, text: str, secret: str) -> None:
    with counting() as counted:
        redacted = redact_text(text)
    assert secret not in redacted and REDACTED in redacted
    assert sum(counted.values()) >= 1


def _sensei_turns() -> Iterator[tuple[Path, str]]:
    for path in sorted(SHARED.rglob("*.yml")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if "interaction:" not in text:
            continue
        try:
            documents = list(yaml.safe_load_all(text))
        except yaml.YAMLError:
            continue
        for document in documents:
            turns = document.get("interaction") if isinstance(document, dict) else None
            for turn in turns if isinstance(turns, list) else []:
                for said in turn.values() if isinstance(turn, dict) else []:
                    if isinstance(said, str):
                        yield path, said


def test_the_sensei_conversations_keep_every_turn_and_lose_every_planted_secret(
    known: None,
) -> None:
    if not SHARED.is_dir():
        pytest.skip("../shared/data is absent")
    turns = list(_sensei_turns())
    assert len(turns) > 500  # SENSEI's wild, pizza and veterinary conversations
    with counting() as counted:
        changed = [(path, said) for path, said in turns if redact_text(said) != said]
    assert changed == [] and sum(counted.values()) == 0
    for index, (_path, said) in enumerate(turns):
        text, secret = PLANTED[index % len(PLANTED)]
        planted = f"{said} {text}"
        redacted = redact_text(planted)
        assert secret not in redacted
        assert redacted.startswith(said)  # the turn itself is untouched


def test_a_runs_manifest_counts_its_redactions(tmp_path: Path) -> None:
    """A run whose chatbot echoes a credential keeps the count in its manifest."""
    import json

    from sparring.runner import start

    (tmp_path / "chatbot.yaml").write_text(
        "connector: scripted\nparams:\n  fallback: 'use Bearer sk-live-0a1b2c3d4e5f6a7b8c9d'\n"
    )
    profiles = tmp_path / "profiles"
    profiles.mkdir()
    (profiles / "p.yaml").write_text(
        "test_name: p\nllm: {model: gpt-4o-mini}\nuser:\n  language: English\n"
        "  role: a customer\n  context: [{personality: impatient}]\n  goals: [hello]\n"
        "chatbot: {is_starter: false, fallback: 'x'}\n"
        "conversation: {number: 1, goal_style: {steps: 1}, interaction_style: [single question]}\n"
    )
    out = tmp_path / "run"
    settings = {"chatbot": str(tmp_path / "chatbot.yaml"), "profiles": [str(profiles)]}
    start("simulate", settings, out)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["redactions"].get("authorization", 0) >= 1
    assert "sk-live-0a1b2c3d4e5f6a7b8c9d" not in "".join(
        p.read_text(errors="replace") for p in out.rglob("*") if p.is_file()
    )
