"""The library page (AppTest): every stored game listed and searchable, its exact replay file
downloadable, and replay files added only when they re-derive."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from app_pages import open_page
from markup_probe import shown

from warlog.dashboard import data
from warlog.dashboard.library_rows import matching, rows
from warlog.engine.bots import play_out
from warlog.engine.scenario import load_scenario
from warlog.events.replay_file import encode_replay
from warlog.events.sqlite_store import SQLiteEventStore
from builders import table_game



@pytest.fixture(scope="module")
def library_games() -> list:
    """Two bot games (One Hour Wargames and the Portable Wargame), played once for the module."""
    return [play_out(f"lib-{seed}", load_scenario(scenario), seed=seed)
            for seed, scenario in ((1, "ancients-river-crossing"), (2, "portable-zama"))]


@pytest.fixture
def library(library_games, tmp_path, monkeypatch) -> tuple[AppTest, Path]:
    db = tmp_path / "lib.db"
    with SQLiteEventStore(db) as store:
        for game in library_games:
            store.append(game.state.game, game.events, 0)
    at = open_page(monkeypatch, db, "views/library.py")
    return at, db


def test_rows_say_what_each_game_is_and_search_matches_every_word():
    games = [{"id": "a", "title": "Crossing", "scenario_id": "x", "rule_system": "ohw",
              "period": "ancients", "players": {"red": "Ann"}, "played": "2026-11-02",
              "events": 10, "ended": True, "winner": None, "reason": "draw"},
             {"id": "b", "title": "Zama", "scenario_id": "z", "rule_system": "portable",
              "period": "ancient_battles", "players": {}, "played": None, "events": 5,
              "ended": False, "winner": None, "reason": None},
             {"id": "c", "title": "Zama", "scenario_id": "z", "rule_system": "portable",
              "period": "ancient_battles", "players": {}, "played": "2025-12-31", "events": 7,
              "ended": False, "winner": None, "reason": None}]
    table = rows(games)
    assert [r["result"] for r in table] == ["draw", "in progress", "in progress"]
    assert table[0]["rules"] == "One Hour Wargames: Ancients"  # in words, not its ids
    assert list(table[0])[:3] == ["game", "title", "date"]
    assert [r["date"] for r in table] == ["2026-11-02", "", "2025-12-31"]
    assert [r["game"] for r in sorted(table, key=lambda r: r["date"])] == ["b", "c", "a"]
    assert [r["game"] for r in matching(table, "2026-11")] == ["a"]  # a month
    assert [r["game"] for r in matching(table, "PORTABLE zama")] == ["b", "c"]
    assert [r["game"] for r in matching(table, "ann")] == ["a"]
    assert matching(table, "") == table


def test_the_library_lists_and_searches_the_games(library):
    at, _ = library
    assert len(at.dataframe[0].value) == 2
    at.text_input(key="library_search").input("portable").run()
    assert list(at.dataframe[0].value["game"]) == ["lib-2"]


def test_the_library_shows_the_date_each_game_was_played(tmp_path, monkeypatch):
    db = tmp_path / "dated.db"
    with SQLiteEventStore(db) as store:
        table_game(store, load_scenario("ancients-river-crossing"), "table-1",
                   players={"red": "Ann", "blue": "Bo"}, played="2026-11-02")
        bots = play_out("bots-1", load_scenario("portable-zama"), seed=1)  # no date
        store.append("bots-1", bots.events, 0)
    at = open_page(monkeypatch, db, "views/library.py")
    table = at.dataframe[0].value
    assert list(table.columns)[:3] == ["game", "title", "date"]
    assert dict(zip(table["game"], table["date"])) == {"bots-1": "", "table-1": "2026-11-02"}
    # stored as canonical JSON, the players come back blue first: shown red first
    assert dict(zip(table["game"], table["players"]))["table-1"] == "red: Ann v blue: Bo"
    at.text_input(key="library_search").input("2026-11").run()
    assert list(at.dataframe[0].value["game"]) == ["table-1"]


def test_the_exact_replay_file_is_offered_for_download(library):
    at, db = library
    with SQLiteEventStore(db) as store:
        expected = encode_replay(store.read("lib-1"))
    assert at.get("download_button")  # the first game is chosen until one is clicked
    from warlog.dashboard.data import replay_bytes
    assert replay_bytes(str(db), "lib-1", len(expected.splitlines()) - 2) == expected


def test_a_replay_file_is_added_only_if_it_re_derives(library, tmp_path):
    at, db = library
    good = play_out("lib-new", load_scenario("frontier-ulundi"), seed=3).events
    at.file_uploader(key="library_upload").set_value(
        ("new.jsonl", encode_replay(good), "application/octet-stream")).run()
    assert not at.exception and at.success and "lib-new" in shown(at.success[0].value)
    with SQLiteEventStore(db) as store:
        assert store.read("lib-new") == good
    # the list counts it in the same run (issue 22: it counted the old number until reloaded),
    # and a rerun with the file still in the widget adds nothing and says the same
    assert any(c.value.startswith("3 of 3 games") for c in at.caption), [c.value for c in at.caption]
    at.run()
    assert not at.exception and not at.error and "lib-new" in shown(at.success[0].value)
    forged = [dict(e) for e in play_out("lib-forged", load_scenario("ancients-river-crossing"),
                                        seed=5).events]
    die = next(i for i, e in enumerate(forged) if e["kind"] == "dice_rolled")
    forged[die]["faces"] = [7 - forged[die]["faces"][0]]  # an edited die, chain recomputed
    at.file_uploader(key="library_upload").set_value(
        ("forged.jsonl", encode_replay(forged), "application/octet-stream")).run()
    assert not at.exception and at.error and "does not re-derive" in shown(at.error[0].value)
    with SQLiteEventStore(db) as store:
        assert not store.has_game("lib-forged")


def test_a_chosen_game_opens_in_the_replay_page(library):
    at, _ = library
    at.text_input(key="library_search").input("zama").run()
    at.button(key="library_open").click().run()
    assert not at.exception
    assert at.selectbox(key="game").value == "lib-2"
    assert any("The Portable Wargame: Ancient Battles" in shown(m.value) for m in at.markdown)


def test_an_unfinished_game_plays_on_in_the_play_page_and_a_finished_one_does_not(library):
    at, db = library
    with SQLiteEventStore(db) as store:
        table_game(store, load_scenario("ancients-river-crossing"), "lib-open",
                   players={"red": "Ann", "blue": "Bo"}, dice="seeded", seed=5,
                   played="2026-12-03")
    data.list_games.clear()  # the page lists games from a cache a few seconds old
    at.text_input(key="library_search").input("lib-1").run()
    assert not [b for b in at.button if b.key == "library_play"]  # lib-1 has ended
    at.text_input(key="library_search").input("lib-open").run()
    at.button(key="library_play").click().run()
    assert not at.exception
    assert at.session_state["play_game"] == "lib-open"
    assert any("to act: red (Ann)" in shown(m.value) for m in at.markdown)  # the Play header
