"""Private seat links (events/seat_links.py): a token per side, only its hash stored, in an
append-only table beside the log. Issued and found again; anything else is no seat (None, never
an exception); refused, with nothing written, where an append would be; an older database gains
the table on its first writable open and is read without it where it cannot be written."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from warlog.events import seat_links
from warlog.events.seat_links import SeatLinkError, SeatTaken, UnknownSide
from warlog.events.sqlite_schema import reference
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.events.store import DatabaseAltered, GameNotFound, StoreError

from store_helpers import plant, raw

SIDES = ("red", "blue")


@pytest.fixture
def games(db_path, build) -> Path:
    """A database with games g1 and g2 (sides red and blue), written by warlog, no links."""
    with SQLiteEventStore(db_path) as s:
        s.append("g1", build.make_game("g1", 6), 0)
        s.append("g2", build.make_game("g2", 4), 0)
    return db_path


def _rows(path: Path) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT * FROM seat_links ORDER BY game, side, issue").fetchall()
    finally:
        conn.close()


def _file_bytes(path: Path) -> bytes:
    """The database's bytes, with its write-ahead log's if any."""
    return b"".join(p.read_bytes() for p in (path, Path(f"{path}-wal"))
                    if p.exists())


def _old(path: Path) -> None:
    """Take a database back to before seat links (dropping the table drops its triggers)."""
    conn = raw(path)
    conn.execute("DROP TABLE seat_links")
    conn.commit()
    conn.close()


def test_each_side_finds_its_own_token(games):
    with SQLiteEventStore(games) as store:
        tokens = seat_links.issue(store, "g1", SIDES)
        assert sorted(tokens) == sorted(SIDES)
        for side, token in tokens.items():
            assert seat_links.side_of(store, "g1", token) == side
            assert len(token) == 22 and token.isascii()
        assert tokens["red"] != tokens["blue"]
        other = seat_links.issue(store, "g2", SIDES)
        assert not set(other.values()) & set(tokens.values())
        assert seat_links.side_of(store, "g2", tokens["red"]) is None  # another game's token
        assert seat_links.side_of(store, "g1", other["blue"]) is None
    with SQLiteEventStore(games) as again:  # another process (a second browser's session)
        assert seat_links.side_of(again, "g1", tokens["blue"]) == "blue"


@pytest.mark.parametrize("token", [
    "", "x", "A" * 22, "A" * 10_000, "é" * 22, "\x00", "\ud800", "🎲" * 5, None, 42, b"bytes",
], ids=["empty", "short", "wrong", "very long", "non-ASCII", "nul", "lone surrogate", "emoji",
        "None", "int", "bytes"])
def test_anything_but_a_token_is_no_seat(games, token):
    with SQLiteEventStore(games) as store:
        tokens = seat_links.issue(store, "g1", SIDES)
        assert seat_links.side_of(store, "g1", token) is None
        assert seat_links.side_of(store, "nobody", token) is None
        assert seat_links.side_of(store, "nobody", tokens["red"]) is None
        assert seat_links.side_of(store, "g1", tokens["red"] + "x") is None
        assert seat_links.side_of(store, "g1", tokens["red"][:-1]) is None


def test_the_tokens_are_nowhere_in_the_file(games):
    with SQLiteEventStore(games) as store:
        tokens = seat_links.issue(store, "g1", SIDES)
        stored = _file_bytes(games)  # open: what the write-ahead log holds too
    stored += _file_bytes(games)  # closed: checkpointed into the file
    for token in tokens.values():
        assert token.encode() not in stored
        assert seat_links.digest(token).encode() in stored  # only the hash
    assert [row[:3] for row in _rows(games)] == [("g1", "blue", 1), ("g1", "red", 1)]


def test_a_game_without_links_is_open_and_one_with_links_stays_closed(games):
    with SQLiteEventStore(games) as store:
        assert not seat_links.has_links(store, "g1") and not seat_links.has_links(store, "g2")
        assert not seat_links.has_links(store, "nobody")
        seat_links.issue(store, "g1", ["red"])
        assert seat_links.has_links(store, "g1") and not seat_links.has_links(store, "g2")
        assert seat_links.revoke(store, "g1", "red")
        assert seat_links.has_links(store, "g1")  # revoking never opens a game


def test_a_revoked_link_stops_working_and_a_new_one_may_be_issued(games):
    with SQLiteEventStore(games) as store:
        first = seat_links.issue(store, "g1", SIDES)
        with pytest.raises(SeatTaken, match="side 'red' of game 'g1' already has a seat link; "
                           "revoke it first"):
            seat_links.issue(store, "g1", ["red"])
        assert seat_links.revoke(store, "g1", "red") is True
        assert seat_links.revoke(store, "g1", "red") is False  # nothing stood: nothing written
        assert seat_links.side_of(store, "g1", first["red"]) is None
        assert seat_links.side_of(store, "g1", first["blue"]) == "blue"
        second = seat_links.issue(store, "g1", ["red"])
        assert seat_links.side_of(store, "g1", second["red"]) == "red"
        assert seat_links.side_of(store, "g1", first["red"]) is None
    assert [(side, issue, held is None) for _, side, issue, held in _rows(games)] == [
        ("blue", 1, False), ("red", 1, False), ("red", 2, True), ("red", 3, False)]


@pytest.mark.parametrize("game, sides, error, said", [
    ("nobody", ["red"], GameNotFound, "no game 'nobody' in this database"),
    ("g1", ["red", "green"], UnknownSide,
     "game 'g1' has no side 'green' (its sides: 'blue', 'red'); no seat link was issued"),
    ("g1", ["red", "red"], SeatLinkError, "a side is named twice"),
    ("g1", [], SeatLinkError, "no side named"),
])
def test_an_unknown_game_or_side_is_refused_naming_it(games, build, game, sides, error, said):
    before = build.dump(games)
    with SQLiteEventStore(games) as store:
        with pytest.raises(error) as info:
            seat_links.issue(store, game, sides)
        assert said in str(info.value) and isinstance(info.value, StoreError)
        with pytest.raises((GameNotFound, UnknownSide)):
            seat_links.revoke(store, game, "green")
    assert build.dump(games) == before and _rows(games) == []  # not even red's


def test_issuing_in_an_altered_database_is_refused_with_nothing_written(games, build):
    plant(games, "CREATE TRIGGER zz_copy AFTER INSERT ON seat_links BEGIN "
          "INSERT INTO games_copy VALUES (NEW.token_sha256); END",
          "CREATE TABLE games_copy (x)")
    before = build.dump(games)
    with SQLiteEventStore(games) as store:
        with pytest.raises(DatabaseAltered, match=r"cannot issue seat links for game 'g1': "
                           r"this database has a table warlog did not make: games_copy "
                           r"\(and 1 more\); nothing was written"):
            seat_links.issue(store, "g1", SIDES)
        with pytest.raises(DatabaseAltered, match="nothing was written"):
            seat_links.revoke(store, "g1", "red")
    assert build.dump(games) == before


def test_a_trigger_planted_after_the_open_is_caught_before_issuing(games, build):
    with SQLiteEventStore(games) as store:
        plant(games, "CREATE TRIGGER zz_ignore BEFORE INSERT ON seat_links "
              "BEGIN SELECT RAISE(IGNORE); END")  # another process, while the store is open
        before = build.dump(games)
        with pytest.raises(DatabaseAltered, match="zz_ignore; nothing was written"):
            seat_links.issue(store, "g1", SIDES)
    assert build.dump(games) == before


def test_issuing_in_a_read_only_database_is_refused_with_nothing_written(games, build):
    before = build.dump(games)
    with SQLiteEventStore(games, readonly=True) as store:
        with pytest.raises(StoreError, match="cannot issue seat links for game 'g1': the "
                           "database was opened read-only; nothing was written"):
            seat_links.issue(store, "g1", SIDES)
        assert not seat_links.has_links(store, "g1")
    assert build.dump(games) == before


def test_the_table_is_append_only_even_for_plain_sqlite(games):
    with SQLiteEventStore(games) as store:
        token = seat_links.issue(store, "g1", ["red"])["red"]
    conn = raw(games)
    mine = "0" * 64
    for statement in (
        f"UPDATE seat_links SET token_sha256 = '{mine}'",
        "DELETE FROM seat_links",
        f"REPLACE INTO seat_links VALUES ('g1', 'red', 1, '{mine}')",
        f"INSERT OR REPLACE INTO seat_links VALUES ('g1', 'red', 1, '{mine}')",
        f"INSERT INTO seat_links VALUES ('g1', 'red', 3, '{mine}')",  # skips a number
        f"INSERT INTO seat_links VALUES ('nobody', 'red', 1, '{mine}')",  # no such game
    ):
        with pytest.raises(sqlite3.IntegrityError, match="seat links are append-only"):
            conn.execute(statement)
    conn.close()
    with SQLiteEventStore(games) as store:
        assert store.altered == [] and seat_links.side_of(store, "g1", token) == "red"


def test_an_old_database_gains_the_table_on_its_first_writable_open(games, build):
    _old(games)
    conn = sqlite3.connect(games)
    held = sorted(conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))
    conn.close()
    assert held == sorted(row for row in reference()[0] if "seat_links" not in row[1])
    with SQLiteEventStore(games) as store:
        assert store.altered == [] and not store.readonly
        assert not seat_links.has_links(store, "g1")  # open to whoever opens it, as before
        tokens = seat_links.issue(store, "g1", SIDES)
        assert seat_links.side_of(store, "g1", tokens["red"]) == "red"
        assert store.verify("g1") == 6
    conn = sqlite3.connect(games)
    assert sorted(conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master")) == \
        sorted(reference()[0])
    conn.close()


def test_an_old_database_that_cannot_be_written_is_read_without_links(games, build):
    _old(games)
    before = build.dump(games)
    with SQLiteEventStore(games, readonly=True) as store:
        assert store.altered == [] and store.readonly
        assert store.read("g2") == build.make_game("g2", 4)
        assert not seat_links.has_links(store, "g1")
        assert seat_links.side_of(store, "g1", "A" * 22) is None
        with pytest.raises(StoreError, match="cannot issue seat links for game 'g1': the "
                           "database was opened read-only; nothing was written"):
            seat_links.issue(store, "g1", SIDES)
    assert build.dump(games) == before


def test_links_need_the_sqlite_store():
    class Elsewhere:
        pass

    for call in (lambda: seat_links.issue(Elsewhere(), "g1", SIDES),
                 lambda: seat_links.side_of(Elsewhere(), "g1", "A" * 22),
                 lambda: seat_links.has_links(Elsewhere(), "g1")):
        with pytest.raises(StoreError, match=r"seat links are kept in the game's SQLite "
                           r"database; this store \(Elsewhere\) holds none"):
            call()
