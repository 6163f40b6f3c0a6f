"""The store's guards hold (issue 9, part 4), on real SQLite files against plain ``sqlite3``
connections: no REPLACE, upsert or hole gets past the append-only rule, and appends of any size
are whole; a game cut short, put back from an older copy, run past its recorded end or holed is
reported by name (heads record every append); an old database gets its heads and guards on first
open, and an open that stays busy says so and changes nothing.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from warlog.cli import app
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.events.store import ConcurrencyError, GameDamaged, StoreError

from store_helpers import heads, make_old_format, raw, renamed


def schema(path: Path) -> dict[str, str]:
    conn = sqlite3.connect(path)
    try:
        return dict(conn.execute("SELECT name, sql FROM sqlite_master").fetchall())
    finally:
        conn.close()


# ---- 1. REPLACE cannot get past the append-only rule -----------------------------------------

_FIELDS = "game, seq, turn, side, phase, kind, body, chain"
_REPLACES = {
    "REPLACE INTO events, same row": f"REPLACE INTO events SELECT {_FIELDS} FROM events "
    "WHERE game = 'g1' AND seq = 3",
    "INSERT OR REPLACE INTO events, new body": "INSERT OR REPLACE INTO events (game, seq, turn, "
    "kind, body, chain) VALUES ('g1', 5, 1, 'note', '{}', 'forged')",
    "INSERT OR REPLACE INTO events, every row": f"INSERT OR REPLACE INTO events SELECT {_FIELDS} "
    "FROM events",
    "REPLACE INTO games, same row": "REPLACE INTO games SELECT * FROM games",
    "INSERT OR REPLACE INTO games, taken id": "INSERT OR REPLACE INTO games (id, rule_system, "
    "period, players, first_event_chain) VALUES ('g1', 'x', 'y', '{}', 'z')",
    "REPLACE INTO games, taken rowid": "REPLACE INTO games (rowid, id, rule_system, period, "
    "players, first_event_chain) SELECT rowid, 'g9', 'x', 'y', '{}', 'z' FROM games",
    "REPLACE INTO heads": "REPLACE INTO heads SELECT * FROM heads",
    "upsert on games": "INSERT INTO games (id, rule_system, period, players, first_event_chain) "
    "VALUES ('g1', 'x', 'y', '{}', 'z') ON CONFLICT (id) DO UPDATE SET title = 'rewritten'",
    "UPDATE OR REPLACE events": "UPDATE OR REPLACE events SET seq = 2 WHERE seq = 3",
    "INSERT OR IGNORE a taken seq": "INSERT OR IGNORE INTO events (game, seq, turn, kind, "
    "body, chain) VALUES ('g1', 5, 1, 'note', '{}', 'forged')",
    "a hole in the seqs": "INSERT INTO events (game, seq, turn, kind, body, chain) "
    "VALUES ('g1', 9, 1, 'note', '{}', 'forged')",
    "a head that is not the last event": "INSERT INTO heads VALUES ('g1', 6, 'forged')",
}


@pytest.mark.parametrize("case", sorted(_REPLACES))
def test_plain_sqlite3_cannot_replace_rows(case, store, db_path, build):
    store.append("g1", build.make_game("g1", 5), 0)
    store.append("g2", build.make_game("g2", 3), 0)
    before = build.dump(db_path)
    conn = raw(db_path)
    try:
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute(_REPLACES[case])
        conn.commit()
    finally:
        conn.close()
    assert build.dump(db_path) == before
    assert store.check("g1") == store.verify("g1") == 5


def test_the_stores_own_connection_cannot_replace_either(store, db_path, build):
    store.append("g1", build.make_game("g1", 5), 0)
    before = build.dump(db_path)
    for case in ("REPLACE INTO events, same row", "REPLACE INTO games, same row"):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            store.db.execute(_REPLACES[case])
        store.db.rollback()
    assert build.dump(db_path) == before


@pytest.mark.parametrize("sizes", [[1, 255, 256, 257, 300], [600]])
def test_appends_of_any_size_are_whole(sizes, store, db_path, build):
    """Rows go in a few hundred to a statement: every size reads back, and a row refused in a
    later statement leaves nothing of its batch behind."""
    events = build.make_game("g1", sum(sizes) + 300)
    done = 0
    for size in sizes:
        assert store.append("g1", events[done : done + size], done) == done + size
        done += size
    assert store.read("g1") == events[:done]
    assert store.check("g1") == store.verify("g1") == done
    before = build.dump(db_path)
    bad = [*events[done : done + 299], {**events[done + 299], "turn": "three"}]
    with pytest.raises(StoreError, match="cannot append"):
        store.append("g1", bad, done)
    assert build.dump(db_path) == before


# ---- 2. a game cut short is reported ---------------------------------------------------------


def _forge(path: Path, *sql: str) -> None:
    """What a forger (or a careless repair) does: drop the guards, then change rows."""
    conn = raw(path)
    for trigger in ("events_no_delete", "events_no_replace"):
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    for statement in sql:
        conn.execute(statement)
    conn.commit()
    conn.close()


def test_heads_record_every_append_in_its_transaction(store, db_path, build):
    events = build.make_game("g1", 12)
    store.append("g1", events[:5], 0)
    store.append("g1", events[5:6], 5)
    store.append("g1", events[6:], 6)
    assert heads(db_path, "g1") == [5, 6, 12]
    assert store.check("g1") == 12
    with pytest.raises(ConcurrencyError):
        store.append("g1", events[6:], 6)
    assert heads(db_path, "g1") == [5, 6, 12]  # a refused append records nothing


def test_a_tail_deleted_behind_the_stores_back_is_reported(store, db_path, build):
    events = build.make_game("g1", 10)
    store.append("g1", events[:4], 0)
    store.append("g1", events[4:], 4)
    store.append("g2", build.make_game("g2", 3), 0)
    _forge(db_path, "DELETE FROM events WHERE game = 'g1' AND seq > 7")
    message = ("game 'g1' is cut short: 10 events were recorded, but the last one stored is "
               "seq 7 — events were deleted outside warlog, or restored from an older copy")
    for call in (lambda: store.check("g1"), lambda: store.read("g1"),
                 lambda: store.read("g1", upto=9), lambda: store.verify("g1")):
        with pytest.raises(GameDamaged) as info:
            call()
        assert str(info.value) == message
        assert (info.value.recorded, info.value.stored) == (10, 7)
    assert store.read("g1", upto=7) == events[:7]  # what is there is still readable by seq
    before = build.dump(db_path)
    with pytest.raises(GameDamaged, match="cut short"):
        store.append("g1", events[7:], 7)  # the writer saw 7: still nothing is written on top
    assert build.dump(db_path) == before
    assert store.check("g2") == 3  # the other game is fine


def test_events_put_back_from_an_older_copy_are_reported(store, db_path, tmp_path, build):
    events = build.make_game("g1", 9)
    store.append("g1", events[:6], 0)
    backup = tmp_path / "backup.db"
    with sqlite3.connect(backup) as copy:
        store.db.conn.backup(copy)
    store.append("g1", events[6:], 6)
    _forge(db_path, f"ATTACH '{backup}' AS old", "DELETE FROM events WHERE game = 'g1'",
           "INSERT INTO events SELECT * FROM old.events WHERE game = 'g1'")
    with SQLiteEventStore(db_path) as again, pytest.raises(
        GameDamaged, match="'g1' is cut short: 9 events were recorded, but the last one stored "
        "is seq 6"
    ):
        again.check("g1")


def test_events_added_or_rewritten_at_the_end_are_reported(store, db_path, build):
    store.append("g1", build.make_game("g1", 6), 0)
    conn = raw(db_path)  # the next seq passes the triggers: SQL cannot recompute the chain
    conn.execute("INSERT INTO events (game, seq, turn, kind, body, chain) "
                 "VALUES ('g1', 7, 1, 'note', '{}', 'forged')")
    conn.commit()
    conn.close()
    with pytest.raises(GameDamaged, match="'g1' runs past its recorded end: 6 events were "
                       "recorded, but the last one stored is seq 7"):
        store.check("g1")
    with pytest.raises(GameDamaged, match="runs past"):
        store.read("g1")

    store.append("g2", build.make_game("g2", 6), 0)
    last = build.make_game("g2", 6)[-1]
    _forge(db_path, "DELETE FROM events WHERE game = 'g2' AND seq = 6",
           "INSERT INTO events (game, seq, turn, kind, body, chain) VALUES "
           f"('g2', 6, 1, '{last['kind']}', '{{}}', 'forged')")
    with pytest.raises(GameDamaged, match="'g2': 6 events were recorded and 6 are stored, but "
                       "the last one stored is not the one recorded"):
        store.check("g2")


def test_a_hole_is_reported_by_read_and_verify(store, db_path, build):
    store.append("g1", build.make_game("g1", 8), 0)
    _forge(db_path, "DELETE FROM events WHERE game = 'g1' AND seq = 4")
    assert store.check("g1") == 8  # check looks at the end only
    with pytest.raises(GameDamaged, match="'g1' has a hole: 8 events were recorded and the last "
                       "one stored is seq 8, but only 7 are stored"):
        store.read("g1")
    with pytest.raises(StoreError, match="game 'g1', event seq 4 is missing"):
        store.verify("g1")


def test_warlog_verify_names_the_game_and_both_lengths_on_one_line(tmp_path, real_games):
    db = tmp_path / "v.db"
    events = renamed(real_games[0], "battle")
    with SQLiteEventStore(db) as store:
        store.append("battle", events, 0)
    runner = CliRunner()
    ok = runner.invoke(app, ["verify", "battle", "--db", str(db)])
    assert ok.exit_code == 0 and "OK" in ok.output
    n = len(events)
    _forge(db, f"DELETE FROM events WHERE game = 'battle' AND seq > {n - 40}")
    result = runner.invoke(app, ["verify", "battle", "--db", str(db)])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"FAIL game 'battle' is cut short: {n} events were recorded, but the last one stored is "
        f"seq {n - 40} — events were deleted outside warlog, or restored from an older copy"
    ]


def test_an_old_database_gets_its_heads_and_guards_on_first_open(tmp_path, build):
    fresh, old = tmp_path / "fresh.db", tmp_path / "old.db"
    for path in (fresh, old):
        with SQLiteEventStore(path) as s:
            s.append("g1", build.make_game("g1", 7), 0)
            s.append("g2", build.make_game("g2", 4), 0)
            s.append("g2", build.make_game("g2", 9)[4:], 4)
    make_old_format(old)
    conn = raw(old)  # before the migration, plain sqlite3 could replace a row
    conn.execute(_REPLACES["REPLACE INTO games, same row"])
    conn.rollback()
    conn.close()
    with SQLiteEventStore(old) as s:
        assert (s.check("g1"), s.check("g2")) == (7, 9)
    assert heads(old, "g1") == [7] and heads(old, "g2") == [9]  # computed once, from the ends
    assert schema(old) == schema(fresh)
    migrated = build.dump(old)
    with SQLiteEventStore(old) as s:  # a second open changes nothing
        assert s.read("g2") == build.make_game("g2", 9)
    assert build.dump(old) == migrated
    conn = raw(old)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute(_REPLACES["REPLACE INTO games, same row"])
    conn.close()


def test_an_open_that_stays_busy_says_so_and_changes_nothing(tmp_path, build):
    path = tmp_path / "old.db"
    with SQLiteEventStore(path) as s:
        s.append("g1", build.make_game("g1", 3), 0)
    make_old_format(path)  # so the next open must write (and so wait for the lock)
    before = build.dump(path)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StoreError, match="another process kept it busy for 0.2 s; try again"):
            SQLiteEventStore(path, timeout=0.2)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert build.dump(path) == before
    with SQLiteEventStore(path) as s:
        assert s.check("g1") == 3


def test_an_old_database_holding_a_planted_object_is_read_but_never_completed(tmp_path, build):
    """Issue 30: opening completes an older layout only if everything it holds is warlog's own;
    otherwise nothing is written, the findings name the planted object and the missing ones,
    and the games are still read (heads stood in for, as on a read-only file)."""
    path = tmp_path / "old.db"
    with SQLiteEventStore(path) as s:
        s.append("g1", build.make_game("g1", 6), 0)
    make_old_format(path)
    conn = raw(path)
    conn.execute("CREATE VIEW zz_view AS SELECT 1")
    conn.commit()
    conn.close()
    before = build.dump(path)
    with SQLiteEventStore(path) as s:
        assert s.altered == [
            "this database has a view warlog did not make: zz_view",
            *(f"the {kind} {name} that warlog makes is missing" for kind, name in [
                ("trigger", "events_no_replace"), ("trigger", "games_no_replace"),
                ("table", "heads"), ("trigger", "heads_follow_events"),
                ("trigger", "heads_no_delete"), ("trigger", "heads_no_update")]),
        ]
        assert s.read("g1") == build.make_game("g1", 6) and s.check("g1") == 6
        with pytest.raises(StoreError, match=r"zz_view \(and 6 more\); nothing was written"):
            s.append("g1", build.make_game("g1", 7)[6:], 6)
    assert build.dump(path) == before
