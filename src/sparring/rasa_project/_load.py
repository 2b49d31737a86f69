"""Read a Rasa project folder: training data under ``data/`` (YAML or Markdown, any depth;
Rasa 1.x JSON for its synonyms),
the domain (``domain.yml``, or the YAML files of a ``domain/`` folder), ``config.yml`` and
the Rasa 1.x forms of its action code (``actions.py`` or an ``actions/`` package).

Files are bounded before they are parsed (``sparring._yaml``: size, NUL bytes, nesting and
alias expansion); a file that cannot be read or parsed raises ``ConfigError`` naming it
relative to the project (and the line).

The bounds, decided on measurements (2 shared cores, ruamel.yaml composing with marks):
every file at most ``MAX_FILE_BYTES`` (8 MiB), and a YAML file at most
``MAX_LINED_NODES`` (50,000) values, the bound of every file sparring reads with lines.
The cost is per value, not per byte: an NLU file's examples are one block scalar per
intent, so 8 MiB of NLU (300 intents of 100 examples a MiB) composes in 2.6 s of CPU and
51 MB, while stories of short steps cost 6.8 s and 93 MB per 50,000 values (200,000: 28 s,
329 MB). A project larger than that splits its files (Rasa reads every file of ``data/``);
Rasa 1.x Markdown and JSON are read by linear parsers within the byte bound. The largest
Rasa file in the peers' published bots (``../shared/data/rasa-bots``) is a 5.2 kB
``nlu.md``.
"""

from __future__ import annotations

import dataclasses
import re
from functools import lru_cache
from pathlib import Path

from sparring._files import read_user_text, user_files
from sparring._yaml import MAX_LINED_NODES, check_yaml_limits, read_yaml_text
from sparring.errors import ConfigError
from sparring.rasa_project import _json, _markdown, _yaml
from sparring.rasa_project._model import (
    CodeForms,
    Form,
    JsonTrainingFile,
    RasaProject,
    TrainingFile,
    YamlFile,
)

_YAML = (".yml", ".yaml")
_SKIPPED = frozenset({"models", ".rasa", "results", "tests", "__pycache__"})


def is_rasa_project(folder: Path) -> bool:
    """True when ``folder`` holds a Rasa domain (``domain.yml``/``.yaml`` or ``domain/``)."""
    return any((folder / name).exists() for name in ("domain.yml", "domain.yaml", "domain"))


def find_project(folder: Path) -> Path | None:
    """``folder`` when it is a Rasa project, else the first folder below it that is (a
    bot published inside ``bot/en``), else ``None``."""
    if is_rasa_project(folder):
        return folder
    domains = sorted(
        p for name in ("domain.yml", "domain.yaml") for p in folder.rglob(name) if p.is_file()
    )
    return domains[0].parent if domains else None


def _read(root: Path, path: Path) -> tuple[str, str]:
    relative = path.relative_to(root).as_posix()
    try:
        text = read_yaml_text(path)
        if path.suffix.lower() in _YAML:
            check_yaml_limits(path, text, MAX_LINED_NODES)
    except ConfigError as exc:
        problems = [dataclasses.replace(p, file=relative) for p in exc.problems]
        raise ConfigError(problems) from exc
    return relative, text


def _files(folder: Path, suffixes: tuple[str, ...]) -> list[Path]:
    if not folder.is_dir():
        return []
    found = user_files(folder, suffixes, lambda d: d in _SKIPPED)
    return sorted(found, key=lambda p: p.as_posix())


# Parsing is pure and costs far more than reading: each file's parse is kept by its text,
# so listing locations and applying one reads the files again but parses them once.
_read_training_yaml = lru_cache(maxsize=64)(_yaml.read_training)
_read_training_markdown = lru_cache(maxsize=64)(_markdown.read_training)
_read_domain = lru_cache(maxsize=16)(_yaml.read_domain)
_read_config = lru_cache(maxsize=16)(_yaml.read_config)


def training_files(root: Path) -> list[TrainingFile]:
    """Every YAML and Markdown file under ``data/``, sorted by path."""
    files: list[TrainingFile] = []
    for path in _files(root / "data", (*_YAML, ".md")):
        markdown = path.suffix.lower() == ".md"
        reader = _read_training_markdown if markdown else _read_training_yaml
        files.append(reader(*_read(root, path)))
    return files


def json_training_files(root: Path) -> list[JsonTrainingFile]:
    """Every Rasa 1.x JSON training file under ``data/`` (its synonyms), sorted by path."""
    return [_json.read_training(*_read(root, path)) for path in _files(root / "data", (".json",))]


def domain_files(root: Path) -> list[YamlFile]:
    """``domain.yml`` (or ``.yaml``), else every YAML file of ``domain/``."""
    paths = [root / name for name in ("domain.yml", "domain.yaml") if (root / name).is_file()]
    paths = paths[:1] or _files(root / "domain", _YAML)
    return [_read_domain(*_read(root, path)) for path in paths]


def config_file(root: Path) -> YamlFile | None:
    for name in ("config.yml", "config.yaml"):
        if (root / name).is_file():
            return _read_config(*_read(root, root / name))
    return None


_CLASS = re.compile(r"^class\s", re.M)
_NAME = re.compile(r"def\s+name\b.*?return\s+[\"']([^\"']+)[\"']", re.S)
_REQUIRED = re.compile(r"def\s+required_slots\b.*?return\s*\[([^\]]*)\]", re.S)


def code_forms(root: Path) -> list[CodeForms]:
    """Rasa 1.x forms of the action code: each class whose ``name()`` returns a string and
    whose ``required_slots`` returns a list of strings (read as text, never imported)."""
    found: list[CodeForms] = []
    for path in [p for p in _files(root, (".py",)) if p.name.startswith("actions") or
                 "actions" in p.relative_to(root).parts]:  # fmt: skip
        text = read_user_text(path, errors="replace")
        forms: list[Form] = []
        starts = [m.start() for m in _CLASS.finditer(text)]  # each class to the next one
        for start, end in zip(starts, [*starts[1:], len(text)], strict=False):
            block = text[start:end]
            name, slots = _NAME.search(block), _REQUIRED.search(block)
            if name and slots:
                line = text.count("\n", 0, start)
                required = tuple(re.findall(r"[\"']([^\"']+)[\"']", slots.group(1)))
                forms.append(Form(name.group(1), line, line + block.count("\n"), required))
        if forms:
            found.append(CodeForms(path.relative_to(root).as_posix(), tuple(forms)))
    return found


def load_project(root: Path) -> RasaProject:
    """The Rasa project at ``root`` (see the module docstring); ``ConfigError`` when one
    of its files is unreadable or invalid YAML."""
    return RasaProject(
        root,
        tuple(training_files(root)),
        tuple(domain_files(root)),
        config_file(root),
        tuple(code_forms(root)),
        tuple(json_training_files(root)),
    )
