"""Computed analyses kept beside the games: win-probability curves, in the game's own database.

Why a table of its own, apart from the event store's: a curve is derived, not history. It can
be recomputed at any time, so it is not append-only, it is not hash-chained, and the event store
(events/sqlite_store.py) neither knows nor needs it; its table is one of the objects the schema
check expects (events/sqlite_guard.py), and storing a curve is refused, like an append, in a
database holding anything warlog did not make. Every query is bounded (``Bounded``).

A curve is keyed by the game, its parameters (playouts per turn, seed, mode, policies: canonical
JSON) and the game's last seq when it was computed: a game appended to later has a new last seq,
finds no curve for it and is recomputed, never shown stale. Saving a curve drops the same
game's and parameters' curves for older lengths.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import orjson

from warlog.events.sqlite_guard import Bounded, check, limit_error, ran_past
from warlog.events.sqlite_schema import WINPROB_CREATE, WINPROB_TABLE
from warlog.events.store import StoreError

TABLE = WINPROB_TABLE
_CREATE = WINPROB_CREATE  # kept in events/sqlite_schema.py, beside what the check expects


def _params(params: dict[str, Any]) -> str:
    return orjson.dumps(params, option=orjson.OPT_SORT_KEYS).decode()


class AnalysisStore:
    """Win-probability curves in the SQLite file at ``path`` (the games' database)."""

    def __init__(self, path: str | Path, *, timeout: float = 5.0) -> None:
        self.path = str(path)
        try:
            self.conn = sqlite3.connect(self.path, timeout=timeout, factory=Bounded)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot open the database ({exc})") from None
        self._ready = False

    def _exists(self) -> bool:
        if not self._ready:
            self._ready = self.conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?",
                                            (TABLE,)).fetchone() is not None
        return self._ready

    def _ensure(self, what: str) -> None:
        """Create the table if missing, under the write lock (many processes may open a file
        at once; IF NOT EXISTS covers the one that created it meanwhile). Reading never
        creates it: a database nobody computed a curve for is left as it was."""
        if not self._exists():
            conn = self.conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                check(conn, self.path, what)  # nothing is made in an altered database
                conn.execute(_CREATE)
                conn.execute("COMMIT")
            except BaseException:
                conn.rollback()
                raise
            self._ready = True

    def save_curve(self, game: str, params: dict[str, Any], last_seq: int,
                   curve: dict[str, Any]) -> None:
        """Store ``curve`` for (game, params, last_seq), replacing the same key and dropping
        this game's curves with these parameters for older lengths, in one transaction."""
        try:
            what = f"store the curve of game {game!r}"
            self._ensure(what)
            conn = self.conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                check(conn, self.path, what)
                key = _params(params)
                conn.execute(f"DELETE FROM {TABLE} WHERE game = ? AND params = ? AND last_seq <= ?",
                             (game, key, last_seq))
                conn.execute(f"INSERT INTO {TABLE} (game, params, last_seq, curve) "
                             "VALUES (?, ?, ?, ?)",
                             (game, key, last_seq, orjson.dumps(curve).decode()))
                conn.execute("COMMIT")
            except BaseException:
                conn.rollback()
                raise
        except sqlite3.Error as exc:
            if ran_past(exc):
                raise limit_error(self.path) from None
            raise StoreError(f"{self.path}: cannot store the curve of game {game!r} ({exc})") \
                from None

    def load_curve(self, game: str, params: dict[str, Any], last_seq: int) -> dict | None:
        """The curve stored for exactly these parameters and this length of the game."""
        return self._one(f"SELECT curve FROM {TABLE} WHERE game = ? AND params = ? "
                         "AND last_seq = ?", (game, _params(params), last_seq), game)

    def latest_curve(self, game: str, last_seq: int) -> dict | None:
        """Any curve stored for this length of the game (the one with most playouts per turn,
        then the latest stored), or None: what the dashboard draws."""
        return self._one(f"SELECT curve FROM {TABLE} WHERE game = ? AND last_seq = ? "
                         "ORDER BY json_extract(params, '$.playouts') DESC, rowid DESC LIMIT 1",
                         (game, last_seq), game)

    def _one(self, sql: str, args: tuple, game: str) -> dict | None:
        try:
            if not self._exists():
                return None
            row = self.conn.execute(sql, args).fetchone()
        except sqlite3.Error as exc:
            if ran_past(exc):
                raise limit_error(self.path) from None
            raise StoreError(f"{self.path}: cannot read the curves of game {game!r} ({exc})") \
                from None
        if row is None:
            return None
        try:
            return orjson.loads(row[0])
        except orjson.JSONDecodeError:
            raise StoreError(f"{self.path}: the stored curve of game {game!r} is not valid JSON "
                             "(it was changed outside warlog); compute it again") from None

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> AnalysisStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
