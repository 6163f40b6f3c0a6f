"""events/analysis_store.py's reviews: kept in the games' own database, keyed by the game, the
parameters (budget, seed, evaluator) and the game's length, stored whole or not at all, and a
table the schema check knows (events/sqlite_schema.py) while anything planted beside it is
still refused."""

from __future__ import annotations

import sqlite3

import orjson
import pytest
from store_helpers import plant

from warlog.events import analysis_store
from warlog.events.analysis_store import AnalysisStore
from warlog.events.sqlite_schema import REVIEW_TABLE
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.events.store import DatabaseAltered, StoreError

BUDGET = {"candidates": 6, "cap": 256, "samples": 32}
PARAMS = {"budget": BUDGET, "seed": 0, "evaluator": "ev-new"}


def _review(tag: str, evaluator: str = "ev-new") -> dict:
    return {"format": 1, "evaluator": evaluator, "orders": [{"grade": "best"}], "tag": tag}


def _names(db) -> set[str]:
    conn = sqlite3.connect(db)
    try:
        return {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
    finally:
        conn.close()


def test_a_review_is_found_by_game_parameters_and_length_only(tmp_path):
    with AnalysisStore(tmp_path / "g.db") as store:
        store.save_review("g1", PARAMS, 40, _review("a"))
        assert store.load_review("g1", PARAMS, 40) == _review("a")
        assert store.load_review("g1", PARAMS, 41) is None  # the game grew: never shown stale
        assert store.load_review("g1", {**PARAMS, "evaluator": "ev-old"}, 40) is None
        assert store.load_review("g1", {**PARAMS, "seed": 1}, 40) is None
        assert store.load_review("g1", {**PARAMS, "budget": {**BUDGET, "candidates": 2}},
                                 40) is None
        assert store.load_review("g2", PARAMS, 40) is None
        # canonical JSON: the order the parameters come in does not matter, nested ones too
        shuffled = {"evaluator": "ev-new", "seed": 0, "budget": dict(reversed(BUDGET.items()))}
        assert store.load_review("g1", shuffled, 40) == _review("a")
        # a curve of the same key is another thing
        assert store.load_curve("g1", PARAMS, 40) is None


def test_saving_replaces_the_same_key_and_drops_older_lengths_of_the_same_parameters(tmp_path):
    with AnalysisStore(tmp_path / "g.db") as store:
        store.save_review("g1", PARAMS, 40, _review("a"))
        store.save_review("g1", PARAMS, 40, _review("b"))
        store.save_review("g1", {**PARAMS, "seed": 9}, 40, _review("other seed"))
        store.save_review("g2", PARAMS, 12, _review("other game"))
        assert store.load_review("g1", PARAMS, 40) == _review("b")
        store.save_review("g1", PARAMS, 44, _review("c"))
        assert store.load_review("g1", PARAMS, 40) is None
        assert store.review_keys("g1") == [(PARAMS, 44), ({**PARAMS, "seed": 9}, 40)]
        assert store.review_keys("g2") == [(PARAMS, 12)]
        assert store.review_keys("g3") == []


def test_latest_review_is_the_newest_and_prefers_the_evaluator_asked_for(tmp_path):
    with AnalysisStore(tmp_path / "g.db") as store:
        assert store.latest_review("g1", 40) is None
        store.save_review("g1", PARAMS, 40, _review("new"))
        store.save_review("g1", {**PARAMS, "evaluator": "ev-old"}, 40, _review("old", "ev-old"))
        assert store.latest_review("g1", 40)["tag"] == "old"  # simply the latest stored
        assert store.latest_review("g1", 40, evaluator="ev-new")["tag"] == "new"
        assert store.latest_review("g1", 40, evaluator="ev-other")["tag"] == "old"
        assert store.latest_review("g1", 39) is None
        assert store.latest_review("g2", 40) is None


def test_reading_makes_no_table_and_the_first_review_makes_only_its_own(tmp_path):
    db = tmp_path / "g.db"
    with SQLiteEventStore(db):
        pass
    before = _names(db)
    with AnalysisStore(db) as store:
        assert store.latest_review("g1", 3) is None and store.review_keys("g1") == []
        assert store.load_review("g1", PARAMS, 3) is None
    assert _names(db) == before
    with AnalysisStore(db) as store:
        store.save_review("g1", PARAMS, 3, _review("a"))
    assert _names(db) - before == {REVIEW_TABLE, f"sqlite_autoindex_{REVIEW_TABLE}_1"}


def test_the_event_store_takes_the_review_table_for_its_own(tmp_path, build):
    db = tmp_path / "g.db"
    events = build.make_game("g1", 12)
    with SQLiteEventStore(db) as store:
        store.append("g1", events[:8], 0)
    with AnalysisStore(db) as analyses:
        analyses.save_review("g1", PARAMS, 8, _review("a"))
        analyses.save_curve("g1", {"playouts": 4}, 8, {"points": []})
    with SQLiteEventStore(db) as store:
        assert store.altered == []
        assert store.append("g1", events[8:], 8) == 12
        assert store.verify("g1") == 12
    with AnalysisStore(db) as analyses:
        assert analyses.load_review("g1", PARAMS, 8) == _review("a")
        assert analyses.load_review("g1", PARAMS, 12) is None


def test_a_review_table_made_otherwise_is_a_finding_and_refuses_writes(tmp_path, build):
    db = tmp_path / "g.db"
    with SQLiteEventStore(db) as store:
        store.append("g1", build.make_game("g1", 6), 0)
    plant(db, f"CREATE TABLE {REVIEW_TABLE} (game TEXT, params TEXT, last_seq INTEGER, "
              "review TEXT, extra TEXT)")
    with SQLiteEventStore(db) as store:
        assert store.altered == [f"the table {REVIEW_TABLE} was changed outside warlog"]
    with AnalysisStore(db) as analyses, pytest.raises(DatabaseAltered) as info:
        analyses.save_review("g1", PARAMS, 6, _review("a"))
    assert str(info.value).endswith("; nothing was written")
    assert "cannot store the review of game 'g1'" in str(info.value)


def test_a_database_with_a_planted_trigger_stores_no_review_not_even_its_table(tmp_path, build):
    db = tmp_path / "g.db"
    with SQLiteEventStore(db) as store:
        store.append("g1", build.make_game("g1", 6), 0)
    plant(db, "CREATE TRIGGER zz_spy AFTER INSERT ON heads BEGIN SELECT 1; END")
    with AnalysisStore(db) as analyses, pytest.raises(DatabaseAltered, match="zz_spy"):
        analyses.save_review("g1", PARAMS, 6, _review("a"))
    assert REVIEW_TABLE not in _names(db)


@pytest.mark.parametrize("stop", [KeyboardInterrupt, RuntimeError])
def test_a_save_stopped_midway_leaves_what_was_stored(tmp_path, monkeypatch, stop):
    """The old length's review is deleted before the new one is written, in one transaction:
    stopped between the two (Ctrl-C, an error), the old one is still there and nothing new."""
    db = tmp_path / "g.db"
    with AnalysisStore(db) as store:
        store.save_review("g1", PARAMS, 40, _review("kept"))

    class Stopping:
        OPT_SORT_KEYS = orjson.OPT_SORT_KEYS
        loads = staticmethod(orjson.loads)
        JSONDecodeError = orjson.JSONDecodeError

        @staticmethod
        def dumps(value, option=None):
            if "tag" in value:  # the review itself, after the DELETE ran
                raise stop("stopped midway")
            return orjson.dumps(value, option=option)

    with AnalysisStore(db) as store:
        monkeypatch.setattr(analysis_store, "orjson", Stopping)
        with pytest.raises(stop, match="stopped midway"):
            store.save_review("g1", PARAMS, 44, _review("never"))
        monkeypatch.undo()
        assert store.review_keys("g1") == [(PARAMS, 40)]
    with AnalysisStore(db) as store:  # as another process sees it
        assert store.load_review("g1", PARAMS, 40) == _review("kept")
        assert store.latest_review("g1", 44) is None


def test_a_review_changed_outside_warlog_is_one_line(tmp_path):
    db = tmp_path / "g.db"
    with AnalysisStore(db) as store:
        store.save_review("g1", PARAMS, 5, _review("a"))
        store.conn.execute(f"UPDATE {REVIEW_TABLE} SET review = '{{broken'")
        store.conn.commit()
        with pytest.raises(StoreError, match="the stored review of game 'g1' is not valid JSON"):
            store.latest_review("g1", 5)
        with pytest.raises(StoreError, match="the stored review of game 'g1' is not valid JSON"):
            store.load_review("g1", PARAMS, 5)
