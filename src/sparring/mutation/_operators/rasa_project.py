"""Read a Rasa project folder: training data under ``data/`` (YAML or Markdown, any depth),
the domain (``domain.yml``, or the YAML files of a ``domain/`` folder) and ``config.yml``.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from sparring.errors import ConfigError, Problem
from sparring.mutation._operators import rasa_markdown, rasa_yaml
from sparring.mutation._operators.rasa_model import RasaProject, TrainingFile, YamlFile

_YAML = (".yml", ".yaml")


def _read(root: Path, path: Path) -> tuple[str, str]:
    relative = path.relative_to(root).as_posix()
    try:
        return relative, path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        problem = Problem(file=relative, line=None, key="", message=f"cannot read file: {exc}")
        raise ConfigError(problem) from exc


def _files(folder: Path, suffixes: tuple[str, ...]) -> list[Path]:
    if not folder.is_dir():
        return []
    found = [p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in suffixes]
    return sorted(found, key=lambda p: p.as_posix())


# Parsing is pure and costs far more than reading: each file's parse is kept by its text,
# so listing locations and applying one reads the files again but parses them once.
_read_training_yaml = lru_cache(maxsize=64)(rasa_yaml.read_training)
_read_training_markdown = lru_cache(maxsize=64)(rasa_markdown.read_training)
_read_domain = lru_cache(maxsize=16)(rasa_yaml.read_domain)
_read_config = lru_cache(maxsize=16)(rasa_yaml.read_config)


def training_files(root: Path) -> list[TrainingFile]:
    """Every YAML and Markdown file under ``data/``, sorted by path."""
    files: list[TrainingFile] = []
    for path in _files(root / "data", (*_YAML, ".md")):
        markdown = path.suffix.lower() == ".md"
        reader = _read_training_markdown if markdown else _read_training_yaml
        files.append(reader(*_read(root, path)))
    return files


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


def load_project(root: Path) -> RasaProject:
    """The parts of the Rasa project at ``root`` that operators mutate; ``ConfigError``
    when one of its files is unreadable or invalid YAML."""
    return RasaProject(
        root, tuple(training_files(root)), tuple(domain_files(root)), config_file(root)
    )
