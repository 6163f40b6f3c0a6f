"""events/analysis_store.py: win-probability curves kept in the games' own database, keyed by
the game, the parameters and the game's length, beside an event store that does not mind."""

from __future__ import annotations

import sqlite3

import pytest

from warlog.events.analysis_store import TABLE, AnalysisStore
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.events.store import StoreError

PARAMS = {"playouts": 50, "seed": 1, "mode": "bots", "red": "aggressive", "blue": "cautious"}


def _curve(tag: str) -> dict:
    return {"points": [{"turn": 1, "red": {"p": 0.5}}], "tag": tag}


def test_a_curve_is_found_by_game_parameters_and_length(tmp_path):
    db = tmp_path / "g.db"
    with AnalysisStore(db) as store:
        store.save_curve("g1", PARAMS, 40, _curve("a"))
        assert store.load_curve("g1", PARAMS, 40) == _curve("a")
        assert store.load_curve("g1", PARAMS, 41) is None  # the game grew: not shown stale
        assert store.load_curve("g1", {**PARAMS, "seed": 2}, 40) is None
        assert store.load_curve("g2", PARAMS, 40) is None
        # parameter order does not matter: they are stored as canonical JSON
        assert store.load_curve("g1", dict(reversed(list(PARAMS.items()))), 40) == _curve("a")


def test_saving_again_replaces_and_a_longer_game_drops_the_older_curve(tmp_path):
    db = tmp_path / "g.db"
    with AnalysisStore(db) as store:
        store.save_curve("g1", PARAMS, 40, _curve("a"))
        store.save_curve("g1", PARAMS, 40, _curve("b"))
        store.save_curve("g1", {**PARAMS, "seed": 9}, 40, _curve("other seed"))
        assert store.load_curve("g1", PARAMS, 40) == _curve("b")
        store.save_curve("g1", PARAMS, 44, _curve("c"))
        rows = store.conn.execute(f"SELECT params, last_seq FROM {TABLE} ORDER BY last_seq") \
            .fetchall()
    assert [r[1] for r in rows] == [40, 44]  # the other seed's curve stays; the old one went
    assert '"seed":9' in rows[0][0]


def test_latest_curve_prefers_more_playouts_then_the_newest(tmp_path):
    with AnalysisStore(tmp_path / "g.db") as store:
        assert store.latest_curve("g1", 40) is None
        store.save_curve("g1", {**PARAMS, "playouts": 200}, 40, _curve("many"))
        store.save_curve("g1", {**PARAMS, "playouts": 20}, 40, _curve("few"))
        assert store.latest_curve("g1", 40)["tag"] == "many"
        store.save_curve("g1", {**PARAMS, "playouts": 200, "seed": 3}, 40, _curve("newest"))
        assert store.latest_curve("g1", 40)["tag"] == "newest"
        assert store.latest_curve("g1", 39) is None


def test_the_event_store_opens_reads_appends_and_verifies_with_the_extra_table(tmp_path,
                                                                              build):
    db = tmp_path / "g.db"
    events = build.make_game("g1", 12)
    with SQLiteEventStore(db) as store:
        store.append("g1", events[:8], 0)
    with AnalysisStore(db) as analyses:
        analyses.save_curve("g1", PARAMS, 8, _curve("a"))
    with SQLiteEventStore(db) as store:  # its schema check tolerates a table it did not make
        store.append("g1", events[8:], 8)
        assert store.read("g1") == events
        assert store.verify("g1") == 12 and store.check("g1") == 12
        assert [g.id for g in store.games()] == ["g1"]
    with AnalysisStore(db) as analyses:
        assert analyses.load_curve("g1", PARAMS, 8) == _curve("a")
        assert analyses.load_curve("g1", PARAMS, 12) is None


def test_reading_a_database_without_curves_creates_nothing(tmp_path):
    db = tmp_path / "g.db"
    with SQLiteEventStore(db):
        pass
    with AnalysisStore(db) as store:
        assert store.latest_curve("g1", 3) is None
    names = {n for (n,) in sqlite3.connect(db).execute("SELECT name FROM sqlite_master")}
    assert TABLE not in names


def test_a_curve_changed_outside_warlog_is_one_line(tmp_path):
    db = tmp_path / "g.db"
    with AnalysisStore(db) as store:
        store.save_curve("g1", PARAMS, 5, _curve("a"))
        store.conn.execute(f"UPDATE {TABLE} SET curve = '{{broken'")
        store.conn.commit()
        with pytest.raises(StoreError, match="the stored curve of game 'g1' is not valid JSON"):
            store.latest_curve("g1", 5)


def test_a_folder_that_does_not_exist_is_a_store_error(tmp_path):
    with pytest.raises(StoreError, match="cannot open the database"):
        AnalysisStore(tmp_path / "missing" / "g.db")
