"""SENSEI import that loses nothing: numpy-tagged costs, clock-written timings, older
one- and two-document files, every bad file of a folder listed while the others import,
the fallback phrase through export → import, and diff pairing across executions."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml
from conversation_builders import SENSEI_CONVERSATION
from typer.testing import CliRunner

from sparring.check import check, load_rules
from sparring.cli import app, main
from sparring.conversations import (
    ConversationRecord,
    Turn,
    export_sensei,
    import_sensei,
    load_conversations,
)
from sparring.diff._compare import pairing_keys
from sparring.errors import ConfigError

runner = CliRunner()

NUMPY_COST = """\
total_cost($): !!python/object/apply:numpy.core.multiarray.scalar
- !!python/object/apply:numpy.dtype
  args: [f8, false, true]
  state: !!python/tuple [3, <, null, null, null, -1, -1, 0]
- !!binary |
  glMfSN45VD8=
"""


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_numpy_tagged_cost_is_read_as_a_number(tmp_path: Path) -> None:
    text = SENSEI_CONVERSATION.replace("errors:\n", NUMPY_COST + "errors:\n", 1)
    record = import_sensei(_write(tmp_path / "1_pizza_x.yml", text))
    assert record.usage["sensei"].cost == pytest.approx(0.0012345)
    back = yaml.safe_load_all(export_sensei(record))
    assert next(iter(back))["total_cost($)"] == pytest.approx(0.0012345)


@pytest.mark.parametrize(
    "tag",
    [
        "!!python/object/apply:os.system ['echo owned']",
        "!!python/object/apply:numpy.core.multiarray.scalar [1, 2, 3]",
        "!!python/name:builtins.eval ''",
    ],
)
def test_other_python_tags_are_refused_not_run(tmp_path: Path, tag: str) -> None:
    text = SENSEI_CONVERSATION.replace("errors:\n", f"total_cost($): {tag}\nerrors:\n", 1)
    with pytest.raises(ConfigError) as caught:
        import_sensei(_write(tmp_path / "1_pizza_x.yml", text))
    [problem] = caught.value.problems
    assert problem.line is not None and "invalid YAML" in problem.message


def test_clock_timings_become_seconds(tmp_path: Path) -> None:
    text = (
        SENSEI_CONVERSATION.replace("conversation time: 5.5", "conversation time: '0:00:05.500000'")
        .replace("- 1.25\n", "- 0:00:01.250000\n", 1)
        .replace("- 2.5\n", "- '1 day, 0:00:02.5'\n", 1)
    )
    record = import_sensei(_write(tmp_path / "1_pizza_x.yml", text))
    assert record.duration == 5.5
    assert [t.latency for t in record.turns if t.role == "assistant"] == [1.25, 86402.5]
    assert "'0:00:05.500000'" in export_sensei(record)  # written back as it was


def test_older_two_and_one_document_files_are_read(tmp_path: Path) -> None:
    meta, timing, interaction = SENSEI_CONVERSATION.split("---\n")
    two = import_sensei(_write(tmp_path / "2" / "1_pizza_x.yml", meta + "---\n" + interaction))
    one = import_sensei(_write(tmp_path / "1" / "1_pizza_x.yml", meta + timing + interaction))
    for record in (two, one):
        assert record.variables == {"size": ["small", "large"]}
        assert len(record.turns) == 4 and record.outputs["price"].value == "11.5$"
    assert one.duration == 5.5 and two.duration is None


def test_a_folder_lists_every_bad_file_and_imports_the_others(
    tmp_path: Path, sensei_file: Path
) -> None:
    root = sensei_file.parents[1]
    _write(root / "b" / "1_b_x.yml", SENSEI_CONVERSATION.replace("serial:", "serial: [", 1))
    _write(root / "c" / "1_c_x.yml", SENSEI_CONVERSATION.replace("- User: Small.", "- Nobody: x"))
    _write(root / "notes.yml", "just: a mapping\n")
    run = tmp_path / "run"
    result = runner.invoke(app, ["import-sensei", str(root), "--out", str(run)])
    assert result.exit_code == 2
    output = " ".join(result.output.split())
    assert "Imported 1 conversations" in output
    assert "1_b_x.yml:2" in output and "invalid YAML" in output
    assert "1_c_x.yml:35 [interaction.2]" in output
    assert "2 files were not imported" in output and "Skipped 1" in output
    assert "skipped (not a conversation):" in output and "notes.yml" in output
    assert len(list(load_conversations(run))) == 1


def _native(fallback: str | None) -> ConversationRecord:
    return ConversationRecord(
        id="r0",
        profile="pizza",
        fallback=fallback,
        turns=[
            Turn(role="user", text="blah"),
            Turn(role="assistant", text="Sorry, I did not get that. What size?"),
        ],
    )


def test_the_fallback_phrase_survives_export_and_import(tmp_path: Path) -> None:
    rules = _write(
        tmp_path / "rules" / "fallback.yaml",
        "name: no_fallback\noracle: chatbot.fallback not in chatbot_phrases[-1]\n",
    )
    original = _native("Sorry, I did not get that.")
    exported = _write(tmp_path / "out" / "1_pizza_s.yml", export_sensei(original, serial="s"))
    imported = import_sensei(exported)
    assert imported.fallback == original.fallback
    rule_set = load_rules([rules.parent])
    before = check(rule_set, [original]).result("no_fallback").counts
    after = check(rule_set, [imported]).result("no_fallback").counts
    assert (before.fail, after.fail) == (1, 1)


def test_imported_executions_pair_by_profile_and_serial(tmp_path: Path) -> None:
    def execution(serial: str) -> list[ConversationRecord]:
        text = SENSEI_CONVERSATION.replace("2024-10-25-17-55-35", serial)
        return [
            import_sensei(_write(tmp_path / serial / f"{n}_pizza_{serial}.yml", text),
                          id=f"pizza/{serial}/{n}_pizza_{serial}")
            for n in (0, 1)
        ]  # fmt: skip

    first, second = execution("2025-01-01-10-00-00"), execution("2025-02-02-11-11-11")
    keys_a, keys_b = pairing_keys(first), pairing_keys(second)
    assert (
        {keys_a[r.id] for r in first}
        == {keys_b[r.id] for r in second}
        == {
            "pizza#0",
            "pizza#1",
        }
    )
    native = [_native(None)]
    assert pairing_keys(native) == {"r0": "r0"}


def test_diff_of_two_imported_executions_pairs_conversations(tmp_path: Path) -> None:
    rules = _write(tmp_path / "rules" / "r.yaml", "name: r\noracle: '\"11.5\" in price'\n")
    runs = []
    for serial, price in (("2025-01-01-10-00-00", "11.5$"), ("2025-02-02-11-11-11", "9$")):
        text = SENSEI_CONVERSATION.replace("2024-10-25-17-55-35", serial)
        _write(tmp_path / serial / "src" / f"1_pizza_{serial}.yml", text.replace("11.5$", price))
        run = tmp_path / serial / "run"
        assert runner.invoke(app, ["import-sensei", str(run.parent / "src"), "--out",
                                   str(run)]).exit_code == 0  # fmt: skip
        assert runner.invoke(app, ["check", str(rules.parent), "--run", str(run)]).exit_code in (
            0,
            1,
        )
        runs.append(run)
    result = runner.invoke(app, ["diff", str(runs[0]), str(runs[1])])
    output = " ".join(result.output.split())
    assert result.exit_code == 1, output  # the pass → fail of the paired conversation
    assert "only in the baseline" not in output and "only new" not in output


def test_check_lists_every_bad_conversation_file_before_checking(
    tmp_path: Path,
    sensei_file: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = sensei_file.parents[1]
    _write(root / "b" / "1_b_x.yml", SENSEI_CONVERSATION.replace("serial:", "serial: [", 1))
    _write(root / "c" / "1_c_x.yml", SENSEI_CONVERSATION.replace("- User: Small.", "- Nobody: x"))
    rules = _write(tmp_path / "rules" / "r.yaml", "name: r\noracle: 'True'\n")
    monkeypatch.setattr(sys, "argv", ["sparring", "check", str(rules.parent), "--run", str(root)])
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 2
    errors = capsys.readouterr().err.replace("\n", "")
    assert "1_b_x.yml:2" in errors and "1_c_x.yml:35 [interaction.2]" in errors
