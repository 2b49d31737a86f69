"""AIML mutation operators: a small set with exact diffs, and the ALICE set (98,794
categories) enumerated and mutated into well-formed XML."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from sparring.mutation import Location, operators_for, unified_diff
from sparring.mutation._operators import aiml as aiml_operators
from sparring.mutation._registry import OPERATORS

BOT = """\
<?xml version="1.0" encoding="UTF-8"?>
<aiml version="1.0">
<!-- <category><pattern>COMMENTED</pattern><template>no</template></category> -->
<category><pattern>HELLO</pattern>
<template>Hi <get name="name"/>!</template>
</category>
<category><pattern>MY NAME IS *</pattern>
<template>Nice to meet you, <set name="name"><star/></set>.</template>
</category>
<category><pattern>YES</pattern>
<that>DO YOU LIKE PIZZA</that>
<template><srai>I LIKE PIZZA</srai></template>
</category>
<category><pattern>HI *</pattern><template><sr/> <srai>HELLO</srai></template></category>
</aiml>
"""

ALICE_COUNTS = {
    "aiml.break_srai": 31374,
    "aiml.break_that": 1553,
    "aiml.delete_category": 98794,
    "aiml.drop_get": 1033,
    "aiml.drop_set": 8555,
    "aiml.swap_categories": 98732,
}
"""Locations per operator in the ALICE set of aiml 0.9.2."""

HEAD = "--- a/sets/bot.aiml\n+++ b/sets/bot.aiml\n"


@pytest.fixture
def bot(tmp_path: Path) -> Path:
    (tmp_path / "sets").mkdir()
    (tmp_path / "sets" / "bot.aiml").write_text(BOT, encoding="utf-8")
    (tmp_path / "sets" / "old.aiml-2.0").write_text(BOT, encoding="utf-8")
    return tmp_path


def located(name: str, project: Path) -> list[tuple[str, int | None]]:
    return [(loc.key, loc.line) for loc in OPERATORS.get(name).locations(project)]


def diff(name: str, project: Path, key: str) -> str:
    files, _ = OPERATORS.get(name).apply(project, Location(file="sets/bot.aiml", key=key))
    return unified_diff(project, files)


def well_formed(text: str) -> None:
    parser = ET.XMLParser(encoding="utf-8")
    parser.feed(text.encode("utf-8"))
    parser.close()


def test_registered() -> None:
    assert aiml_operators.DeleteCategory.name == "aiml.delete_category"
    assert [op.name for op in operators_for("aiml")] == sorted(ALICE_COUNTS)


def test_locations_skip_comments_and_other_files(bot: Path) -> None:
    assert located("aiml.delete_category", bot) == [
        ("category 1", 4),
        ("category 2", 7),
        ("category 3", 10),
        ("category 4", 14),
    ]
    assert located("aiml.swap_categories", bot) == [
        ("category 1,2", 4),
        ("category 2,3", 7),
        ("category 3,4", 10),
    ]
    assert located("aiml.break_srai", bot) == [
        ("category 3/srai 1", 10),
        ("category 4/srai 1", 14),
        ("category 4/srai 2", 14),
    ]
    assert located("aiml.break_that", bot) == [("category 3/that", 10)]
    assert located("aiml.drop_set", bot) == [("category 2/set 1", 7)]
    assert located("aiml.drop_get", bot) == [("category 1/get 1", 4)]


def test_delete_category(bot: Path) -> None:
    assert diff("aiml.delete_category", bot, "category 4") == HEAD + (
        "@@ -11,5 +11,4 @@\n <that>DO YOU LIKE PIZZA</that>\n"
        " <template><srai>I LIKE PIZZA</srai></template>\n </category>\n"
        "-<category><pattern>HI *</pattern><template><sr/> <srai>HELLO</srai></template>"
        "</category>\n </aiml>\n"
    )


def test_swap_categories_swaps_templates(bot: Path) -> None:
    files, description = OPERATORS.get("aiml.swap_categories").apply(
        bot, Location(file="sets/bot.aiml", key="category 1,2")
    )
    assert unified_diff(bot, files) == HEAD + (
        '@@ -2,10 +2,10 @@\n <aiml version="1.0">\n'
        " <!-- <category><pattern>COMMENTED</pattern><template>no</template></category> -->\n"
        " <category><pattern>HELLO</pattern>\n"
        '-<template>Hi <get name="name"/>!</template>\n'
        '+<template>Nice to meet you, <set name="name"><star/></set>.</template>\n'
        " </category>\n <category><pattern>MY NAME IS *</pattern>\n"
        '-<template>Nice to meet you, <set name="name"><star/></set>.</template>\n'
        '+<template>Hi <get name="name"/>!</template>\n'
        " </category>\n <category><pattern>YES</pattern>\n <that>DO YOU LIKE PIZZA</that>\n"
    )
    assert description == (
        "swapped the templates of the categories of patterns 'HELLO' and 'MY NAME IS *'"
    )


def test_break_srai_and_sr(bot: Path) -> None:
    assert diff("aiml.break_srai", bot, "category 3/srai 1") == HEAD + (
        "@@ -9,7 +9,7 @@\n </category>\n <category><pattern>YES</pattern>\n"
        " <that>DO YOU LIKE PIZZA</that>\n"
        "-<template><srai>I LIKE PIZZA</srai></template>\n+<template></template>\n"
        " </category>\n"
        " <category><pattern>HI *</pattern><template><sr/> <srai>HELLO</srai></template>"
        "</category>\n </aiml>\n"
    )
    assert "+<category><pattern>HI *</pattern><template> <srai>HELLO</srai>" in diff(
        "aiml.break_srai", bot, "category 4/srai 1"
    )


def test_break_that(bot: Path) -> None:
    assert diff("aiml.break_that", bot, "category 3/that") == HEAD + (
        "@@ -8,7 +8,6 @@\n"
        ' <template>Nice to meet you, <set name="name"><star/></set>.</template>\n'
        " </category>\n <category><pattern>YES</pattern>\n"
        "-<that>DO YOU LIKE PIZZA</that>\n"
        " <template><srai>I LIKE PIZZA</srai></template>\n </category>\n"
        " <category><pattern>HI *</pattern><template><sr/> <srai>HELLO</srai></template>"
        "</category>\n"
    )


def test_drop_set_keeps_the_answer(bot: Path) -> None:
    assert diff("aiml.drop_set", bot, "category 2/set 1") == HEAD + (
        '@@ -5,7 +5,7 @@\n <template>Hi <get name="name"/>!</template>\n </category>\n'
        " <category><pattern>MY NAME IS *</pattern>\n"
        '-<template>Nice to meet you, <set name="name"><star/></set>.</template>\n'
        "+<template>Nice to meet you, <star/>.</template>\n"
        " </category>\n <category><pattern>YES</pattern>\n <that>DO YOU LIKE PIZZA</that>\n"
    )


def test_drop_get(bot: Path) -> None:
    assert '-<template>Hi <get name="name"/>!</template>\n+<template>Hi !</template>\n' in (
        diff("aiml.drop_get", bot, "category 1/get 1")
    )


def test_nested_sets_drop_one_at_a_time(tmp_path: Path) -> None:
    (tmp_path / "a.aiml").write_text(
        '<aiml><category><pattern>X</pattern><template><set name="it">'
        '<set name="topic">AI</set></set></template></category></aiml>\n',
        encoding="utf-8",
    )
    operator = OPERATORS.get("aiml.drop_set")
    texts = [operator.apply(tmp_path, loc)[0]["a.aiml"] for loc in operator.locations(tmp_path)]
    assert [text.split("<template>")[1].split("</template>")[0] for text in texts] == [
        '<set name="topic">AI</set>',
        '<set name="it">AI</set>',
    ]


def test_every_mutant_is_well_formed_and_reproducible(bot: Path) -> None:
    for operator in operators_for("aiml"):
        for location in operator.locations(bot):
            files, description = operator.apply(bot, location)
            assert (files, description) == operator.apply(bot, location)
            well_formed(files["sets/bot.aiml"])


def test_an_absent_location_is_a_value_error(bot: Path) -> None:
    with pytest.raises(ValueError, match="does not apply"):
        diff("aiml.break_that", bot, "category 1/that")


@pytest.fixture(scope="module")
def alice() -> Path:
    aiml = pytest.importorskip("aiml")
    return Path(aiml.__file__).parent / "botdata" / "alice"


@pytest.mark.parametrize("name", sorted(ALICE_COUNTS))
def test_alice(alice: Path, name: str) -> None:
    operator = OPERATORS.get(name)
    locations = operator.locations(alice)
    assert len(locations) == ALICE_COUNTS[name]
    for location in locations[:3] + locations[-2:]:
        files, _ = operator.apply(alice, location)
        well_formed(files[location.file])
