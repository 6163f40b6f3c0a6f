"""The database checks itself (issue 30, parts 4 and 5). Objects planted with a plain sqlite3
connection, as a hostile file shared on a club's folder would hold them, are each caught: a write
is refused naming the object before anything is written, reads still read, and the store's
verify fails naming it; an append confirms what it wrote; a query that would run forever is
stopped; a read-only WAL database in a folder that cannot be written is read as immutable.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from warlog.events import sqlite_guard, sqlite_open, sqlite_store
from warlog.events.analysis_store import AnalysisStore
from warlog.events.sqlite_schema import reference
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.events.store import DatabaseAltered, StoreError

from store_helpers import plant, row_counts
from waits import LIMIT

_IGNORE_EVENTS = ("CREATE TRIGGER zz_ignore_events BEFORE INSERT ON events "
                  "BEGIN SELECT RAISE(IGNORE); END")
_IGNORE_HEADS = ("CREATE TRIGGER zz_ignore_heads BEFORE INSERT ON heads "
                 "BEGIN SELECT RAISE(IGNORE); END")
# Guards replaced by no-ops of the same name, and a trigger that deletes another game.
_NO_OP_GUARDS = [
    *(f"DROP TRIGGER {name}" for name in ("events_no_delete", "heads_no_delete",
                                          "games_no_delete")),
    *(f"CREATE TRIGGER {name} BEFORE DELETE ON {table} BEGIN SELECT 1; END"
      for name, table in (("events_no_delete", "events"), ("heads_no_delete", "heads"),
                          ("games_no_delete", "games"))),
    "CREATE TRIGGER zz_bomb AFTER INSERT ON heads BEGIN "
    "DELETE FROM events WHERE game <> NEW.game; DELETE FROM heads WHERE game <> NEW.game; "
    "DELETE FROM games WHERE id <> NEW.game; END",
]
_RECURSIVE = ("CREATE VIEW zz_forever AS WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL "
              "SELECT i + 1 FROM r) SELECT count(*) AS n FROM r")

PLANTED = {
    "RAISE(IGNORE) on events": ([_IGNORE_EVENTS], "has a trigger warlog did not make: "
                                "zz_ignore_events"),
    "RAISE(IGNORE) on heads": ([_IGNORE_HEADS], "has a trigger warlog did not make: "
                               "zz_ignore_heads"),
    "no-op guards and a bomb": (_NO_OP_GUARDS, "the trigger events_no_delete was changed "
                                "outside warlog"),
    "an extra index": (["CREATE INDEX zz_index ON events (kind)"],
                       "has an index warlog did not make: zz_index"),
    "an extra view": (["CREATE VIEW zz_view AS SELECT game FROM events"],
                      "has a view warlog did not make: zz_view"),
    "a table replaced by a view": (
        ["ALTER TABLE games RENAME TO zz_games_table",
         "CREATE VIEW games AS SELECT * FROM zz_games_table"],
        "the table games was replaced by a view outside warlog"),
    "a changed index": (["DROP INDEX events_first",
                         "CREATE INDEX events_first ON events (game) WHERE seq = 2"],
                        "the index events_first was changed outside warlog"),
}


@pytest.fixture
def two_games(db_path, build):
    """A database with games g1 (8 events) and g2 (5), written by warlog."""
    with SQLiteEventStore(db_path) as s:
        s.append("g1", build.make_game("g1", 8), 0)
        s.append("g2", build.make_game("g2", 5), 0)
    return db_path


@pytest.mark.parametrize("case", sorted(PLANTED))
def test_a_planted_object_refuses_every_write_and_fails_verify(case, two_games, build):
    statements, said = PLANTED[case]
    plant(two_games, *statements)
    before, counts = build.dump(two_games), row_counts(two_games)
    with SQLiteEventStore(two_games) as store:
        assert any(said in line for line in store.altered), store.altered
        for call in (lambda: store.append("g1", build.make_game("g1", 9)[8:], 8),
                     lambda: store.append("g3", build.make_game("g3", 4), 0)):
            with pytest.raises(DatabaseAltered) as info:
                call()
            message = str(info.value)
            assert said in message and message.endswith("; nothing was written")
            assert message.startswith(f"{two_games}: cannot append to game")
            assert "\n" not in message
        with pytest.raises(DatabaseAltered, match="the database was altered outside warlog"):
            store.verify("g1")
        if case != "a table replaced by a view":
            assert store.read("g2") == build.make_game("g2", 5)  # reading still reads
    with AnalysisStore(two_games) as analyses, pytest.raises(DatabaseAltered, match=said):
        analyses.save_curve("g1", {"playouts": 1}, 8, {"p": [0.5]})
    assert build.dump(two_games) == before and row_counts(two_games) == counts


def test_findings_are_sorted_one_line_each_and_name_odd_names_safely(two_games):
    plant(two_games, "CREATE VIEW \"zz\x1b[31mred\" AS SELECT 1", "CREATE VIEW aa AS SELECT 1")
    with SQLiteEventStore(two_games) as store:
        assert store.altered == [
            "this database has a view warlog did not make: aa",
            "this database has a view warlog did not make: 'zz\\x1b[31mred'",
        ]


def test_a_clean_database_and_what_warlog_itself_adds_are_no_finding(two_games, build):
    with AnalysisStore(two_games) as analyses:
        analyses.save_curve("g1", {"playouts": 1}, 8, {"p": [0.5]})
    plant(two_games, "ANALYZE",  # SQLite's statistics, and the index an older warlog made
          "CREATE INDEX events_game_ended ON events (game, seq) WHERE kind = 'game_ended'")
    with SQLiteEventStore(two_games) as store:
        assert store.altered == []
        assert store.append("g1", build.make_game("g1", 9)[8:], 8) == 9
        assert store.verify("g1") == 9


def test_the_expected_schema_is_what_opening_runs(db_path):
    """One source: a new file holds exactly what SCHEMA's statements make."""
    SQLiteEventStore(db_path).close()
    conn = sqlite3.connect(db_path)
    try:
        stored = sorted(conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))
    finally:
        conn.close()
    assert stored == sorted(reference()[0])


def test_a_trigger_planted_after_the_open_is_caught_by_the_append(store, db_path, build):
    store.append("g1", build.make_game("g1", 4), 0)
    plant(db_path, _IGNORE_EVENTS)  # another process, while the store is open
    counts = row_counts(db_path)
    with pytest.raises(DatabaseAltered, match="zz_ignore_events; nothing was written"):
        store.append("g1", build.make_game("g1", 6)[4:], 4)
    assert row_counts(db_path) == counts


_NOT_STORED = "the database did not store the write (a trigger changed it?); nothing was written"


@pytest.mark.parametrize("statements, said", [
    # the rows vanish, and the heads guard refuses a head past the last stored event
    ([_IGNORE_EVENTS], "heads are append-only"),
    ([_IGNORE_HEADS], _NOT_STORED),
    (_NO_OP_GUARDS, _NOT_STORED),
    ([_IGNORE_EVENTS.replace("zz_ignore_events", "zz_one").replace(
        "BEGIN", "WHEN NEW.seq = 10 BEGIN"), "DROP TRIGGER heads_follow_events",
      "CREATE TRIGGER heads_follow_events BEFORE INSERT ON heads BEGIN SELECT 1; END"],
     _NOT_STORED),
], ids=["ignore events", "ignore heads", "bomb", "one row ignored, heads guard gone"])
def test_every_append_confirms_what_it_wrote(statements, said, two_games, build, monkeypatch):
    """Even with the schema check bypassed, a write a trigger changed is rolled back."""
    plant(two_games, *statements)
    monkeypatch.setattr(sqlite_open, "findings", lambda rows, missing=True: [])
    monkeypatch.setattr(sqlite_open, "altered_rows", lambda rows: False)
    monkeypatch.setattr(sqlite_store, "recheck", lambda conn, path, what, found, version:
                        (found, version))
    counts, before = row_counts(two_games), build.dump(two_games)
    with SQLiteEventStore(two_games) as store:
        assert store.altered == []
        with pytest.raises(StoreError) as info:
            store.append("g1", build.make_game("g1", 10)[8:], 8)
    assert "cannot append to game 'g1': " in str(info.value) and said in str(info.value)
    assert row_counts(two_games) == counts and build.dump(two_games) == before


def test_a_query_that_would_run_forever_is_stopped(two_games):
    plant(two_games, "ALTER TABLE games RENAME TO zz_games_table",
          "CREATE VIEW games AS WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) "
          "SELECT CAST(i AS TEXT) AS id FROM r", _RECURSIVE)
    said = (f"{two_games}: a query on this database ran past warlog's limit: it was stopped; "
            "the database may have been altered")
    with SQLiteEventStore(two_games) as store:
        with pytest.raises(StoreError) as info:
            store.read("nobody")  # a game with no rows asks the games view
        assert str(info.value) == said
        with pytest.raises(DatabaseAltered):
            store.verify("g1")
        with pytest.raises(StoreError, match="ran past warlog's limit"):
            sqlite_guard.bounded(lambda self: self.conn.execute(
                "SELECT n FROM zz_forever").fetchall())(store)


def test_the_step_limit_lets_the_biggest_game_through():
    """STEP_LIMIT's reason (250,000 events read and verified take at most 2.5 million steps a
    statement, measured) is kept: the limit is well above, and a runaway query is stopped."""
    assert sqlite_guard.STEP_LIMIT >= 20 * 2_500_000
    conn = sqlite3.connect(":memory:", factory=sqlite_guard.Bounded)
    with pytest.raises(sqlite3.OperationalError) as info:
        conn.execute("WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) "
                     "SELECT count(*) FROM r").fetchall()
    assert sqlite_guard.ran_past(info.value) and conn.stopped
    assert conn.execute("SELECT 1").fetchone() == (1,)  # the next statement counts afresh


# ---- a read-only WAL database in a folder that cannot be written -----------------------------


def test_a_wal_folder_sqlite_calls_read_only_is_opened_immutable(two_games, monkeypatch, build):
    """SQLite 3.40 answers SQLITE_READONLY_DIRECTORY (1544) there, even with ?mode=ro (root
    cannot make such a folder: the first opens are made to fail that way)."""
    connect = sqlite3.connect
    tried = []

    class Refused(sqlite_guard.Bounded):
        def execute(self, *args, **kwargs):
            exc = sqlite3.OperationalError("attempt to write a readonly database")
            exc.sqlite_errorcode = sqlite_open.SQLITE_READONLY_DIRECTORY
            raise exc

    def first_fails(target, *args, **kwargs):
        tried.append(str(target))
        if "immutable=1" in str(target):
            return connect(target, *args, **kwargs)
        return connect(target, *args, **{**kwargs, "factory": Refused})

    monkeypatch.setattr(sqlite_open.sqlite3, "connect", first_fails)
    with SQLiteEventStore(two_games) as store:
        assert store.readonly and store.immutable
        assert store.note == ("opened read-only as immutable: warlog assumes nobody writes it "
                              "meanwhile")
        assert store.read("g2") == build.make_game("g2", 5) and store.verify("g1") == 8
        with pytest.raises(StoreError, match="nothing was written"):
            store.append("g2", build.make_game("g2", 6)[5:], 5)
    assert tried[-1].endswith("?immutable=1") and len(tried) == 2


_AS_NOBODY = textwrap.dedent("""
    import sys
    from warlog.events.sqlite_store import SQLiteEventStore
    with SQLiteEventStore(sys.argv[1]) as store:
        print(store.immutable, store.note, [g.id for g in store.games()], store.verify("g1"))
""")


def _nobody() -> list[str] | None:
    """A command prefix that runs as the unprivileged user ``nobody``, if there is one."""
    try:
        import pwd

        pwd.getpwnam("nobody")
    except (ImportError, KeyError):
        return None
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        return None
    prefix = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
    # The checkout must be readable by that user (a clone inside `mktemp -d` is not: 0700).
    probe = subprocess.run([*prefix, sys.executable, "-c", "import warlog.events.sqlite_store"],
                           capture_output=True, timeout=LIMIT, cwd="/")
    return prefix if probe.returncode == 0 else None


@pytest.mark.skipif(_nobody() is None, reason="no unprivileged user to run as who can read "
                    "this checkout (needs root, setpriv, a 'nobody' user and a checkout others "
                    "may read); test_a_wal_folder_sqlite_calls_read_only_is_opened_immutable "
                    "covers the same fallback by SQLite's own error code")
def test_as_an_unprivileged_user_a_wal_database_in_a_read_only_folder_reads(two_games):
    """A real folder that cannot be written, as ``nobody`` (root ignores permissions)."""
    folder = Path(tempfile.mkdtemp(prefix="warlog-ro-"))
    try:
        shutil.copy(two_games, folder / "club.db")  # WAL mode, checkpointed, no -wal or -shm
        folder.chmod(0o755)
        (folder / "club.db").chmod(0o644)
        done = subprocess.run([*_nobody(), sys.executable, "-c", _AS_NOBODY,
                               str(folder / "club.db")], capture_output=True, text=True,
                              timeout=LIMIT, cwd="/")
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == ("True opened read-only as immutable: warlog assumes "
                                       "nobody writes it meanwhile ['g1', 'g2'] 8")
        assert sorted(os.listdir(folder)) == ["club.db"]
    finally:
        shutil.rmtree(folder)


# ---- the seat links' table (events/seat_links.py) is checked as the others are --------------

_LINKS_PLANTED = {
    "a no-op guard": (["DROP TRIGGER seat_links_no_update",
                       "CREATE TRIGGER seat_links_no_update BEFORE UPDATE ON seat_links "
                       "BEGIN SELECT 1; END"],
                      "the trigger seat_links_no_update was changed outside warlog"),
    "a column added": (["ALTER TABLE seat_links ADD COLUMN token TEXT"],
                       "the table seat_links was changed outside warlog"),
    "a trigger that copies each hash": (
        ["CREATE TABLE zz_stolen (hash TEXT)",
         "CREATE TRIGGER zz_copy AFTER INSERT ON seat_links BEGIN "
         "INSERT INTO zz_stolen VALUES (NEW.token_sha256); END"],
        "has a trigger warlog did not make: zz_copy"),
    "the table replaced by a view": (
        ["ALTER TABLE seat_links RENAME TO zz_links",
         "CREATE VIEW seat_links AS SELECT * FROM zz_links"],
        "the table seat_links was replaced by a view outside warlog"),
}


@pytest.mark.parametrize("case", sorted(_LINKS_PLANTED))
def test_an_altered_seat_links_table_refuses_every_write(case, two_games, build):
    from warlog.events import seat_links

    statements, said = _LINKS_PLANTED[case]
    plant(two_games, *statements)
    before = build.dump(two_games)
    with SQLiteEventStore(two_games) as store:
        assert any(said in line for line in store.altered), store.altered
        with pytest.raises(DatabaseAltered, match="cannot append to game 'g1'"):
            store.append("g1", build.make_game("g1", 9)[8:], 8)
        with pytest.raises(DatabaseAltered) as info:
            seat_links.issue(store, "g1", ["red", "blue"])
        assert said in str(info.value)
        assert str(info.value).startswith(f"{two_games}: cannot issue seat links for game 'g1'")
        assert str(info.value).endswith("; nothing was written")
        with pytest.raises(DatabaseAltered):
            store.verify("g1")
    assert build.dump(two_games) == before


@pytest.mark.parametrize("statements", [
    ["DROP TABLE seat_links"],
    ["DROP TRIGGER seat_links_no_delete", "DROP TRIGGER seat_links_no_replace"],
], ids=["table", "guards"])
def test_seat_links_missing_are_made_again_as_for_a_database_made_before_them(statements,
                                                                              two_games):
    """Missing is not altered (an older warlog's database lacks them too): the next writable
    open makes them again, and nothing is left planted. A dropped table loses its links: whoever
    can write the file is trusted (events/sqlite_schema.py says why)."""
    plant(two_games, *statements)
    with SQLiteEventStore(two_games) as store:
        assert store.altered == [] and not store.readonly
    conn = sqlite3.connect(two_games)
    try:
        stored = sorted(conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))
    finally:
        conn.close()
    assert stored == sorted(reference()[0])
    assert {"seat_links", "seat_links_no_update", "seat_links_no_delete",
            "seat_links_no_replace"} <= {row[1] for row in stored}
