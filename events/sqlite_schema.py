"""The SQLite event store's schema: its tables, the triggers that keep them append-only, the
heads, the seat links' table, and making them when a database is opened (events/sqlite_store.py
reads and writes them; events/seat_links.py the seat links).

Why it looks the way it does:

* ``events`` is keyed by (game, seq) and ``WITHOUT ROWID``: rows sit in game order, so reading a
  game back is one range scan, and a second writer with the same seq hits the primary key.
* The database itself refuses ``UPDATE`` and ``DELETE`` on ``events``, ``games`` and ``heads``:
  triggers ``RAISE(ABORT, ...)``, so no tool, script or bug can rewrite history quietly. It also
  refuses ``INSERT OR REPLACE`` / ``REPLACE INTO``: SQLite's REPLACE deletes the row in the way
  *without* firing DELETE triggers (unless the connection set ``PRAGMA recursive_triggers=ON``,
  which a plain ``sqlite3`` shell does not), so a BEFORE INSERT trigger on each table refuses a
  row whose key is taken. BEFORE INSERT triggers fire for every INSERT, whatever its conflict
  clause, before any conflict is resolved. On ``events`` the same trigger refuses a seq that
  does not follow the game's last one, so a hole cannot be made by inserting either.
* ``heads`` records where each append left its game: one row per append, (game, the new last
  seq, the chain of that event), written in the append's own transaction. A game whose stored
  rows no longer end at its latest head (rows deleted with the triggers dropped, a tail lost
  when parts of the file were put back from an older copy) is reported by ``check``, ``read``,
  ``verify`` and ``append`` as :class:`GameDamaged`, naming both lengths. Why a table of its own
  rather than two columns of ``games`` moved forward by a trigger that allows only "monotonic"
  UPDATEs: ``heads`` is append-only like ``events`` (no UPDATE, no DELETE, no REPLACE: no
  exception to the rule, nothing to get wrong in a WHEN clause over old and new values), and
  a BEFORE INSERT trigger lets a head in only if it is *the last stored event* of its game, with
  that event's chain, and past the previous head, so heads can only move forward, consistently,
  whoever writes. The cost is one small row per append (an append is a batch, not an event). A
  database made before heads existed gets them on its first open: one row per game, its current
  last event, computed once. This catches damage *inside* one file; a whole file put back from
  an older copy agrees with itself, and only a head kept elsewhere (an exported replay) shows it.
* Columns that repeat facts of the log (``events.game/seq/turn/side/phase/kind`` repeat the
  row's body; every column of ``games`` repeats the game's first event) are conveniences, not
  truth: the bodies are chained, the columns are not. So the game list is derived from the
  bodies (:func:`event_columns` and :func:`game_row` say what each column must hold, and
  ``SQLiteEventStore.verify`` checks every one), and a games row can only be written once its
  game's first event is stored, holding that event's chain (``games_follow_events``): a games
  row with no events under it (a phantom) cannot be made through the triggers.
* ``seat_links`` holds the private seat links of a game played from several browsers
  (events/seat_links.py): a row per link issued, (game, side, its issue number, the SHA-256 of
  its token), and a row with no hash revokes the side's link. The newest row of a side is the
  one that counts. Why beside the log and not in it: a token is no fact of the game (a replay
  file, which shows the whole log, would hand out every seat), so it is no event, in no chain.
  Why only a hash: a copy of the database file, or a read-only glance at it, hands out no seat.
  Why a row per issue rather than one row updated: the table is append-only like the others
  (no UPDATE, no DELETE, no REPLACE; ``seat_links_no_replace`` lets a row in only with the next
  number of its side, and only for a game whose first event is stored), so a link can only be
  issued or revoked, through warlog or a plain ``sqlite3`` shell alike, never silently swapped
  for another in place, and the rows tell when each side's link was re-issued. Whoever can write
  the file can still add a row of their own: the links keep out those who hold only a game's
  view link or a copy of the file, not the server's owner. A database made before seat links
  gets the table (empty) on its first writable open: its games stay open to whoever opens them,
  as before; a read-only one is read without it, and refuses to issue links.
* A database that can be read but not written opens for reading: an open that finds the schema
  complete writes nothing, and one that finds part of it missing on a read-only file makes no
  change and stands in for the missing heads with a temporary view of each game's last event
  (what the backfill would have written); such a store refuses to append.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import orjson

from warlog.events.chain import canonical
from warlog.events.store import StoreError

GAMES_COLUMNS: dict[str, type] = {
    "id": str,
    "rule_system": str,
    "period": str,
    "scenario_id": str,
    "title": str,
    "players": str,  # JSON object: side -> player name
    "dice": str,
    "seed": int,
    "first_event_chain": str,
}
EVENTS_COLUMNS: dict[str, type] = {
    "game": str,
    "seq": int,
    "turn": int,
    "side": str,
    "phase": str,
    "kind": str,
    "body": str,  # canonical JSON of the whole event dict
    "chain": str,  # link(previous row's chain or GENESIS, body)
}
# The events columns that repeat the row's body, in the order event_columns gives them.
EVENT_FACTS = ("game", "seq", "turn", "side", "phase", "kind")


def event_columns(event: dict[str, Any]) -> tuple[Any, ...]:
    """What an event's row holds beside its body, taken from the event (EVENT_FACTS, in order).
    The store's append builds the same tuple inline (its hot loop); verify compares with this."""
    return (event.get("game"), event.get("seq"), event.get("turn"), event.get("side"),
            event.get("phase"), event.get("kind"))


def game_row(game: str, first: dict[str, Any], first_chain: str) -> dict[str, Any]:
    """The games row of ``game``, every column taken from its first event (GAMES_COLUMNS, in
    order); StoreError if that event lacks what the row needs."""
    for name in ("rule_system", "period"):
        if not isinstance(first.get(name), str):
            raise StoreError(f"game {game!r}: the game_started event has no {name!r}")
    scenario = first.get("scenario") or {}
    if not isinstance(scenario, dict):
        raise StoreError(f"game {game!r}: the game_started event's scenario is not an object")
    try:
        players = canonical(first.get("players") or {}).decode()
    except (TypeError, ValueError) as exc:
        raise StoreError(f"game {game!r}: the game_started event's players are not JSON "
                         f"({exc})") from None
    return {
        "id": game,
        "rule_system": first["rule_system"],
        "period": first["period"],
        "scenario_id": scenario.get("id"),
        "title": scenario.get("title"),
        "players": players,
        "dice": first.get("dice"),
        "seed": first.get("seed"),
        "first_event_chain": first_chain,
    }


_CHANGED = "the database was changed outside warlog"


def _said(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def column_damage(game: str, seq: int, columns: tuple[Any, ...], body: str) -> str:
    """What is wrong with a row whose columns (``columns``, as EVENT_FACTS) do not all say what
    its ``body`` says, or whose body is no JSON object: a message naming the game, the seq and
    the column. (The chain proves the body, not these columns.)"""
    try:
        event = orjson.loads(body)
    except orjson.JSONDecodeError:
        return f"game {game!r}, event seq {seq}: the stored event is not valid JSON — {_CHANGED}"
    if not isinstance(event, dict):
        return (f"game {game!r}, event seq {seq}: the stored event is not a JSON object — "
                f"{_CHANGED}")
    for name, stored, actual in zip(EVENT_FACTS, columns, event_columns(event)):
        if stored != actual:
            what = (f"is a {_said(actual)[1:-1]}" if name == "kind" and isinstance(actual, str)
                    else f"says {_said(actual)}")
            return (f"game {game!r}, event seq {seq}: column {name} says {_said(stored)} but "
                    f"the event {what} — {_CHANGED}")
    return f"game {game!r}, event seq {seq}: its columns differ from the event — {_CHANGED}"


def check_games_row(game: str, row: dict[str, Any] | None, first: dict[str, Any],
                    first_chain: str) -> None:
    """StoreError naming the game and the column if the games row of ``game`` is missing or
    differs from what its first event (``first``, whose chain is ``first_chain``) says."""
    if first.get("kind") != "game_started":
        raise StoreError(f"game {game!r}, event seq 1 is a {_said(first.get('kind'))}, not the "
                         f"game_started every game begins with — {_CHANGED}")
    if row is None:
        raise StoreError(f"game {game!r}: its row in the games table is missing — {_CHANGED}")
    want = game_row(game, first, first_chain)
    for name in (*want, *(k for k in row if k not in want)):
        stored, actual = row.get(name), want.get(name)
        if stored != actual:
            raise StoreError(f"game {game!r}: column {name} of the games table says "
                             f"{_said(stored)} but the game's first event says {_said(actual)} "
                             f"— {_CHANGED}")


_GUARDS = [
    f"CREATE TRIGGER IF NOT EXISTS {table}_no_{verb.lower()} BEFORE {verb} ON {table} "
    f"BEGIN SELECT RAISE(ABORT, '{table} are append-only: {verb} is not allowed; "
    f"record a new event instead'); END"
    for table in ("events", "games", "heads")
    for verb in ("UPDATE", "DELETE")
]
# REPLACE deletes the row in its way without firing DELETE triggers (unless recursive_triggers is
# on), but every INSERT, whatever its conflict clause, fires BEFORE INSERT first: refuse a taken
# key there. An events row must also follow its game's last one (no holes by insertion).
_NO_REPLACE = [
    "CREATE TRIGGER IF NOT EXISTS events_no_replace BEFORE INSERT ON events "
    "WHEN NEW.seq IS NOT coalesce((SELECT max(seq) FROM events WHERE game = NEW.game), 0) + 1 "
    "BEGIN SELECT RAISE(ABORT, 'events are append-only: a game''s events are numbered 1, 2, "
    "3, ... in order, and a stored one is never replaced (REPLACE is not allowed)'); END",
    # games is a rowid table: an explicit rowid that is taken would be replaced too.
    # (NEW.rowid is -1 in a BEFORE INSERT trigger when the rowid is left to SQLite.)
    "CREATE TRIGGER IF NOT EXISTS games_no_replace BEFORE INSERT ON games "
    "WHEN EXISTS (SELECT 1 FROM games WHERE id = NEW.id OR rowid = NEW.rowid) "
    "BEGIN SELECT RAISE(ABORT, 'games are append-only: that game is already stored, and a "
    "stored game is never replaced (REPLACE is not allowed)'); END",
    "CREATE TRIGGER IF NOT EXISTS heads_follow_events BEFORE INSERT ON heads "
    "WHEN NEW.seq IS NOT (SELECT max(seq) FROM events WHERE game = NEW.game) "
    "OR NEW.chain IS NOT (SELECT chain FROM events WHERE game = NEW.game AND seq = NEW.seq) "
    "OR NEW.seq <= coalesce((SELECT max(seq) FROM heads WHERE game = NEW.game), 0) "
    "BEGIN SELECT RAISE(ABORT, 'heads are append-only: a new head moves its game forward to "
    "its last stored event, with that event''s chain'); END",
    # A games row repeats its game's first event: it comes after that event, holding its chain,
    # so a row with no game under it (a phantom that takes the id) cannot be inserted.
    "CREATE TRIGGER IF NOT EXISTS games_follow_events BEFORE INSERT ON games "
    "WHEN NEW.first_event_chain IS NOT "
    "(SELECT chain FROM events WHERE game = NEW.id AND seq = 1) "
    "BEGIN SELECT RAISE(ABORT, 'games are append-only: a game''s row is written with its first "
    "event (seq 1, whose chain it holds), never on its own'); END",
]
# Seat links: append-only too, a side's rows numbered 1, 2, 3, ... (the newest counts; a row
# without a hash revokes), each for a stored game.
_SEAT_LINKS_TABLE = (
    "CREATE TABLE IF NOT EXISTS seat_links (game TEXT NOT NULL, side TEXT NOT NULL, "
    "issue INTEGER NOT NULL, token_sha256 TEXT, PRIMARY KEY (game, side, issue)) STRICT, "
    "WITHOUT ROWID"
)
_SEAT_LINKS_GUARDS = [
    *(f"CREATE TRIGGER IF NOT EXISTS seat_links_no_{verb.lower()} BEFORE {verb} ON seat_links "
      f"BEGIN SELECT RAISE(ABORT, 'seat links are append-only: {verb} is not allowed; revoke a "
      "link or issue a new one instead'); END"
      for verb in ("UPDATE", "DELETE")),
    "CREATE TRIGGER IF NOT EXISTS seat_links_no_replace BEFORE INSERT ON seat_links "
    "WHEN NEW.issue IS NOT coalesce((SELECT max(issue) FROM seat_links WHERE game = NEW.game "
    "AND side = NEW.side), 0) + 1 "
    "OR NOT EXISTS (SELECT 1 FROM events WHERE game = NEW.game AND seq = 1) "
    "BEGIN SELECT RAISE(ABORT, 'seat links are append-only: a side''s links are numbered 1, 2, "
    "3, ... in order, each for a stored game, and a stored one is never replaced'); END",
]
_HEADS_TABLE = (
    "CREATE TABLE IF NOT EXISTS heads (game TEXT NOT NULL, seq INTEGER NOT NULL, "
    "chain TEXT NOT NULL, PRIMARY KEY (game, seq)) STRICT, WITHOUT ROWID"
)
# Each game's current last event, as a head: what a database made before heads gets, once (or,
# read-only, stands in for them as a temporary view).
_LAST_EVENTS = (
    "SELECT e.game, e.seq, e.chain FROM (SELECT game, max(seq) AS last FROM events GROUP BY game) "
    "AS m JOIN events AS e ON e.game = m.game AND e.seq = m.last"
)
_HEADS_BACKFILL = "INSERT INTO heads (game, seq, chain) " + _LAST_EVENTS
# Only first events: every game, found without scanning the events (the game list, game_ids).
# Its cost to an append is one comparison a row, as the index of game_ended rows it replaces had
# (older databases keep that one, now unused).
_FIRST_INDEX = "CREATE INDEX IF NOT EXISTS events_first ON events (game) WHERE seq = 1"
# The tables as sqlite-utils 4.2 wrote them when warlog first made them (frozen here, so that
# what opening runs is exactly what the schema check compares with, and opening never imports
# sqlite-utils). events is WITHOUT ROWID: rows sit in game order.
_GAMES_TABLE = (
    'CREATE TABLE IF NOT EXISTS "games" (\n   "id" TEXT PRIMARY KEY,\n   "rule_system" TEXT NOT '
    'NULL,\n   "period" TEXT NOT NULL,\n   "scenario_id" TEXT,\n   "title" TEXT,\n   "players" '
    'TEXT NOT NULL,\n   "dice" TEXT,\n   "seed" INTEGER,\n   "first_event_chain" TEXT NOT NULL\n'
    ') STRICT'
)
_EVENTS_TABLE = (
    'CREATE TABLE IF NOT EXISTS "events" (\n   "game" TEXT NOT NULL,\n   "seq" INTEGER NOT '
    'NULL,\n   "turn" INTEGER NOT NULL,\n   "side" TEXT,\n   "phase" TEXT,\n   "kind" TEXT NOT '
    'NULL,\n   "body" TEXT NOT NULL,\n   "chain" TEXT NOT NULL,\n   PRIMARY KEY ("game", "seq")'
    '\n) STRICT, WITHOUT ROWID'
)
# Every statement that makes the schema, in the order they run: the single source of what an
# open creates and of what events/sqlite_guard.py compares a database with.
SCHEMA = (_GAMES_TABLE, _EVENTS_TABLE, _HEADS_TABLE, _FIRST_INDEX, *_GUARDS, *_NO_REPLACE,
          _SEAT_LINKS_TABLE, *_SEAT_LINKS_GUARDS)
# The analysis store's table (events/analysis_store.py: win-probability curves, derived, not
# append-only), made only when a curve is first stored; here so that the schema check knows it
# without importing that module.
WINPROB_TABLE = "winprob_curves"
WINPROB_CREATE = (
    f"CREATE TABLE IF NOT EXISTS {WINPROB_TABLE} (game TEXT NOT NULL, params TEXT NOT NULL, "
    "last_seq INTEGER NOT NULL, curve TEXT NOT NULL, PRIMARY KEY (game, params, last_seq)) STRICT"
)
# The analysis store's reviews (`warlog review`: every decision graded, derived like a curve and
# keyed the same way: game, parameters (budget, seed, evaluator), the game's last seq), made only
# when a review is first stored.
REVIEW_TABLE = "game_reviews"
REVIEW_CREATE = (
    f"CREATE TABLE IF NOT EXISTS {REVIEW_TABLE} (game TEXT NOT NULL, params TEXT NOT NULL, "
    "last_seq INTEGER NOT NULL, review TEXT NOT NULL, PRIMARY KEY (game, params, last_seq)) "
    "STRICT"
)
# Every table the analysis store may make: expected by the schema check, never required.
ANALYSIS_CREATE = (WINPROB_CREATE, REVIEW_CREATE)
# Take-back requests between the two seats of a game played from two browsers
# (events/takeback_requests.py): a row per request or answer, numbered per game, the newest
# counting. Access, not history (the fact, once agreed, is the orders_taken_back event), so
# like an analysis it is made only when first written, expected by the check, never required.
TAKEBACK_REQUESTS_TABLE = "takeback_requests"
TAKEBACK_REQUESTS_CREATE = (
    f"CREATE TABLE IF NOT EXISTS {TAKEBACK_REQUESTS_TABLE} (game TEXT NOT NULL, n INTEGER NOT "
    "NULL, side TEXT NOT NULL, orders INTEGER NOT NULL, at_seq INTEGER NOT NULL, what TEXT NOT "
    "NULL, PRIMARY KEY (game, n)) STRICT, WITHOUT ROWID"
)
# Everything made on demand: expected by the schema check, never required.
ON_DEMAND = (*ANALYSIS_CREATE, TAKEBACK_REQUESTS_CREATE)
# What an older warlog made and a database may still hold (an index of game_ended rows, unused
# since events_first replaced it): expected, never required.
LEGACY = ("CREATE INDEX IF NOT EXISTS events_game_ended ON events (game, seq) "
          "WHERE kind = 'game_ended'",)
_SQLITE_READONLY = 8
# sqlite_master's rows, as the schema check reads them: (type, name, tbl_name, sql).
MASTER = "SELECT type, name, tbl_name, sql FROM sqlite_master"
Row = tuple[str, str, str, "str | None"]


def master(conn: sqlite3.Connection) -> list[Row]:
    """Every object of the main database as sqlite_master holds it: one query, read by the
    completeness check here and by the schema check (events/sqlite_guard.py)."""
    return conn.execute(MASTER).fetchall()


@lru_cache(maxsize=None)
def reference() -> tuple[tuple[Row, ...], tuple[Row, ...]]:
    """sqlite_master's rows once SCHEMA's statements ran on an empty in-memory database, and once
    everything else warlog may make ran too (the analysis store's tables, LEGACY, ANALYZE's
    statistics): exactly what SQLite stores for them (it drops IF NOT EXISTS and normalises
    spaces its own way), so a database is compared with what these very statements make, not
    a copy. Built once a process, in one transaction (under a millisecond)."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        conn.execute("BEGIN")
        for statement in SCHEMA:
            conn.execute(statement)
        required = tuple(master(conn))
        for statement in (*ON_DEMAND, *LEGACY):
            conn.execute(statement)
        conn.execute("COMMIT")
        conn.execute("ANALYZE")
        return required, tuple(master(conn))
    finally:
        conn.close()


def create_schema(conn: sqlite3.Connection, *, readonly: bool = False,
                  altered: Callable[[list[Row]], bool] | None = None
                  ) -> tuple[bool, list[Row]]:
    """Create tables, triggers and heads (the seat links' table too) if missing; safe to run on
    every open. Returns whether the schema is complete (False if part of it is missing and the
    database cannot be written), and sqlite_master's rows as they are then.

    An open that finds everything reads one catalogue query and writes nothing. Otherwise it
    takes the write lock before looking again and creating what is missing, so two processes
    creating one new file cannot interleave; heads missing from a database made before them
    are computed in the same transaction. A database holding something warlog did not make
    (``altered`` says so of the rows) is never written, not even to complete it: it is read as
    it is. If the file turns out to be read-only (or ``readonly``), nothing is written: the
    missing heads are stood in for by a temporary view (:func:`_read_only`)."""
    rows = master(conn)
    if {row[1] for row in rows} >= _required():
        return True, rows
    foreign = altered is not None and altered(rows)
    if not readonly and not foreign:
        try:
            return True, _complete(conn, altered)
        except sqlite3.OperationalError as exc:
            if (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF != _SQLITE_READONLY:
                raise
    _read_only(conn, foreign and not readonly)
    return False, master(conn)


def _required() -> frozenset[str]:
    """The names of everything create_schema makes (SQLite's own automatic indexes aside)."""
    return frozenset(row[1] for row in reference()[0] if not row[1].startswith("sqlite_"))


def _complete(conn: sqlite3.Connection,
              altered: Callable[[list[Row]], bool] | None) -> list[Row]:
    """Make what is missing under the write lock (looking again once it is held), and return
    sqlite_master's rows as the transaction leaves them."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        rows = master(conn)
        names = {row[1] for row in rows}
        if not names >= _required() and not (altered is not None and altered(rows)):
            if not {"games", "events"} <= names:
                conn.execute(_GAMES_TABLE)
                conn.execute(_EVENTS_TABLE)
            conn.execute(_HEADS_TABLE)
            conn.execute(_FIRST_INDEX)
            for statement in (*_GUARDS, *_NO_REPLACE, _SEAT_LINKS_TABLE, *_SEAT_LINKS_GUARDS):
                conn.execute(statement)
            if "heads" not in names:
                conn.execute(_HEADS_BACKFILL)
            rows = master(conn)
        conn.execute("COMMIT")
        return rows
    except BaseException:
        conn.rollback()
        raise


def _read_only(conn: sqlite3.Connection, foreign: bool = False) -> None:
    """Make a read-only database readable as it is: without its tables it is refused (one line
    saying why); without heads, a temporary view stands in for them (each game's last event,
    what the first writable open will record; ``foreign``: the database holds objects warlog did
    not make, and is not completed even if it could be). Missing triggers need nothing: such a store
    never writes; without the index of first events, the game list scans the events; without
    seat_links, events/seat_links.py finds no links (and refuses to issue any)."""
    names = {row[1] for row in master(conn)}
    missing = [table for table in ("games", "events") if table not in names]
    if missing and foreign:
        raise StoreError(
            f"the database has no {' or '.join(missing)} table and holds objects warlog did not "
            "make, so it is not a warlog database (nothing was written)"
        )
    if missing:
        raise StoreError(
            f"the database is read-only and has no {' or '.join(missing)} table, so it is not a "
            "warlog database yet (open it once where it can be written)"
        )
    if "heads" not in names:
        conn.execute("CREATE TEMP VIEW IF NOT EXISTS heads AS " + _LAST_EVENTS)
