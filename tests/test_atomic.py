"""The one atomic write (``sparring._atomic``): whole files or none, text redacted unless
the file is the secret, permissions set before the file appears, large copies streamed."""

from __future__ import annotations

import shutil
import stat
from pathlib import Path
from typing import BinaryIO

import pytest

from sparring._atomic import TEMP_SUFFIX, atomic_copy, atomic_write, remove_temp_files
from sparring._redact import add_secrets


def test_text_is_redacted_unless_the_file_is_the_secret(tmp_path: Path) -> None:
    secret = "sk-atomic-test-0123456789abcdef"
    add_secrets([secret])
    atomic_write(tmp_path / "log.txt", f"key={secret}\n")
    assert secret not in (tmp_path / "log.txt").read_text()
    atomic_write(tmp_path / "keys", secret + "\n", redact=False, mode=0o600)
    assert (tmp_path / "keys").read_text() == secret + "\n"
    assert stat.S_IMODE((tmp_path / "keys").stat().st_mode) == 0o600


def test_a_copy_failing_half_way_leaves_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "result.json"
    atomic_write(target, "old")
    source = tmp_path / "new.json"
    source.write_text("new and longer")

    def half(origin: BinaryIO, handle: BinaryIO) -> None:
        handle.write(origin.read(3))
        raise OSError("disk full")

    monkeypatch.setattr(shutil, "copyfileobj", half)
    with pytest.raises(OSError, match="disk full"):
        atomic_copy(source, target)
    assert target.read_text() == "old"
    assert list(tmp_path.glob(f".*{TEMP_SUFFIX}")) == []


def test_a_copy_is_whole_and_leftovers_are_removed(tmp_path: Path) -> None:
    source = tmp_path / "model.tar.gz"
    source.write_bytes(bytes(range(256)) * 4096)
    atomic_copy(source, tmp_path / "cache" / "model.tar.gz")
    assert (tmp_path / "cache" / "model.tar.gz").read_bytes() == source.read_bytes()
    leftover = tmp_path / f".result.json.abc{TEMP_SUFFIX}"
    leftover.write_text("half")
    assert remove_temp_files(tmp_path) == [leftover] and not leftover.exists()
