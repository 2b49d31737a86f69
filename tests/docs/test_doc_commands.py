"""Every ``sparring …`` command line in README.md and docs/*.md names a real command and
real options, and every ``from sparring… import …`` in their Python examples imports.

The commands and options are read from the Typer application itself (as
``tests/test_bad_input.py`` does), so a renamed command or option fails here until the docs
follow. Command lines are taken from shell code blocks (continuation lines joined) and from
inline code spans that start with ``sparring``; a synopsis's placeholders (``RUN_DIR``,
``[--model M]``, ``simulate|check``) are skipped, only the words that name a command and the
``--options`` are checked. What runs end to end is tested elsewhere
(``tests/jobs/test_readme_python_api.py``)."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import typer.main
from typer import _click as click
from typer.core import TyperGroup

from sparring.cli import app, load_all

ROOT = Path(__file__).parents[2]
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)
_SPAN = re.compile(r"`(sparring [^`\n]+)`")
_OPTION = re.compile(r"(?<![\w\[-])(--?[a-zA-Z][\w-]*)")
_IMPORT = re.compile(r"^(from|import) sparring[\w.]* ?(import [\w, ]+)?$")
_SHELL = {"sh", "bash", "shell", "console", "zsh", ""}


@dataclass(frozen=True)
class Found:
    """A piece of a document: ``text`` found at ``file``:``line``."""

    file: str
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.text}"


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _command_lines(path: Path) -> Iterator[Found]:
    """The ``sparring …`` command lines of one document: in shell blocks, and in inline
    code spans outside code blocks."""
    text = path.read_text(encoding="utf-8")
    name = str(path.relative_to(ROOT))
    for block in _FENCE.finditer(text):
        if block.group(1) not in _SHELL:
            continue
        start = _line_of(text, block.start(2))
        joined = re.sub(r"\\\n\s*", " ", block.group(2))
        for offset, line in enumerate(joined.splitlines()):
            line = re.sub(r"^\s*\$\s+", "", line.split(" #", 1)[0]).strip()
            for part in re.split(r"&&|\|\||;|\|", line):
                part = re.sub(r"^(\w+=\S*\s+)+", "", part.strip())  # VAR=value sparring …
                if part.startswith("sparring "):
                    yield Found(name, start + offset, part)
    outside = _FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    for span in _SPAN.finditer(outside):
        yield Found(name, _line_of(outside, span.start()), span.group(1))


def _python_imports(path: Path) -> Iterator[tuple[Found, str, list[str]]]:
    """``from sparring… import …`` statements of the document's Python blocks."""
    text = path.read_text(encoding="utf-8")
    name = str(path.relative_to(ROOT))
    for block in _FENCE.finditer(text):
        if block.group(1) not in {"python", "py", "pycon"}:
            continue
        start = _line_of(text, block.start(2))
        code = re.sub(r"^(>>>|\.\.\.) ?", "", block.group(2), flags=re.M)
        try:
            tree = ast.parse(code)
        except SyntaxError:  # a signature sketch, not a program: its import lines alone
            kept = [line if _IMPORT.match(line) else "" for line in code.splitlines()]
            tree = ast.parse("\n".join(kept))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sparring"):
                names = [alias.name for alias in node.names]
                found = Found(name, start + node.lineno - 1, f"from {node.module} import ...")
                yield found, node.module or "", names


def _root() -> TyperGroup:
    load_all()
    return typer.main.get_group(app)


def _options(command: click.Command) -> set[str]:
    named = {"--help"}
    for param in command.params:
        named.update(param.opts)
        named.update(param.secondary_opts)
    return named


def _problems(found: Found, root: TyperGroup) -> list[str]:
    """What is wrong with one command line: a command that does not exist, or an option
    the command it names does not take."""
    words = found.text.replace("…", " ").split()[1:]
    command: click.Command = root
    path = ["sparring"]
    for index, word in enumerate(words):
        if word.startswith("-"):
            break
        if not isinstance(command, TyperGroup):
            break
        sub = command.commands.get(word)
        if sub is None:
            if index == 0 or not re.fullmatch(r"[a-z][a-z-]*", word):
                break  # a placeholder (RUN, SEEDS, NAME) or an argument
            return [f"{found}: `{' '.join(path)}` has no command {word!r}"]
        command, path = sub, [*path, word]
    if command is root and words and not words[0].startswith("-"):
        return [f"{found}: sparring has no command {words[0]!r}"]
    known = _options(command) | (_options(root) if command is root else set())
    problems = []
    for option in _OPTION.findall(" ".join(words)):
        if option not in known and option not in _options(root):
            problems.append(f"{found}: `{' '.join(path)}` has no option {option}")
    return problems


def test_every_documented_command_line_names_real_commands_and_options() -> None:
    root = _root()
    lines = [found for path in DOCS for found in _command_lines(path)]
    assert len(lines) > 100, "the extraction found too few command lines to be trusted"
    problems = [problem for found in lines for problem in _problems(found, root)]
    assert not problems, "\n".join(problems)


def test_the_checker_catches_a_wrong_command_and_a_wrong_option() -> None:
    root = _root()
    assert _problems(Found("x.md", 1, "sparring simulate P --chatbot c.yaml"), root) == []
    assert _problems(Found("x.md", 1, "sparring adversarial probe --suite S"), root) == []
    assert _problems(Found("x.md", 1, "sparring simulat P"), root)
    assert _problems(Found("x.md", 1, "sparring adversarial probes --out D"), root)
    assert _problems(Found("x.md", 1, "sparring check R --runs D"), root)


def test_every_documented_python_import_imports() -> None:
    statements = [stmt for path in DOCS for stmt in _python_imports(path)]
    assert statements, "no Python example imports sparring"
    problems = []
    for found, module, names in statements:
        try:
            imported = importlib.import_module(module)
        except ImportError as exc:
            problems.append(f"{found}: {exc}")
            continue
        problems += [
            f"{found}: {module} has no {name}"
            for name in names
            if name != "*"
            and not hasattr(imported, name)
            and importlib.util.find_spec(f"{module}.{name}") is None
        ]
    assert not problems, "\n".join(problems)
