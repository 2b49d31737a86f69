"""Hostile files through every YAML loader and ``validate`` (issue 26, defects 10 and 11).

An alias bomb, nesting deeper than Python's recursion limit, a file over the size limit,
a NUL byte, a folder where a file is expected and a symbolic-link loop: each loader raises
a ``UserInputError`` naming the file (and the line, where the file has one), and
``validate`` exits 2. The alias bomb is read within a memory bound (tracemalloc), the
rest before anything is parsed. Time and peak memory of the whole corpus are measured in
``benchmarks/bench_hostile_files.py``.
"""

from __future__ import annotations

import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sparring._yaml import (
    MAX_DEPTH,
    MAX_FILE_BYTES,
    MAX_LINED_BYTES,
    MAX_LINED_NODES,
    load_yaml_with_lines,
)
from sparring.adversarial import load_answers, load_probe_suite, load_rubric, load_weaknesses
from sparring.check import load_rules
from sparring.cli import main
from sparring.connectors import load_chatbot_config
from sparring.conversations import import_chatchecker, import_sensei, load_conversations
from sparring.errors import UserInputError
from sparring.evaluate import load_dimensions, load_taxonomy
from sparring.llm import load_script
from sparring.profiles import load_chatchecker_persona, load_persona_file, load_profile

BOMB = "\n".join(
    [
        'a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]',
        *(
            f"{b}: &{b} [{', '.join([f'*{a}'] * 9)}]"
            for a, b in zip("abcdefgh", "bcdefghi", strict=True)
        ),
    ]
)
"""The "billion laughs": 10 lines, 9^9 strings once expanded."""


def _write(folder: Path, name: str, text: str | bytes) -> Path:
    path = folder / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def hostile_corpus(folder: Path) -> dict[str, tuple[Path, int | None]]:
    """Each hostile file written under ``folder``, with the line its error must name."""
    folder.mkdir(parents=True, exist_ok=True)
    loop = folder / "loop.yaml"
    (folder / "loop-b.yaml").symlink_to(loop)
    loop.symlink_to(folder / "loop-b.yaml")
    (folder / "folder.yaml").mkdir()
    deep = "test_name: x\nuser:\n  goals: " + "[" * 5000 + "]" * 5000 + "\n"
    return {
        "alias bomb": (_write(folder, "bomb.yaml", BOMB), 7),
        "deep nesting": (_write(folder, "deep.yaml", deep), 3),
        "deep block nesting": (
            _write(
                folder,
                "deep-block.yaml",
                "".join(f"{'  ' * i}k{i}:\n" for i in range(MAX_DEPTH + 5)) + "  " * 200 + "x\n",
            ),
            MAX_DEPTH + 1,
        ),
        "NUL byte": (_write(folder, "nul.yaml", b"test_name: a\nuser:\n  x\x00y\n"), 3),
        "huge file": (_write(folder, "huge.yaml", "# " + "x" * MAX_FILE_BYTES + "\n"), None),
        "folder": (folder / "folder.yaml", None),
        "symlink loop": (loop, None),
    }


CASES = ["alias bomb", "deep nesting", "deep block nesting", "NUL byte", "huge file", "folder"]
CASES.append("symlink loop")

LOADERS: dict[str, Callable[[Path], Any]] = {
    "yaml": load_yaml_with_lines,
    "profile": load_profile,
    "chatbot.yaml": load_chatbot_config,
    "rules": lambda path: load_rules([path]),
    "probe suite": load_probe_suite,
    "weaknesses": load_weaknesses,
    "rubric": load_rubric,
    "answers": load_answers,
    "taxonomy": load_taxonomy,
    "dimensions": load_dimensions,
    "persona": load_persona_file,
    "ChatChecker persona": load_chatchecker_persona,
    "SENSEI import": import_sensei,
    "ChatChecker import": import_chatchecker,
    "conversations": lambda path: list(load_conversations(path)),
    "scripted model": load_script,
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, int | None]]:
    return hostile_corpus(tmp_path_factory.mktemp("hostile"))


@pytest.mark.parametrize("loader", sorted(LOADERS))
@pytest.mark.parametrize("case", CASES)
def test_every_loader_refuses_a_hostile_file_with_its_file_and_line(
    corpus: dict[str, tuple[Path, int | None]], loader: str, case: str
) -> None:
    path, line = corpus[case]
    if (loader, case) == ("conversations", "folder"):
        pytest.skip("a folder is this loader's input: a run folder")
    with pytest.raises(UserInputError) as caught:
        LOADERS[loader](path)
    problems = caught.value.problems
    assert any(p.file == str(path) for p in problems), problems
    if line is not None:
        assert any(p.line == line for p in problems), problems


def test_the_alias_bomb_is_refused_within_a_memory_bound(
    corpus: dict[str, tuple[Path, int | None]],
) -> None:
    tracemalloc.start()
    try:
        with pytest.raises(UserInputError, match="alias bomb"):
            load_profile(corpus["alias bomb"][0])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 20_000_000


def test_aliases_within_the_limit_still_load(tmp_path: Path) -> None:
    path = _write(tmp_path, "ok.yaml", "base: &b {x: 1, y: [1, 2]}\nother: *b\nmore: {<<: *b}\n")
    data, _ = load_yaml_with_lines(path)
    assert data["other"] == {"x": 1, "y": [1, 2]} and data["more"]["y"] == [1, 2]


def test_a_nul_byte_is_reported_by_line_not_character(tmp_path: Path) -> None:
    path = _write(tmp_path, "nul.yaml", b"a: 1\nb: 2\nc: x\x00\n")
    with pytest.raises(UserInputError) as caught:
        load_yaml_with_lines(path)
    assert str(caught.value.problems[0]).startswith(f"{path}:3: NUL byte")


@pytest.mark.parametrize("case", CASES)
def test_validate_exits_2_naming_the_file_and_line(
    corpus: dict[str, tuple[Path, int | None]],
    case: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path, line = corpus[case]
    monkeypatch.setattr(sys, "argv", ["sparring", "validate", str(path)])
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 2
    where = str(path) if line is None else f"{path}:{line}"
    assert where in capsys.readouterr().err.replace("\n", "")


LINED_LOADERS = {
    name: LOADERS[name]
    for name in ("yaml", "profile", "chatbot.yaml", "rules", "probe suite", "persona")
}
"""Loaders that read a file with the line of each key (ruamel.yaml's round-trip parser)."""


@pytest.mark.parametrize("loader", sorted(LINED_LOADERS))
def test_a_file_too_large_to_read_with_lines_is_refused_before_it_is_parsed(
    tmp_path: Path, loader: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An 8 MiB file (under ``MAX_FILE_BYTES``) took ruamel.yaml 60-250 s: a file over
    ``MAX_LINED_BYTES`` or writing more than ``MAX_LINED_NODES`` values is refused at the
    line where it passes the limit, before the round-trip parser builds anything."""

    class NoRoundTrip:
        def __init__(self, **_: Any) -> None:
            raise AssertionError("the round-trip parser was run on a file over the limit")

    monkeypatch.setattr("sparring._yaml.YAML", NoRoundTrip)
    large = _write(tmp_path, "large.yaml", "test_name: a\n# " + "x" * MAX_LINED_BYTES + "\n")
    values = "".join(f"  - v{i}\n" for i in range(MAX_LINED_NODES))
    many = _write(tmp_path, "many.yaml", "test_name: a\nvalues:\n" + values)
    for path, line, message in [
        (large, 2, "larger than 2 MiB"),
        (many, MAX_LINED_NODES - 2, f"holds more than {MAX_LINED_NODES:,} values"),
    ]:
        with pytest.raises(UserInputError) as caught:
            LINED_LOADERS[loader](path)
        (problem,) = caught.value.problems
        assert (problem.file, problem.line) == (str(path), line), problem
        assert message in problem.message and "split it" in problem.message


def test_a_file_within_the_lined_limits_loads_with_its_lines(tmp_path: Path) -> None:
    values = "".join(f"  - v{i}\n" for i in range(MAX_LINED_NODES - 10))
    path = _write(tmp_path, "many.yaml", "values:\n" + values)
    data, lines = load_yaml_with_lines(path)
    assert len(data["values"]) == MAX_LINED_NODES - 10
    assert lines.get(("values", MAX_LINED_NODES - 11)) == MAX_LINED_NODES - 9
