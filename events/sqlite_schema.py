"""The SQLite event store's schema: its tables, the triggers that keep them append-only, the
heads, and making them when a database is opened (events/sqlite_store.py reads and writes them).

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
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite_utils

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
]
_HEADS_TABLE = (
    "CREATE TABLE IF NOT EXISTS heads (game TEXT NOT NULL, seq INTEGER NOT NULL, "
    "chain TEXT NOT NULL, PRIMARY KEY (game, seq)) STRICT, WITHOUT ROWID"
)
# A database made before heads: each game's current last event becomes its head, once.
_HEADS_BACKFILL = (
    "INSERT INTO heads (game, seq, chain) "
    "SELECT e.game, e.seq, e.chain FROM (SELECT game, max(seq) AS last FROM events GROUP BY game) "
    "AS m JOIN events AS e ON e.game = m.game AND e.seq = m.last"
)
# Only game_ended rows: lets games() find how a game ended without scanning it.
_ENDED_INDEX = (
    "CREATE INDEX IF NOT EXISTS events_game_ended ON events (game, seq) "
    "WHERE kind = 'game_ended'"
)
# Everything create_schema makes, by name: an open that finds them all writes nothing.
_SCHEMA_NAMES = frozenset(
    ["games", "events", "heads", "events_game_ended", "events_no_replace", "games_no_replace",
     "heads_follow_events"]
    + [f"{t}_no_{v}" for t in ("events", "games", "heads") for v in ("update", "delete")]
)


def _schema_names(conn: sqlite3.Connection) -> set[str]:
    return {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}


def create_schema(conn: sqlite3.Connection,
                  database: Callable[[], sqlite_utils.Database]) -> None:
    """Create tables, triggers and index if missing; safe to run on every open.

    An open that finds everything reads one catalogue query and writes nothing. Otherwise it
    takes the write lock before looking again and creating what is missing, so two processes
    creating one new file cannot interleave; heads missing from a database made before them
    are computed in the same transaction. ``database`` gives ``conn`` as a sqlite-utils
    Database, asked for only when something is missing (importing sqlite-utils is slow)."""
    if _schema_names(conn) >= _SCHEMA_NAMES:
        return
    db = database()
    conn.execute("BEGIN IMMEDIATE")
    try:
        names = _schema_names(conn)
        if not names >= _SCHEMA_NAMES:
            conn.execute(
                db.create_table_sql(
                    "games",
                    GAMES_COLUMNS,
                    pk="id",
                    not_null=["rule_system", "period", "players", "first_event_chain"],
                    if_not_exists=True,
                    strict=True,
                )
            )
            sql = db.create_table_sql(
                "events",
                EVENTS_COLUMNS,
                pk=("game", "seq"),
                not_null=["game", "seq", "turn", "kind", "body", "chain"],
                if_not_exists=True,
                strict=True,
            )
            # sqlite-utils has no WITHOUT ROWID option; the rest of the DDL is its own.
            conn.execute(sql.strip().rstrip(";") + ", WITHOUT ROWID")
            conn.execute(_HEADS_TABLE)
            conn.execute(_ENDED_INDEX)
            for guard in (*_GUARDS, *_NO_REPLACE):
                conn.execute(guard)
            if "heads" not in names:
                conn.execute(_HEADS_BACKFILL)
        conn.execute("COMMIT")
    except BaseException:
        db.rollback()
        raise
