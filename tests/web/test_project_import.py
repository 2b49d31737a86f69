"""A project brought in whole (``sparring.web._project_import``, ``/projects/ID/import/``):
a SENSEI, TRACER or ChatChecker layout uploaded as a ``.zip`` or as files with their
folder paths is recognised, each file validated with its located errors and mapped to the
project's kinds; the upload is attacked (zip-slip, a zip bomb, 10,000 entries, a symbolic
link, paths that climb out) and refused before anything is kept."""

from __future__ import annotations

import io
import stat
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from web_helpers import PROFILE, client_for, csrf_token

from sparring.web._project_import import MAX_IMPORT_FILES
from sparring.web.models import AuditEvent, ProjectFile

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"

SENSEI_CONNECTOR = """\
config:
  api_url: http://127.0.0.1:5005/chat
  request_key: message
  response_key: reply
payload:
  message: ""
"""
RULE = "name: answered\ndescription: the bot answers\noracle: len(chatbot_phrases) > 0\n"
BROKEN_RULE = "name: broken\noracle: len(chatbot_phrases) >\n"
BAD_PROFILE = PROFILE.replace("  number: 2\n", "  number: many\n")


def sensei_project(prefix: str = "vet-sensei/") -> dict[str, bytes]:
    """A small SENSEI project of our own: connector file, profile, rules, a standard
    personality, a README and a Python file."""
    return {
        f"{prefix}rasa-connector.yml": SENSEI_CONNECTOR.encode(),
        f"{prefix}profiles/order.yaml": PROFILE.encode(),
        f"{prefix}rules/answered.yaml": RULE.encode(),
        f"{prefix}personalities/formal-user.yml": b"context:\n  - Speak formally.\n",
        f"{prefix}README.md": b"# my bot\n",
        f"{prefix}actions.py": b"import os\n",
    }


def zipped(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def post_import(user: Any, project: Any, uploads: dict[str, bytes], paths: bool = False) -> Any:
    """POST ``uploads`` (name → bytes) to the project's import page, as the form does;
    ``paths``: with each file's relative path (a folder chosen or dropped)."""
    client = client_for(user)
    files = [SimpleUploadedFile(name.rsplit("/", 1)[-1], data) for name, data in uploads.items()]
    data: dict[str, Any] = {"files": files}
    if paths:
        data["paths"] = list(uploads)
    return client.post(f"/projects/{project.pk}/import/", data, HTTP_X_CSRFTOKEN=csrf_token(client))


def _kinds(project: Any) -> dict[str, str]:
    return dict(ProjectFile.objects.filter(project=project).values_list("name", "kind"))


@pytest.mark.django_db
def test_a_zip_of_a_sensei_project_is_recognised_and_mapped_to_the_projects_kinds(
    world: dict[str, Any],
) -> None:
    project = world["project"]
    upload = {"vet.zip": zipped(sensei_project())}
    page = post_import(world["editor"], project, upload)
    assert page.status_code == 200
    result = page.context["result"]
    assert result.layouts == ["SENSEI"]
    assert _kinds(project) == {
        "rasa-connector.yml": "chatbot",
        "profiles/order.yaml": "profile",
        "rules/answered.yaml": "rules",
    }
    by_name = {f.name: f for f in result.files}
    assert by_name["rasa-connector.yml"].format == "SENSEI connector file"
    assert by_name["rules/answered.yaml"].format == "SENSEI-check rules"
    assert "library persona 'formal'" in by_name["personalities/formal-user.yml"].reason
    assert by_name["actions.py"].reason.startswith("code")
    assert by_name["README.md"].status == "skipped"
    event = AuditEvent.objects.get(action="project_imported")
    assert event.detail["imported"] == 3 and event.detail["layouts"] == ["SENSEI"]
    text = page.content.decode()
    assert "Recognised: SENSEI." in text and "3 imported" in text


@pytest.mark.django_db
def test_a_folder_upload_keeps_its_paths_and_each_bad_file_shows_its_located_errors(
    world: dict[str, Any],
) -> None:
    project = world["project"]
    files = sensei_project("my-folder/")
    files["my-folder/rules/broken.yaml"] = BROKEN_RULE.encode()
    files["my-folder/profiles/bad.yaml"] = BAD_PROFILE.encode()
    page = post_import(world["owner"], project, files, paths=True)
    assert page.status_code == 200
    by_name = {f.name: f for f in page.context["result"].files}
    assert by_name["profiles/order.yaml"].status == "imported"
    bad = by_name["profiles/bad.yaml"]
    assert bad.status == "refused" and bad.kind == "profile"
    [problem] = bad.problems
    assert problem.file == "profiles/bad.yaml" and problem.key == "conversation.number"
    assert problem.line == PROFILE.splitlines().index("  number: 2") + 1
    broken = by_name["rules/broken.yaml"]
    assert broken.status == "refused" and broken.problems[0].file == "rules/broken.yaml"
    assert "profiles/bad.yaml" not in _kinds(project)
    assert "profiles/bad.yaml:" in page.content.decode()  # shown with its line


@pytest.mark.django_db
def test_importing_again_saves_new_versions(world: dict[str, Any]) -> None:
    project = world["project"]
    post_import(world["owner"], project, {"a.zip": zipped(sensei_project())})
    post_import(world["owner"], project, {"a.zip": zipped(sensei_project())})
    file = ProjectFile.objects.get(project=project, name="profiles/order.yaml")
    assert file.current is not None and file.current.number == 2


@pytest.mark.django_db
def test_tracer_and_chatchecker_layouts_are_recognised(world: dict[str, Any]) -> None:
    tracer = {
        "bikeshop/execution_1/profiles/buyer.yaml": PROFILE.encode(),
        "bikeshop/connector.yml": (
            b"name: shop\nbase_url: http://127.0.0.1:5000\n"
            b"send_message: {path: /chat, payload_template: {message: '{user_msg}'}}\n"
            b"response_path: reply\n"
        ),
    }
    result = post_import(world["owner"], world["project"], tracer, paths=True).context["result"]
    formats = {f.name: f.format for f in result.files}
    assert result.layouts == ["TRACER"], [(f.name, f.format, f.problems) for f in result.files]
    assert formats["execution_1/profiles/buyer.yaml"] == "TRACER profile"
    assert formats["connector.yml"] == "TRACER connector file"
    chatchecker = {
        "study/user_personas/persona_01.yaml": (
            b"persona_id: p01\ntype: standard\n"
            b"profile: A student who wants to plan a study goal.\n"
            b"task: Set a weekly study goal.\n"
        ),
        "study/runs/r1/simulation_run_info.yaml": b"chatbot_id: study\nrun_id: r1\n",
    }
    result = post_import(world["owner"], world["project"], chatchecker, paths=True)
    files = {f.name: f for f in result.context["result"].files}
    assert result.context["result"].layouts == ["ChatChecker"]
    assert files["runs/r1/simulation_run_info.yaml"].status == "skipped"
    assert files["user_personas/persona_01.yaml"].format == "ChatChecker persona"


def _refused(page: Any, project: Any, *words: str) -> None:
    assert page.status_code == 400
    text = " ".join(f"{p.key} {p.message}" for p in page.context["problems"])
    for word in words:
        assert word in text, text
    assert not ProjectFile.objects.filter(project=project).exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("entry", "why"),
    [
        ("../../evil.yaml", "zip-slip"),
        ("profiles/../../evil.yaml", "zip-slip"),
        ("/etc/cron.d/evil.yaml", "absolute"),
        ("C:/evil.yaml", "absolute"),
        ("..\\..\\evil.yaml", "backslash"),
    ],
)
def test_a_zip_slip_entry_refuses_the_whole_archive(
    world: dict[str, Any], entry: str, why: str
) -> None:
    project = world["project"]
    archive = zipped({"profiles/order.yaml": PROFILE.encode(), entry: RULE.encode()})
    _refused(post_import(world["owner"], project, {"x.zip": archive}), project, entry, why)


@pytest.mark.django_db
def test_an_uploaded_path_that_climbs_out_refuses_the_upload(world: dict[str, Any]) -> None:
    project = world["project"]
    files = {"profiles/order.yaml": PROFILE.encode(), "../../evil.yaml": RULE.encode()}
    _refused(post_import(world["owner"], project, files, paths=True), project, "zip-slip")


@pytest.mark.django_db
def test_a_symbolic_link_entry_refuses_the_archive(world: dict[str, Any]) -> None:
    project = world["project"]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("profiles/order.yaml", PROFILE)
        link = zipfile.ZipInfo("rules/secrets.yaml")
        link.create_system = 3  # Unix
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, "/etc/passwd")
    page = post_import(world["owner"], project, {"x.zip": buffer.getvalue()})
    _refused(page, project, "rules/secrets.yaml", "symbolic link")


@pytest.mark.django_db
def test_ten_thousand_entries_are_refused_before_any_is_read(world: dict[str, Any]) -> None:
    project = world["project"]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for i in range(10_000):
            archive.writestr(f"profiles/p{i}.yaml", "")
    page = post_import(world["owner"], project, {"x.zip": buffer.getvalue()})
    _refused(page, project, "10,000 entries", f"at most {MAX_IMPORT_FILES:,}")


@pytest.mark.django_db
def test_a_zip_bomb_is_read_one_megabyte_at_most(world: dict[str, Any]) -> None:
    """An entry of 200 MB of zeros packs into ~200 KB: the import reads 1 MB of it (and
    refuses it, located) and keeps the other files."""
    project = world["project"]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("profiles/order.yaml", PROFILE)
        with archive.open("profiles/bomb.yaml", "w", force_zip64=True) as bomb:
            block = b"#" * (1024 * 1024)
            for _ in range(200):
                bomb.write(block)
    assert len(buffer.getvalue()) < 2 * 1024 * 1024
    page = post_import(world["owner"], project, {"bomb.zip": buffer.getvalue()})
    files = {f.name: f for f in page.context["result"].files}
    assert files["profiles/order.yaml"].status == "imported"
    assert files["profiles/bomb.yaml"].status == "refused"
    assert "larger than" in files["profiles/bomb.yaml"].problems[0].message


@pytest.mark.django_db
def test_many_entries_that_together_unpack_past_the_limit_refuse_the_archive(
    world: dict[str, Any],
) -> None:
    project = world["project"]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for i in range(60):  # 60 x 1 MB of comment: each within the file limit
            archive.writestr(f"profiles/p{i}.yaml", b"#" * (1024 * 1024 - 1))
    page = post_import(world["owner"], project, {"x.zip": buffer.getvalue()})
    _refused(page, project, "more than 50 MB")


@pytest.mark.django_db
def test_a_file_that_is_no_zip_is_refused(world: dict[str, Any]) -> None:
    project = world["project"]
    page = post_import(world["owner"], project, {"x.zip": b"PK\x03\x04 not really"})
    _refused(page, project, "not a zip archive")


@pytest.mark.django_db
def test_only_editors_and_owners_import(world: dict[str, Any]) -> None:
    project = world["project"]
    upload = {"x.zip": zipped(sensei_project())}
    assert post_import(world["viewer"], project, upload).status_code == 403
    assert post_import(world["stranger"], project, upload).status_code == 404
    anonymous = client_for(None).get(f"/projects/{project.pk}/import/")
    assert anonymous.status_code == 302 and "/login/" in anonymous["Location"]
    assert not ProjectFile.objects.filter(project=project).exists()


@pytest.mark.django_db
def test_the_project_page_offers_the_drop_zone_to_editors_only(world: dict[str, Any]) -> None:
    project = world["project"]
    page = client_for(world["editor"]).get(f"/projects/{project.pk}/").content.decode()
    assert 'id="drop-zone"' in page and "sparring_web/import.js" in page
    page = client_for(world["viewer"]).get(f"/projects/{project.pk}/").content.decode()
    assert 'id="drop-zone"' not in page


@pytest.mark.django_db
@pytest.mark.parametrize(
    "folder",
    [
        "rasa-bots/veterinary/sensei",
        "sensei/examples",
        "tracer/pizzaorder",
        "chatchecker/chatbots/study_goal_assistant",
    ],
)
def test_real_projects_import(world: dict[str, Any], folder: str) -> None:
    """The published SENSEI and TRACER folders in ../shared/data, zipped as a user would."""
    source = SHARED / folder
    if not source.is_dir():
        pytest.skip("../shared/data is absent")
    files = {
        p.relative_to(source.parent).as_posix(): p.read_bytes()
        for p in sorted(source.rglob("*"))
        if p.is_file()
    }
    started = time.perf_counter()
    page = post_import(world["owner"], world["project"], {"p.zip": zipped(files)})
    seconds = time.perf_counter() - started
    result = page.context["result"]
    print(
        f"{folder}: {len(files)} files, {result.count_imported} imported, "
        f"{result.count_refused} not imported, {result.count_skipped} skipped, "
        f"layouts {result.layouts}, {seconds:.1f} s"
    )
    assert result.count_imported > 0
    expected = {"tracer": "TRACER", "chatchecker": "ChatChecker"}.get(
        folder.split("/")[0], "SENSEI"
    )
    assert expected in result.layouts
    for refused in (f for f in result.files if f.status == "refused"):
        assert refused.problems and all(p.file and p.message for p in refused.problems)
