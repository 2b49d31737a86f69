"""Checking the files users write before any job reads them (``sparring validate``, the
dashboard's file editor): ``validate_files`` → one ``FileCheck`` per file with its located
problems (file, line, key). Above the stages: it reads rule files (``check``) and probe
suites (``adversarial``) with their own loaders, and runs none of them."""

from sparring.validation._cross_checks import connector_problems, rule_variable_problems
from sparring.validation._validate import (
    FileCheck,
    FileKind,
    file_kind,
    validate_file,
    validate_files,
)

__all__ = [
    "FileCheck",
    "FileKind",
    "connector_problems",
    "file_kind",
    "rule_variable_problems",
    "validate_file",
    "validate_files",
]
