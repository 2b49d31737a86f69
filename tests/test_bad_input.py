"""Every command, given a bad value for each kind of option, stops with a located error
and exit 2 — never a traceback (issue 25).

The commands and their parameters are read from the Typer application itself, so a new
command or option is walked without editing this file: a number option given a word, a
choice given a name that is not one, a command's input path (its first path argument)
given a path that does not exist, and each option or argument the settings model requires
(``cli._options.settings_options``) left out — the error names it as typed
(``--chatbot is required: …``)."""

from __future__ import annotations

import typing
from collections.abc import Iterator
from enum import Enum
from pathlib import Path

import pytest
import typer.main
from typer.core import TyperArgument, TyperGroup, TyperOption

from sparring.cli import app, load_all, main

MISSING = "/nonexistent/sparring-bad-input/file.yaml"


def _commands() -> Iterator[tuple[list[str], typer.core.TyperCommand]]:
    load_all()

    def walk(command: object, path: list[str]) -> Iterator[tuple[list[str], typing.Any]]:
        if isinstance(command, TyperGroup):
            for name, sub in command.commands.items():
                if not sub.hidden:
                    yield from walk(sub, [*path, name])
        else:
            yield path, command

    yield from walk(typer.main.get_group(app), [])


def _kind(annotation: object) -> str:
    origin = typing.get_origin(annotation)
    if origin is typing.Literal or (isinstance(annotation, type) and issubclass(annotation, Enum)):
        return "choice"
    if origin is list:
        return _kind(typing.get_args(annotation)[0])
    if annotation in (int, float):
        return "number"
    if annotation is Path:
        return "path"
    return "other"


def _placeholder(param: typing.Any) -> str:
    """A value for a required parameter: a missing path, 1, the first choice (``mutate
    --kind``: the bad value tested is another option's), or a word."""
    annotation = param.type_descriptor.annotation
    kind = _kind(annotation)
    if kind == "choice":
        return _first_choice(annotation)
    return MISSING if kind == "path" else "1" if kind == "number" else "bogus"


def _first_choice(annotation: object) -> str:
    if typing.get_origin(annotation) is list:
        return _first_choice(typing.get_args(annotation)[0])
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return str(next(iter(annotation)).value)
    return str(typing.get_args(annotation)[0])


def _model_required(command: typing.Any) -> set[str]:
    """The parameters of ``command`` whose settings field the model requires."""
    spelled = getattr(command.callback, "settings_parameters", {})
    return {name for name, parameter in spelled.items() if parameter.required}


def _required_arguments(command: typing.Any, *, leave_out: str | None = None) -> list[str]:
    """A placeholder for each required argument and option (by Typer or by the settings
    model), but ``leave_out``: a missing path, 1 or a word."""
    needed = _model_required(command)

    def required(p: typing.Any) -> bool:
        return (p.required or p.name in needed) and p.name != leave_out

    arguments = [_placeholder(p) for p in command.params if isinstance(p, TyperArgument)
                 and required(p)]  # fmt: skip
    for p in command.params:
        if isinstance(p, TyperOption) and required(p):
            arguments += [p.opts[0], _placeholder(p)]
    return arguments


def _cases() -> Iterator[typing.Any]:
    for path, command in _commands():
        name = " ".join(path)
        arguments = _required_arguments(command)
        for param in command.params:
            if not isinstance(param, TyperOption) or param.hidden:
                continue
            kind = _kind(param.type_descriptor.annotation)
            flag = param.opts[0]
            if kind == "number":
                argv = [*path, *arguments, flag, "many"]
                yield pytest.param(argv, flag, id=f"{name} {flag} many")
            elif kind == "choice":
                argv = [*path, *arguments, flag, "bogus-choice"]
                yield pytest.param(argv, flag, id=f"{name} {flag} bogus-choice")
        first = next((p for p in command.params if isinstance(p, TyperArgument)), None)
        needed = _model_required(command)
        if (
            first is not None
            and (first.required or first.name in needed)
            and _placeholder(first) == MISSING
        ):
            yield pytest.param([*path, *arguments], MISSING, id=f"{name} missing path")
        spelled = getattr(command.callback, "settings_parameters", {})
        for field in sorted(needed):
            argv = [*path, *_required_arguments(command, leave_out=field)]
            said = f"{spelled[field].spelled} is required"
            yield pytest.param(argv, said, id=f"{name} without {spelled[field].spelled}")


@pytest.mark.parametrize(("argv", "named"), list(_cases()))
def test_bad_input_is_a_located_error_and_exit_2(
    argv: list[str],
    named: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    monkeypatch.chdir(tmp_path)  # nothing a command might write lands in the repository
    monkeypatch.delenv("SPARRING_MODEL", raising=False)
    monkeypatch.setenv("SPARRING_WEB_DATA", str(tmp_path / "web"))  # not the user's data
    monkeypatch.setenv("COLUMNS", "300")
    monkeypatch.setattr("sys.argv", ["sparring", *argv])
    with pytest.raises(SystemExit) as caught:
        main()
    err = capsys.readouterr().err
    assert caught.value.code == 2, err
    assert "Traceback" not in err
    flat = "".join(err.replace("│", "").split())  # Click's error box wraps long lines
    # the option or the file the error is about; a command that needs a model may first
    # say so, naming --model, and `web import` first looks up its --project (both checks
    # come before any file is read)
    assert any(
        said in flat for said in ("".join(named.split()), "needsalanguagemodel", "noproject")
    ), err
