"""SENSEI conversation files: import, export, round trips, bad files."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from conversation_builders import record

from sparring.connectors._reply import Button, render_sensei_text
from sparring.conversations import (
    ConversationRecord,
    export_sensei,
    import_sensei,
    load_conversations,
    parse_sensei_buttons,
    sensei_path,
)
from sparring.errors import ConfigError

SHARED_FOLDERS = ("sensei-wild/output", "sensei-pizza/conversations")


def _conversation_files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*.yml") if "__report__" not in p.parts]


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("folder", SHARED_FOLDERS)
def test_every_shared_conversation_imports(shared_data: Path, folder: str) -> None:
    root = shared_data / folder
    expected = _conversation_files(root)
    records = list(load_conversations(root))
    assert len(records) == len(expected) > 30
    for rec in records:
        documents = list(yaml.safe_load_all(Path(rec.source or "").read_text()))
        assert rec.simulator == "sensei" and rec.turns
        assert len(rec.turns) == len(documents[2]["interaction"])
        assert rec.response_times == documents[1]["assistant response time"]
        assert all(o.strategy == "imported" for o in rec.outputs.values())
        assert rec.id == Path(rec.source or "").relative_to(root).with_suffix("").as_posix()
        assert rec.profile in rec.id.split("/")[-3]


@pytest.mark.parametrize("folder", SHARED_FOLDERS)
def test_import_export_import_keeps_every_field(
    shared_data: Path, folder: str, tmp_path: Path
) -> None:
    root = shared_data / folder
    originals = list(load_conversations(root))
    for rec in originals:
        exported = export_sensei(rec)
        # SENSEI dumps with the same options, so the file comes back byte for byte.
        assert exported == Path(rec.source or "").read_text(encoding="utf-8")
        _write(tmp_path / sensei_path(rec), exported)
    again = {r.id: r for r in load_conversations(tmp_path)}
    assert set(again) == {r.id for r in originals}
    for rec in originals:
        assert again[rec.id].model_dump(exclude={"source"}) == rec.model_dump(exclude={"source"})


def test_shared_records_survive_native_json(shared_data: Path) -> None:
    for rec in load_conversations(shared_data / "sensei-wild/output"):
        assert ConversationRecord.model_validate_json(rec.model_dump_json()) == rec


def test_shared_buttons_are_parsed(shared_data: Path) -> None:
    root = shared_data / "sensei-wild/output/julie"
    with_buttons = [
        t for r in load_conversations(root) for t in r.turns if t.role == "assistant" and t.buttons
    ]
    assert len(with_buttons) > 20
    links = {b.link for t in with_buttons for b in t.buttons}
    assert None in links and "36a6ec44-6dc2-4712-98b3-f393e275d322" in links
    assert all(t.sensei_text == t.text for t in with_buttons)


def test_fields_map_onto_the_record(sensei_file: Path) -> None:
    rec = import_sensei(sensei_file)
    assert (rec.id, rec.profile, rec.index) == ("1_pizza_2024-10-25-17-55-35", "pizza", 1)
    assert rec.source == str(sensei_file)
    assert rec.language == "English" and rec.context == ["Order a pizza."]
    assert rec.goal_templates == ["a {{size}} pizza"]
    assert rec.variables == {"size": ["small", "large"]}
    assert rec.settings == {
        "number": 2,
        "goal_style": {"steps": 4},
        "interaction_style": ["default"],
    }
    assert rec.interaction_styles == ["default"]
    assert rec.outputs["price"].value == "11.5$" and rec.outputs["price"].strategy == "imported"
    assert rec.outputs["order_id"].value is None
    assert [(e.code, e.name, e.message) for e in rec.errors] == [
        (1001, "goal_not_completed", "1 goals left to complete.")
    ]
    assert rec.duration == 5.5
    assert [t.latency for t in rec.turns] == [None, 1.25, None, 2.5]
    assert rec.turns[1].buttons == [Button(text="Small", link="/small"), Button(text="Large")]
    assert rec.turns[1].text.startswith("Which size?\n\nAVAILABLE BUTTONS: \n")
    assert rec.extra == {"sensei": {"serial": "2024-10-25-17-55-35"}}
    # the serial is when it ran: relative and numeric dates are read against it
    assert rec.started_at is not None and rec.started_at.isoformat().startswith("2024-10-25T17:55")


def test_unknown_keys_nulls_and_order_are_kept(tmp_path: Path) -> None:
    text = (
        "language: null\nserial: s1\ncontext: null\nask_about: [{n: 3}, 'say {{n}}', 7]\n"
        "conversation: {number: 1}\ndata_output: {a: 1}\nerrors: [{x1: odd}]\n"
        "tool: custom\n---\nconversation time: null\nassistant response time: [0.5, null]\n"
        "tokens: 12\n---\ninteraction:\n- User: null\n- Assistant: 42\n- Assistant: ok\n"
        "note: [1, 2]\n"
    )
    source = _write(tmp_path / "0_weird_s1.yml", text)
    rec = import_sensei(source)
    assert rec.profile == "weird" and rec.language is None and rec.context == []
    assert rec.variables == {"n": 3} and rec.goal_templates == ["say {{n}}", 7]
    assert [t.text for t in rec.turns] == ["", "42", "ok"]
    assert [t.latency for t in rec.turns] == [None, 0.5, None]
    assert rec.errors == []
    exported = export_sensei(rec)
    assert list(yaml.safe_load_all(exported)) == list(yaml.safe_load_all(text))
    assert list(yaml.safe_load(exported.split("---")[0])) == [
        "language", "serial", "context", "ask_about", "conversation", "data_output",
        "errors", "tool",
    ]  # fmt: skip
    copy = _write(tmp_path / "copy" / "0_weird_s1.yml", exported)
    assert import_sensei(copy).model_dump(exclude={"source"}) == rec.model_dump(exclude={"source"})


def test_untimed_opening_message_of_the_chatbot(tmp_path: Path) -> None:
    text = (
        "serial: s\nlanguage: English\ncontext: []\nask_about: []\nconversation: []\n"
        "data_output: []\nerrors: []\n---\nconversation time: 2.0\n"
        "assistant response time: [0.7]\nresponse time report: {average: 0.7, max: 0.7, "
        "min: 0.7}\n---\ninteraction:\n- Assistant: Hello!\n- User: Hi\n"
        "- Assistant: How can I help?\n"
    )
    rec = import_sensei(_write(tmp_path / "0_p_s.yml", text))
    assert [t.latency for t in rec.turns] == [None, None, 0.7]
    assert rec.extra == {"sensei": {"serial": "s"}}
    assert list(yaml.safe_load_all(export_sensei(rec))) == list(yaml.safe_load_all(text))


def test_native_record_exports_in_sensei_layout(tmp_path: Path) -> None:
    native = record("run/7", latencies=(1.5, 2.5), errors=(504,))
    relative = sensei_path(native, serial="2026-01-02-03-04-05")
    assert relative.as_posix() == "pizza/2026-01-02-03-04-05/7_pizza_2026-01-02-03-04-05.yml"
    exported = export_sensei(native, serial="2026-01-02-03-04-05")
    metadata, timing, interaction = yaml.safe_load_all(exported)
    assert metadata["serial"] == "2026-01-02-03-04-05"
    assert metadata["errors"] == [{504: "error 504"}]
    assert timing["response time report"] == {"average": 2.0, "max": 2.5, "min": 1.5}
    assert interaction["interaction"][1] == {
        "Assistant": "answer 0\nAVAILABLE BUTTONS:\n- BUTTON TEXT: Yes LINK: /affirm"
    }
    back = import_sensei(_write(tmp_path / relative, exported))
    assert (back.profile, back.index) == (native.profile, native.index)
    assert [t.sensei_text for t in back.turns] == [t.sensei_text for t in native.turns]
    assert [t.buttons for t in back.turns] == [t.buttons for t in native.turns]
    assert back.response_times == native.response_times
    assert back.variables == native.variables and back.goal_templates == native.goal_templates
    assert {k: o.value for k, o in back.outputs.items()} == {"price": 11.5}
    assert export_sensei(back) == exported


def test_parse_buttons_reads_both_renderings() -> None:
    buttons = [Button(text="Yes", link="/affirm"), Button(text="Docs, more", link=None)]
    assert parse_sensei_buttons(render_sensei_text(["Pick one"], buttons)) == buttons
    sensei = (
        "Pick\n\nAVAILABLE BUTTONS: \n - BUTTON TEXT: A LINK: 1\n\n"
        " - BUTTON TEXT: B LINK: <empty>\n"
    )
    assert parse_sensei_buttons(sensei) == [Button(text="A", link="1"), Button(text="B")]
    assert parse_sensei_buttons("no buttons here - BUTTON TEXT: x LINK: y") == []


def test_invalid_yaml_names_file_and_line(tmp_path: Path) -> None:
    bad = _write(tmp_path / "0_p_s.yml", "serial: s\nlanguage: [English\n---\n")
    with pytest.raises(ConfigError) as info:
        import_sensei(bad)
    problem = info.value.problems[0]
    assert problem.file == str(bad) and problem.line is not None and problem.line >= 2
    assert "invalid YAML" in problem.message


def test_not_a_conversation_is_refused(tmp_path: Path) -> None:
    profile = _write(tmp_path / "profile.yml", "test_name: pizza\nuser: {}\n")
    with pytest.raises(ConfigError, match="not a SENSEI conversation"):
        import_sensei(profile)


@pytest.mark.parametrize(
    ("interaction", "line", "key"),
    [
        ("- User: hi\n- System: hello\n", 7, "interaction.1"),
        ("- User: hi\n- [a, b]\n", 7, "interaction.1"),
        ("- {User: hi, Assistant: ho}\n", 6, "interaction.0"),
    ],
)
def test_bad_interaction_item_is_located(
    tmp_path: Path, interaction: str, line: int, key: str
) -> None:
    head = "serial: s\n---\nconversation time: 1\n---\ninteraction:\n"
    bad = _write(tmp_path / "0_p_s.yml", head + interaction)
    with pytest.raises(ConfigError) as info:
        import_sensei(bad)
    problem = info.value.problems[0]
    assert (problem.file, problem.line, problem.key) == (str(bad), line, key)


def test_interaction_must_be_a_list(tmp_path: Path) -> None:
    bad = _write(tmp_path / "0_p_s.yml", "serial: s\n---\n{}\n---\ninteraction: hello\n")
    with pytest.raises(ConfigError) as info:
        import_sensei(bad)
    assert info.value.problems[0].key == "interaction"
    assert info.value.problems[0].line == 5


@pytest.mark.parametrize("record_id", ["../../etc/passwd", "/abs/x", "a//b", "a\\..\\b"])
def test_export_paths_never_leave_the_output_folder(record_id: str) -> None:
    rec = record(record_id, profile="..")
    rec.extra["sensei"] = {"serial": "../up"}
    relative = sensei_path(rec)
    assert not relative.is_absolute()
    assert ".." not in relative.parts and "" not in relative.parts
    assert all("\\" not in part for part in relative.parts)
    assert relative.suffix == ".yml"
