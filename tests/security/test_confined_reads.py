"""Under a policy that confines paths, the reader of a user's files judges the file it
opened, not the name it was given (issue 32, attacked again by an outsider): a symbolic
link swapped in after a path check (TOCTOU), a hard link inside the project, and any
loader or setting that forgot to ask (``suites`` did) all end at the same refusal.
sparring's packaged data is still read; with no policy (the CLI) everything is."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sparring._files import read_user_text
from sparring._policy import ExecutionPolicy, current_policy, scoped
from sparring.errors import ConfigError


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """A project folder and, beside it, a server file holding a secret."""
    project = tmp_path / "project"
    project.mkdir()
    server = tmp_path / "server-secret.yaml"
    server.write_text("secret_key: s3rv3r-k3y-value\n")
    return project, server


def _confined(project: Path) -> ExecutionPolicy:
    return ExecutionPolicy(run_code=False).confined([project])


def test_a_link_swapped_in_after_the_check_is_refused(layout: tuple[Path, Path]) -> None:
    project, server = layout
    profile = project / "profile.yaml"
    profile.write_text("test_name: fine\n")
    with scoped(_confined(project)):
        current_policy().require_path(profile, "settings", None, "profiles")  # passes
        profile.unlink()
        os.symlink(server, profile)  # the swap, between the check and the read
        with pytest.raises(ConfigError) as caught:
            read_user_text(profile)
    assert "outside the project" in str(caught.value) and "s3rv3r" not in str(caught.value)
    assert "s3rv3r" in read_user_text(profile)  # the control: the CLI reads it


def test_a_hard_link_inside_the_project_is_refused(layout: tuple[Path, Path]) -> None:
    project, server = layout
    linked = project / "rules.yaml"
    os.link(server, linked)
    with scoped(_confined(project)), pytest.raises(ConfigError) as caught:
        read_user_text(linked)
    assert "hard link" in str(caught.value)


def test_every_loader_refuses_a_file_outside_whatever_it_checked(
    layout: tuple[Path, Path],
) -> None:
    """A loader given a path outside the roots directly (as one that forgot to ask the
    policy would): the read itself refuses it."""
    from sparring._yaml import load_yaml_with_lines
    from sparring.adversarial import load_probe_suite
    from sparring.connectors import load_chatbot_config

    project, server = layout
    with scoped(_confined(project)):
        for load in (load_yaml_with_lines, load_probe_suite, load_chatbot_config):
            with pytest.raises(ConfigError) as caught:
                load(server)  # type: ignore[operator]
            assert "outside the project" in str(caught.value), load


def test_packaged_data_and_the_project_s_files_are_read(layout: tuple[Path, Path]) -> None:
    from sparring.adversarial import builtin_suites, load_probe_suite

    project, _server = layout
    (project / "profile.yaml").write_text("test_name: fine\n")
    with scoped(_confined(project)):
        assert read_user_text(project / "profile.yaml") == "test_name: fine\n"
        for path in builtin_suites().values():
            assert load_probe_suite(path).probes


def _path_settings() -> list[tuple[str, str]]:
    """Every (job, setting) whose type holds a path, over every registered job."""
    import typing
    from pathlib import Path as P

    from sparring.runner import JOBS

    found = []
    for name, job in JOBS.items().items():
        for setting, info in job.settings_type.model_fields.items():
            if "Path" in str(info.annotation) or P in typing.get_args(info.annotation):
                found.append((name, setting))
    return sorted(found)


@pytest.mark.parametrize("outside", ["/etc/passwd", "../../etc", "~/.ssh/id_rsa"])
def test_every_path_setting_of_every_job_is_confined(tmp_path: Path, outside: str) -> None:
    """Each job's every path setting, given a server path (absolute, climbing, home):
    refused by the typed settings' policy check, on that setting."""
    import typing

    from sparring.runner import find_job

    settings = _path_settings()
    assert len(settings) > 20 and ("adversarial-probe", "explored") in settings

    def value(annotation: object, path: Path) -> object:
        if str(annotation).startswith("list"):
            return [path]
        if "Path" in str(annotation):
            return path
        return typing.get_args(annotation)[0]  # a Literal's first choice (mutate's kind)

    with scoped(ExecutionPolicy(run_code=False).confined([tmp_path])):
        for job, setting in settings:
            model = find_job(job).settings_type
            fields = model.model_fields
            given = {
                name: value(info.annotation, tmp_path)
                for name, info in fields.items()
                if info.is_required() and name != setting
            }
            given[setting] = value(fields[setting].annotation, Path(outside))
            typed = model.model_construct(**given)
            keys = [p.key for p in typed.policy_problems()]
            assert setting in keys, (job, setting, keys)
