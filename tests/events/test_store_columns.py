"""The database's columns outside the hash chain (issue 19): every column that repeats a fact of
the log is derived from the log when read, or checked against it by verify; a games row cannot
be made without its game; a database that cannot be written still reads; a write SQLite refuses
says why.

Each test names what happened before (found by an outside harness, reproduced on the code of
the time): the game list read the games table and the kind column, so a forged players, title
or kind showed as fact and verify still said OK; a games row on its own took its id; a
read-only file could not even be listed; a full disk read "cannot read the database".
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from warlog.events import sqlite_open
from warlog.events.model import make_note
from warlog.events.replay_file import encode_replay
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.events.store import PhantomGame, StoreError

from hostile_helpers import one_error_line, run
from store_helpers import make_old_format, raw, renamed
from waits import LIMIT

CHANGED = "the database was changed outside warlog"


def forge(path: Path, *sql: str) -> None:
    """What a forger does: drop every trigger, then change rows (the next writable open puts the
    triggers back)."""
    conn = raw(path)
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"):
        conn.execute(f"DROP TRIGGER {name}")
    for statement in sql:
        conn.execute(statement)
    conn.commit()
    conn.close()


def listing(path: Path) -> list:
    with SQLiteEventStore(path) as store:
        return store.games()


def file_state(path: Path) -> tuple[str, str]:
    """The database file's bytes (hashed) and every row: what an open that writes nothing
    leaves as it found."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = "\n".join(conn.iterdump())
    finally:
        conn.close()
    return hashlib.sha256(path.read_bytes()).hexdigest(), rows


@pytest.fixture
def three(db_path, build):
    """g1 ended (blue won) and then got a note, g2 in progress, g3 ended: a database of three."""
    g1 = build.make_game("g1", 9, finished=True)
    with SQLiteEventStore(db_path) as store:
        store.append("g1", g1, 0)
        store.append("g1", [make_note(g1, 4, "a fine roll")], 9)
        store.append("g2", build.make_game("g2", 6), 0)
        store.append("g3", build.make_game("g3", 5, finished=True), 0)
        assert [(g.id, g.events, g.ended, g.winner) for g in store.games()] == [
            ("g1", 10, True, "blue"), ("g2", 6, False, None), ("g3", 5, True, "blue")]
    return db_path


# ---- 1. the games table repeats the first event: listed from the log, checked by verify -------

_GAMES_FORGERIES = {
    "players": ("""'{"red":"Mallory","blue":"Bob"}'""",
                """'{"red":"Mallory","blue":"Bob"}'""", """'{"blue":"Bob","red":"Ann"}'"""),
    "title": ("'The Forged Battle'", "'The Forged Battle'", "'Pitched battle'"),
    "scenario_id": ("'other'", "'other'", "'s1'"),
    "rule_system": ("'portable'", "'portable'", "'ohw'"),
    "period": ("'napoleonic'", "'napoleonic'", "'ancients'"),
    "dice": ("'manual'", "'manual'", "'seeded'"),
    "seed": ("99", "99", "7"),
    "first_event_chain": ("'0000'", "'0000'", None),
}


@pytest.mark.parametrize("column", sorted(_GAMES_FORGERIES))
def test_a_forged_games_column_changes_nothing_listed_and_verify_names_it(column, three):
    """Before: `warlog games` showed the forged players, title, scenario (verify said OK)."""
    before = listing(three)
    value, said, truth = _GAMES_FORGERIES[column]
    forge(three, f"UPDATE games SET {column} = {value} WHERE id = 'g2'")
    with SQLiteEventStore(three) as store:
        assert store.games() == before
        if truth is None:  # a long value is cut to 60 characters in the message
            truth = repr(store.chains("g2")[0])[:57] + "..."
        with pytest.raises(StoreError) as info:
            store.verify("g2")
        assert str(info.value) == (f"game 'g2': column {column} of the games table says {said} "
                                   f"but the game's first event says {truth} — {CHANGED}")
        assert store.verify("g1") == 10 and store.verify("g3") == 5  # the others are fine


def test_a_deleted_games_row_still_lists_its_game_and_verify_says_the_row_is_missing(three):
    """Before: the game vanished from the list while `warlog verify` still said OK."""
    before = listing(three)
    forge(three, "DELETE FROM games WHERE id = 'g3'")
    with SQLiteEventStore(three) as store:
        assert store.games() == before
        assert store.has_game("g3") and store.game_ids() == ["g1", "g2", "g3"]
        assert store.check("g3") == 5 and len(store.read("g3")) == 5
        with pytest.raises(StoreError) as info:
            store.verify("g3")
        assert str(info.value) == (f"game 'g3': its row in the games table is missing — "
                                   f"{CHANGED}")


# ---- 2. the events columns repeat the body: listed from the body, checked by verify ----------

_EVENT_FORGERIES = {
    "game_ended's kind made a note": (
        "UPDATE events SET kind = 'note' WHERE game = 'g3' AND seq = 5", "g3",
        "game 'g3', event seq 5: column kind says 'note' but the event is a game_ended"),
    "a dice roll's kind made game_ended": (
        "UPDATE events SET kind = 'game_ended' WHERE game = 'g2' AND seq = 6", "g2",
        "game 'g2', event seq 6: column kind says 'game_ended' but the event is a dice_rolled"),
    "the note after the end made a game_ended": (
        "UPDATE events SET kind = 'game_ended' WHERE game = 'g1' AND seq = 10", "g1",
        "game 'g1', event seq 10: column kind says 'game_ended' but the event is a note"),
    "turn": ("UPDATE events SET turn = 7 WHERE game = 'g2' AND seq = 3", "g2",
             "game 'g2', event seq 3: column turn says 7 but the event says 1"),
    "side": ("UPDATE events SET side = 'blue' WHERE game = 'g2' AND seq = 2", "g2",
             "game 'g2', event seq 2: column side says 'blue' but the event says 'red'"),
    "phase": ("UPDATE events SET phase = NULL WHERE game = 'g2' AND seq = 4", "g2",
              "game 'g2', event seq 4: column phase says None but the event says 'shooting'"),
}


@pytest.mark.parametrize("case", sorted(_EVENT_FORGERIES))
def test_a_forged_events_column_changes_nothing_listed_and_verify_names_it(case, three):
    """Before: a game_ended whose kind column said note was listed "in progress" (and a kind
    column made game_ended listed a game as ended), and verify said OK: it hashed bodies only."""
    before = listing(three)
    sql, game, message = _EVENT_FORGERIES[case]
    forge(three, sql)
    with SQLiteEventStore(three) as store:
        assert store.games() == before
        with pytest.raises(StoreError) as info:
            store.verify(game)
        assert str(info.value) == f"{message} — {CHANGED}"


def test_rows_moved_to_another_game_id_are_named_by_verify(three):
    """The key columns repeat the body too: rows moved under another id keep their chain (it
    starts afresh for each game), so only the body's own game says so."""
    forge(three, "UPDATE events SET game = 'g9' WHERE game = 'g2'",
          "UPDATE heads SET game = 'g9' WHERE game = 'g2'")
    with SQLiteEventStore(three) as store, pytest.raises(StoreError) as info:
        store.verify("g9")
    assert str(info.value) == (f"game 'g9', event seq 1: column game says 'g9' but the event "
                               f"says 'g2' — {CHANGED}")


def test_the_cli_lists_the_log_and_verify_fails_on_the_forged_columns(tmp_path, monkeypatch):
    """The harness's case end to end: triggers dropped, players and the game_ended row's kind
    edited: `warlog games` showed the forgery and "in progress", `warlog verify` said OK."""
    monkeypatch.delenv("WARLOG_DB", raising=False)
    db = tmp_path / "c.db"
    run("simulate", "ancients-river-crossing", "--seed", "7", "--db", str(db))
    game = "ancients-river-crossing-aggressive-cautious-s7"
    before = run("games", "--json", "--db", str(db)).output
    assert '"ended": true' in before
    forge(db, """UPDATE games SET players = '{"red":"Mallory","blue":"Eve"}'""",
          "UPDATE events SET kind = 'note' WHERE kind = 'game_ended'")
    assert run("games", "--json", "--db", str(db)).output == before
    result = run("verify", game, "--db", str(db), ok=False)
    assert "column kind says 'note' but the event is a game_ended" in result.output
    assert len(result.output.strip().splitlines()) == 1


# ---- 3. a games row needs its game -------------------------------------------------------------

_PHANTOM = ("INSERT INTO games (id, rule_system, period, scenario_id, title, players, dice, "
            "first_event_chain) VALUES ('{game}', 'ohw', 'ancients', 's1', 'Pitched battle', "
            "'{{}}', 'seeded', '{chain}')")


@pytest.mark.parametrize("chain", ["forged", "g1's first chain"])
def test_a_games_row_without_its_game_is_refused_by_the_triggers(chain, three, build):
    """Before: a plain INSERT INTO games made a 0-event game that took the id."""
    if chain != "forged":
        with SQLiteEventStore(three) as store:
            chain = store.chains("g1")[0]
    before = build.dump(three)
    conn = raw(three)
    try:
        with pytest.raises(sqlite3.IntegrityError, match="written with its first event"):
            conn.execute(_PHANTOM.format(game="real", chain=chain))
    finally:
        conn.close()
    assert build.dump(three) == before


def test_a_phantom_row_is_no_game_and_the_real_game_imports_or_says_why(tmp_path, real_games,
                                                                        monkeypatch):
    """Before: the phantom was listed with 0 events, and importing the real replay was refused
    as "already in the database". Now it is not listed or found, and the import names it."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("WARLOG_DB", raising=False)
    db, replay = tmp_path / "p.db", tmp_path / "real.jsonl"
    events = renamed(real_games[0], "real")
    replay.write_bytes(encode_replay(events))
    with SQLiteEventStore(db) as store:
        store.append("other", renamed(real_games[1], "other"), 0)
    forge(db, _PHANTOM.format(game="real", chain="forged"))
    with SQLiteEventStore(db) as store:
        assert [g.id for g in store.games()] == ["other"] and store.game_ids() == ["other"]
        assert not store.has_game("real")
        for call in (store.verify, store.read, store.check):
            with pytest.raises(PhantomGame, match="holds a games row for it but none of its "
                               "events — it was changed outside warlog"):
                call("real")
    before = file_state(db)[1]
    line = one_error_line(run("import", str(replay), "--db", str(db), ok=False),
                          "cannot add game 'real': the database holds a games row for it but "
                          "none of its events — it was changed outside warlog; nothing was "
                          "written")
    assert "already in the database" not in line
    assert file_state(db)[1] == before


def test_a_game_whose_events_were_removed_imports_again_over_its_own_row(tmp_path, real_games,
                                                                         monkeypatch):
    """A games row left behind is exactly the row the game's import would write: it is kept."""
    monkeypatch.delenv("WARLOG_DB", raising=False)
    db, replay = tmp_path / "r.db", tmp_path / "real.jsonl"
    events = renamed(real_games[0], "real")
    replay.write_bytes(encode_replay(events))
    with SQLiteEventStore(db) as store:
        store.append("real", events, 0)
    forge(db, "DELETE FROM events WHERE game = 'real'", "DELETE FROM heads WHERE game = 'real'")
    assert listing(db) == []
    run("import", str(replay), "--db", str(db))
    with SQLiteEventStore(db) as store:
        assert store.verify("real") == len(events)
        assert [g.id for g in store.games()] == ["real"]


def test_a_database_made_before_the_games_trigger_gets_it_on_first_open(three, build):
    forge(three, "DROP INDEX events_first")  # every trigger gone, as older versions lacked two
    with SQLiteEventStore(three) as store:
        assert store.verify("g1") == 10
    names = {n for (n,) in raw(three).execute("SELECT name FROM sqlite_master")}
    assert {"games_follow_events", "events_first", "games_no_replace"} <= names
    conn = raw(three)
    try:
        with pytest.raises(sqlite3.IntegrityError, match="written with its first event"):
            conn.execute(_PHANTOM.format(game="new", chain="forged"))
    finally:
        conn.close()


# ---- 4. a database that can be read but not written ------------------------------------------

def _executed(sql: str):
    def change(path: Path) -> None:
        conn = raw(path)
        conn.execute(sql)
        conn.commit()
        conn.close()
    return change


_INCOMPLETE = {
    "complete": lambda path: None,
    "triggers dropped": forge,
    "made before heads": make_old_format,
    "index of first events missing": _executed("DROP INDEX events_first"),
    "rollback journal, not WAL": _executed("PRAGMA journal_mode=DELETE"),
}


@pytest.mark.parametrize("case", sorted(_INCOMPLETE))
def test_a_read_only_open_reads_everything_and_writes_nothing(case, three, build):
    """Before: "cannot open as a warlog database (attempt to write a readonly database)" for
    every case but a complete WAL file: opening tried to complete the schema and switch to WAL."""
    expected = listing(three)
    _INCOMPLETE[case](three)
    before = file_state(three)
    with SQLiteEventStore(three, readonly=True) as store:
        assert store.readonly
        assert store.games() == expected
        assert store.read("g2") == build.make_game("g2", 6)
        assert (store.check("g1"), store.verify("g1"), store.verify("g3")) == (10, 10, 5)
        with pytest.raises(StoreError, match="cannot append to game 'g2': the database was "
                           "opened read-only; nothing was written"):
            store.append("g2", build.make_game("g2", 7)[6:], 6)
    assert file_state(three) == before
    with SQLiteEventStore(three) as store:  # a writable open completes it
        assert not store.readonly
        assert store.append("g2", build.make_game("g2", 7)[6:], 6) == 7


def test_a_read_only_file_without_warlog_tables_says_so(tmp_path):
    path = tmp_path / "empty.db"
    sqlite3.connect(path).execute("CREATE TABLE notes (x)").connection.close()
    with pytest.raises(StoreError, match=r"cannot open the database: the database is read-only "
                       r"and has no games or events table"):
        SQLiteEventStore(path, readonly=True)


@pytest.fixture
def unwritable():
    """Make files and folders that cannot be written, even by root (chattr +i) or, for anyone
    else, by their permissions; undone afterwards. Skips where neither is possible."""
    made: list[tuple[Path, int]] = []

    def make(*paths: Path) -> None:
        for path in paths:
            if os.geteuid() != 0:
                made.append((path, path.stat().st_mode))
                path.chmod(0o555 if path.is_dir() else 0o444)
                continue
            if shutil.which("chattr") is None:
                pytest.skip("no chattr to make a file root cannot write")
            done = subprocess.run(["chattr", "+i", str(path)], capture_output=True,
                                  timeout=LIMIT)
            if done.returncode:
                pytest.skip(f"chattr +i is not supported here: {done.stderr.decode().strip()}")
            made.append((path, -1))

    yield make
    for path, mode in reversed(made):
        if mode == -1:
            subprocess.run(["chattr", "-i", str(path)], check=True, timeout=LIMIT)
        else:
            path.chmod(mode)


@pytest.mark.parametrize("case", ["complete", "triggers dropped", "rollback journal, not WAL"])
def test_a_file_that_cannot_be_written_still_lists_and_says_why_it_cannot_append(
        case, three, unwritable, build, monkeypatch):
    """Before: "attempt to write a readonly database" from `warlog games` (the open tried to put
    the triggers back, or to switch to WAL), and a raw OperationalError from append."""
    monkeypatch.delenv("WARLOG_DB", raising=False)
    expected = listing(three)
    _INCOMPLETE[case](three)
    unwritable(three)
    before = file_state(three)
    with SQLiteEventStore(three) as store:  # no readonly flag: SQLite finds the file read-only
        assert store.games() == expected
        assert store.verify("g1") == 10
        with pytest.raises(StoreError, match=r"cannot append to game 'g2': the database cannot "
                           r"be written \(its file, folder or disk is read-only\); nothing was "
                           r"written"):
            store.append("g2", build.make_game("g2", 7)[6:], 6)
    assert '"g2"' in run("games", "--json", "--db", str(three)).output
    assert file_state(three) == before


def test_a_wal_file_in_a_folder_that_cannot_be_written_is_read_as_immutable(three, unwritable):
    """Before: "unable to open database file": SQLite reads a WAL file only with a -shm file
    beside it, and none can be made on read-only media."""
    expected = listing(three)
    assert not Path(f"{three}-shm").exists() and not Path(f"{three}-wal").exists()
    unwritable(three, three.parent)
    with SQLiteEventStore(three) as store:
        assert store.readonly
        assert store.games() == expected and store.verify("g3") == 5


# ---- 5. a write SQLite refuses says why, and that nothing was written ------------------------


def test_a_full_disk_is_named_and_nothing_is_written(store, db_path, build):
    """Before: a raw sqlite3.OperationalError ("database or disk is full"), which the CLI
    reported as "cannot read the database"."""
    store.append("g1", build.make_game("g1", 5), 0)
    before = build.dump(db_path)
    pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
    store.conn.execute(f"PRAGMA max_page_count = {pages}")
    more = build.make_game("g1", 3000)[5:]
    with pytest.raises(StoreError) as info:
        store.append("g1", more, 5)
    assert str(info.value) == (f"{db_path}: cannot append to game 'g1': the disk is full; "
                               "nothing was written")
    with pytest.raises(StoreError, match="the disk is full; nothing was written"):
        store.append("g2", build.make_game("g2", 3000), 0)
    assert build.dump(db_path) == before
    store.conn.execute("PRAGMA max_page_count = 1073741823")
    assert store.append("g1", more, 5) == 3000 and store.verify("g1") == 3000


def test_an_open_that_must_write_on_a_full_disk_says_so(tmp_path, monkeypatch):
    """Creating the schema of a new file on a disk with no room (SQLite's page limit stands in
    for the disk): one line saying so, not "cannot open as a warlog database"."""
    connect = sqlite3.connect

    def full(*args, **kwargs):
        conn = connect(*args, **kwargs)
        conn.execute("PRAGMA max_page_count = 2")
        return conn

    monkeypatch.setattr(sqlite_open.sqlite3, "connect", full)
    with pytest.raises(StoreError) as info:
        SQLiteEventStore(tmp_path / "new.db")
    assert str(info.value) == (f"{tmp_path / 'new.db'}: cannot open the database: the disk is "
                               "full; nothing was written")


@pytest.mark.parametrize("code, said", [
    (sqlite_open.SQLITE_FULL, "the disk is full"),
    (sqlite_open.SQLITE_IOERR | (3 << 8), "the disk could not be written (an I/O error)"),
    (sqlite_open.SQLITE_READONLY, "the database cannot be written (its file, folder or disk "
                                  "is read-only)"),
])
def test_each_refused_write_is_named_in_words(code, said):
    exc = sqlite3.OperationalError("disk I/O error")
    exc.sqlite_errorcode = code
    assert sqlite_open.not_written(exc) == said
