"""Secrets at rest: encrypted with MultiFernet, shown as ``…abcd``, re-encrypted by key
rotation; the database file holds no plaintext."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cryptography.fernet import Fernet, InvalidToken
from django.db import connection

from sparring.web._secrets import hint, rotate_keys, secret_values, set_secret
from sparring.web.models import Secret

KEY = "sk-live-THISisAsecret-9f8e7d6c5b4a"


def test_a_secret_is_stored_encrypted_and_shown_by_its_last_four_characters(
    world: dict[str, Any],
) -> None:
    secret = set_secret(world["project"], "OPENAI_API_KEY", KEY, world["owner"])
    row = Secret.objects.get(pk=secret.pk)
    assert KEY.encode() not in bytes(row.ciphertext)
    assert row.hint == hint(KEY) == "…5b4a"
    assert secret_values([row]) == {"OPENAI_API_KEY": KEY}
    assert hint("short") == "…"


def test_rotation_re_encrypts_every_row_with_the_newest_key(
    world: dict[str, Any], settings: Any
) -> None:
    old = list(settings.FERNET_KEYS)
    rows = [
        set_secret(world["project"], f"KEY_{i}", f"{KEY}-{i}", world["owner"]) for i in range(3)
    ]
    before = {r.pk: bytes(r.ciphertext) for r in rows}
    newest = Fernet.generate_key().decode()
    settings.FERNET_KEYS = [newest, *old]
    assert rotate_keys() == 3
    after = {r.pk: bytes(r.ciphertext) for r in Secret.objects.all()}
    assert all(after[pk] != before[pk] for pk in before)
    only_newest = Fernet(newest.encode())
    assert {only_newest.decrypt(token).decode() for token in after.values()} == {
        f"{KEY}-{i}" for i in range(3)
    }
    settings.FERNET_KEYS = [newest]  # the old key dropped: everything still reads
    assert secret_values(Secret.objects.all())["KEY_1"] == f"{KEY}-1"
    settings.FERNET_KEYS = old  # only the old key: the rotated rows no longer read
    with pytest.raises(InvalidToken):
        secret_values(Secret.objects.all())


@pytest.mark.django_db(transaction=True)
def test_the_database_file_holds_no_plaintext_secret(tmp_path: Path) -> None:
    from django.contrib.auth import get_user_model

    from sparring.web._views import create_project

    owner = get_user_model().objects.create_user("own", password="x" * 20)
    set_secret(create_project(owner, "p"), "OPENAI_API_KEY", KEY, owner)
    copy = tmp_path / "copy.sqlite3"
    with connection.cursor() as cursor:
        cursor.execute("VACUUM INTO %s", [str(copy)])
    data = copy.read_bytes()
    assert b"OPENAI_API_KEY" in data  # the copy holds the row
    assert KEY.encode() not in data and KEY[4:20].encode() not in data
