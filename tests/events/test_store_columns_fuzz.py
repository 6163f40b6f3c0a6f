"""Seeded fuzz of the database's columns outside the hash chain (issue 19): with the triggers
dropped, any repeated column of any row set to a near miss or a hostile value is named by the
store's verify, and never changes what the game list says (it reads the log). A forgery of the
columns alone can hide nothing: 0 accepted of every edit tried."""

from __future__ import annotations

import random
import shutil
import sqlite3
from collections import Counter

import pytest

from warlog.engine.bots import play_out
from warlog.engine.scenario import load_scenario
from warlog.events.model import make_note
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.events.store import StoreError

from test_store_columns import forge

EDITS = 120
EVENT_COLUMNS = ("turn", "side", "phase", "kind")
GAME_COLUMNS = ("rule_system", "period", "scenario_id", "title", "players", "dice", "seed",
                "first_event_chain")
VALUES = ["red", "blue", None, "", "game_ended", "note", "x", 0, 1, 99, -1, 2**62, '{"red":"X"}',
          "manual", "seeded", "in progress"]


def _quote(value) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, int):
        return str(value)
    return "'" + value.replace("'", "''") + "'"


@pytest.fixture(scope="module")
def genuine(tmp_path_factory):
    """A database holding two finished games and one with notes after its end."""
    path = tmp_path_factory.mktemp("columns") / "genuine.db"
    with SQLiteEventStore(path) as store:
        for n, scenario in enumerate(["ancients-river-crossing", "frontier-ulundi"]):
            events = play_out(f"g{n}", load_scenario(scenario), seed=n + 1).events
            events.append(make_note(events, len(events), "well played"))
            store.append(f"g{n}", events, 0)
        listed = store.games()
    return path, listed


@pytest.mark.slow
def test_no_edit_of_a_repeated_column_goes_unseen(tmp_path, genuine):
    path, listed = genuine
    rng = random.Random(1919)
    outcomes: Counter[str] = Counter()
    for n in range(EDITS):
        db = tmp_path / f"f{n}.db"
        shutil.copy(path, db)
        game = rng.choice(listed)
        if rng.random() < 0.6:
            column, value = rng.choice(EVENT_COLUMNS), rng.choice(VALUES)
            seq = rng.choice([1, 2, game.events - 1, game.events, rng.randrange(1, game.events)])
            sql = (f"UPDATE events SET {column} = {_quote(value)} "
                   f"WHERE game = '{game.id}' AND seq = {seq}")
        else:
            column, value = rng.choice(GAME_COLUMNS), rng.choice(VALUES)
            sql = f"UPDATE games SET {column} = {_quote(value)} WHERE id = '{game.id}'"
        try:
            forge(db, sql)
        except sqlite3.IntegrityError:  # a STRICT column of another type, or NOT NULL
            outcomes["refused by the column's type"] += 1
            continue
        with SQLiteEventStore(db) as store:
            assert store.games() == listed, (n, sql)  # the list reads the log, not the columns
            try:
                for info in listed:
                    store.verify(info.id)
            except StoreError as refused:
                assert "changed outside warlog" in str(refused), (n, sql, str(refused))
                assert "\n" not in str(refused)
                outcomes["named by verify"] += 1
                continue
        # verify said OK: the value written must have been the value already there
        with SQLiteEventStore(path) as store:
            column_sql = sql.split(" SET ")[1].split(" = ")[0]
            table = "events" if sql.startswith("UPDATE events") else "games"
            where = sql.split(" WHERE ", 1)[1]
            was = store.conn.execute(f"SELECT {column_sql} FROM {table} WHERE {where}").fetchall()
        assert was == [(value,)], (n, sql, was)
        outcomes["no change (the same value)"] += 1
    print(f"\ncolumn edits: {dict(outcomes)}")
    assert outcomes["named by verify"] >= EDITS * 0.5, outcomes
