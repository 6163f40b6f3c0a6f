"""events/ids.py: the one rule for ids and names (issue 19). Before it, ids were checked only
when a replay file was imported: `warlog new --game` took an id with ESC, a tab, a newline, a
zero-width character or 900,000 characters, and the file it exported was then refused."""

from __future__ import annotations

import gzip
import json
import tomllib
from pathlib import Path

import pytest

from warlog.engine.scenario import bundled_scenarios
from warlog.events.ids import MAX_ID_CHARS, IdError, check_id

TESTS = Path(__file__).resolve().parent.parent

BAD = [
    ("a\x1b[31mb", "a control character (U+001B at character 2)"),
    ("a\tb", "a control character (U+0009 at character 2)"),
    ("a\nb", "a control character (U+000A at character 2)"),
    ("a\x9bb", "a control character (U+009B at character 2)"),
    ("zw\u200bid", "an invisible (format) character (U+200B at character 3)"),
    ("w\u2060j", "an invisible (format) character (U+2060 at character 2)"),
    ("\ufeffbom", "an invisible (format) character (U+FEFF at character 1)"),
    ("rtl\u202eexe", "an invisible (format) character (U+202E at character 4)"),
    ("nb\xa0sp", "a space other than the plain space (U+00A0 at character 3)"),
    ("x\u2028y", "a line separator (U+2028 at character 2)"),
    ("x\u2029y", "a paragraph separator (U+2029 at character 2)"),
    ("pua\ue000", "a private-use character (U+E000 at character 4)"),
    ("un\U000e0080", "an unassigned code point (U+E0080 at character 3)"),
    ("lone\udcff", "a surrogate code point (U+DCFF at character 5)"),
    (" lead", "begins with a space"),
    ("trail ", "ends with a space"),
    ("", "is empty"),
    ("g" * (MAX_ID_CHARS + 1), f"is {MAX_ID_CHARS + 1} characters long; game ids have at most "
                               f"{MAX_ID_CHARS}"),
    (7, "must be text, not 7"),
]


@pytest.mark.parametrize("value, words", BAD)
def test_each_kind_of_bad_id_is_refused_in_one_line_naming_it(value, words):
    with pytest.raises(IdError) as info:
        check_id(value, "game id")
    message = str(info.value)
    assert message.startswith("the game id") and words in message
    assert message.isprintable() and len(message) < 250  # the id is shown escaped and cut


@pytest.mark.parametrize("value", ["g1", "Ann's game 2", "battle of  the ford", "é́ battle",
                                   "战斗-1", "g" * MAX_ID_CHARS, "x[bold]y", "a/b\\c"])
def test_printable_ids_pass_unchanged(value):
    assert check_id(value) == value


def test_what_the_id_is_names_the_message():
    with pytest.raises(IdError, match="^the player name 'a\\\\tb' holds a control character"):
        check_id("a\tb", "player name")
    with pytest.raises(IdError, match="scenario ids have at most 100"):
        check_id("s" * 101, "scenario id", max_chars=100)


def _fixture_ids() -> set[str]:
    """Every game, scenario and unit id in the stored fixtures, golden games and scenarios."""
    found: set[str] = set()
    for path in [*TESTS.rglob("*.jsonl"), *TESTS.rglob("*.jsonl.gz")]:
        data = path.read_bytes()
        data = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
        for line in data.splitlines()[:2]:
            record = json.loads(line)
            found.add(record.get("game", "g"))
            scenario = record.get("scenario")
            if isinstance(scenario, dict):
                found.add(scenario.get("id", "s"))
                found.update(u["id"] for u in scenario.get("units", ()))
    for path in TESTS.rglob("*.toml"):
        data = tomllib.loads(path.read_text("utf-8"))
        found.update(u["id"] for u in data.get("units", ()))
        found.add(data.get("id", path.stem))
    for scenario in bundled_scenarios():
        found.add(scenario.id)
        found.update(u.id for u in scenario.units)
    return found


def test_every_id_valid_today_stays_valid():
    found = _fixture_ids()
    assert len(found) > 100
    for value in found:
        check_id(value)


def test_the_store_refuses_a_new_game_whose_id_breaks_the_rule(tmp_path):
    """The one choke point every new game passes (CLI, dashboard, import): before, the store
    took any non-empty string, so a caller that forgot the rule could store an id no replay
    file may carry."""
    from warlog.engine.game import start
    from warlog.engine.scenario import load_scenario
    from warlog.events.sqlite_store import SQLiteEventStore
    from warlog.events.store import StoreError

    scenario = load_scenario("ancients-river-crossing")
    with SQLiteEventStore(tmp_path / "w.db") as store:
        for bad in ("a\x1bb", "zero\u200bwidth", " padded", "x" * 201):
            with pytest.raises(StoreError, match="game id"):
                store.append(bad, start(bad, scenario), 0)
        assert store.games() == []
        store.append("fine-id", start("fine-id", scenario), 0)
        assert [g.id for g in store.games()] == ["fine-id"]
