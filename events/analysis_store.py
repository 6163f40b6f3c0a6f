"""Computed analyses kept beside the games, in the game's own database: win-probability curves
and reviews (`warlog review`: every decision graded).

Why tables of their own, apart from the event store's: an analysis is derived, not history. It
can be recomputed at any time, so it is not append-only, it is not hash-chained, and the event
store (events/sqlite_store.py) neither knows nor needs it; its tables are among the objects the
schema check expects (events/sqlite_guard.py), and storing an analysis is refused, like an
append, in a database holding anything warlog did not make. Every query is bounded
(``Bounded``). A table is made only when its first analysis is stored: reading never creates.

An analysis is keyed by the game, its parameters (a curve: playouts per turn, seed, mode,
policies; a review: budget, seed, evaluator; canonical JSON) and the game's last seq when it
was computed: a game appended to later has a new last seq, finds nothing for it and is
recomputed, never shown stale. Saving drops the same game's and parameters' analyses for older
lengths, in the same transaction as the insert, so an interrupted save leaves what was there.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import orjson

from warlog.events.sqlite_guard import Bounded, check, limit_error, ran_past
from warlog.events.sqlite_schema import (REVIEW_CREATE, REVIEW_TABLE, WINPROB_CREATE,
                                         WINPROB_TABLE)
from warlog.events.store import StoreError

TABLE = WINPROB_TABLE
# Both kept in events/sqlite_schema.py, beside what the schema check expects.
_CREATES = {WINPROB_TABLE: WINPROB_CREATE, REVIEW_TABLE: REVIEW_CREATE}
# What each table's JSON column is called, and what a message calls the analysis.
_COLUMN = {WINPROB_TABLE: "curve", REVIEW_TABLE: "review"}


def _params(params: dict[str, Any]) -> str:
    return orjson.dumps(params, option=orjson.OPT_SORT_KEYS).decode()


def _loads(text: str, path: str, noun: str, game: str) -> Any:
    """A stored JSON column, or one line saying it was changed outside warlog."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        raise StoreError(f"{path}: the stored {noun} of game {game!r} is not valid JSON "
                         "(it was changed outside warlog); compute it again") from None


class AnalysisStore:
    """Win-probability curves and reviews in the SQLite file at ``path`` (the games' database)."""

    def __init__(self, path: str | Path, *, timeout: float = 5.0) -> None:
        self.path = str(path)
        try:
            self.conn = sqlite3.connect(self.path, timeout=timeout, factory=Bounded)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot open the database ({exc})") from None
        self._ready: set[str] = set()

    def _exists(self, table: str) -> bool:
        if table not in self._ready and self.conn.execute(
                "SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone() is not None:
            self._ready.add(table)
        return table in self._ready

    def _ensure(self, table: str, what: str) -> None:
        """Create ``table`` if missing, under the write lock (many processes may open a file
        at once; IF NOT EXISTS covers the one that created it meanwhile). Reading never
        creates it: a database nobody stored an analysis in is left as it was."""
        if not self._exists(table):
            conn = self.conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                check(conn, self.path, what)  # nothing is made in an altered database
                conn.execute(_CREATES[table])
                conn.execute("COMMIT")
            except BaseException:
                conn.rollback()
                raise
            self._ready.add(table)

    def _save(self, table: str, game: str, params: dict[str, Any], last_seq: int,
              value: dict[str, Any]) -> None:
        """Store ``value`` for (game, params, last_seq), replacing the same key and dropping
        this game's analyses with these parameters for older lengths, in one transaction."""
        noun = _COLUMN[table]
        try:
            what = f"store the {noun} of game {game!r}"
            self._ensure(table, what)
            conn = self.conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                check(conn, self.path, what)
                key = _params(params)
                conn.execute(f"DELETE FROM {table} WHERE game = ? AND params = ? AND last_seq <= ?",
                             (game, key, last_seq))
                conn.execute(f"INSERT INTO {table} (game, params, last_seq, {noun}) "
                             "VALUES (?, ?, ?, ?)",
                             (game, key, last_seq, orjson.dumps(value).decode()))
                conn.execute("COMMIT")
            except BaseException:
                conn.rollback()
                raise
        except sqlite3.Error as exc:
            if ran_past(exc):
                raise limit_error(self.path) from None
            raise StoreError(f"{self.path}: cannot store the {noun} of game {game!r} ({exc})") \
                from None

    def save_curve(self, game: str, params: dict[str, Any], last_seq: int,
                   curve: dict[str, Any]) -> None:
        """Store ``curve`` for (game, params, last_seq) (see ``_save``)."""
        self._save(WINPROB_TABLE, game, params, last_seq, curve)

    def load_curve(self, game: str, params: dict[str, Any], last_seq: int) -> dict | None:
        """The curve stored for exactly these parameters and this length of the game."""
        return self._one(WINPROB_TABLE, "WHERE game = ? AND params = ? AND last_seq = ?",
                         (game, _params(params), last_seq), game)

    def latest_curve(self, game: str, last_seq: int) -> dict | None:
        """Any curve stored for this length of the game (the one with most playouts per turn,
        then the latest stored), or None: what the dashboard draws."""
        return self._one(WINPROB_TABLE, "WHERE game = ? AND last_seq = ? ORDER BY "
                         "json_extract(params, '$.playouts') DESC, rowid DESC LIMIT 1",
                         (game, last_seq), game)

    def save_review(self, game: str, params: dict[str, Any], last_seq: int,
                    review: dict[str, Any]) -> None:
        """Store a whole review (``Review.as_dict``) for (game, params, last_seq), in one
        transaction: called once the review is computed, so a stopped review stores nothing."""
        self._save(REVIEW_TABLE, game, params, last_seq, review)

    def load_review(self, game: str, params: dict[str, Any], last_seq: int) -> dict | None:
        """The review stored for exactly these parameters (budget, seed, evaluator) and this
        length of the game, or None."""
        return self._one(REVIEW_TABLE, "WHERE game = ? AND params = ? AND last_seq = ?",
                         (game, _params(params), last_seq), game)

    def latest_review(self, game: str, last_seq: int, *,
                      evaluator: str | None = None) -> dict | None:
        """The latest review stored for this length of the game, or None: what the dashboard
        shows. Given ``evaluator`` (the current one), a review it made comes first: a review
        by an older evaluator is shown only when there is no other."""
        return self._one(REVIEW_TABLE, "WHERE game = ? AND last_seq = ? ORDER BY "
                         "coalesce(json_extract(params, '$.evaluator') = ?, 0) DESC, "
                         "rowid DESC LIMIT 1", (game, last_seq, evaluator), game)

    def review_keys(self, game: str) -> list[tuple[dict[str, Any], int]]:
        """The (parameters, last seq) of every review stored for ``game``, the latest stored
        first (their reviews left unread): why a stored review does not fit a request."""
        try:
            if not self._exists(REVIEW_TABLE):
                return []
            rows = self.conn.execute(f"SELECT params, last_seq FROM {REVIEW_TABLE} WHERE game = ? "
                                     "ORDER BY rowid DESC", (game,)).fetchall()
            return [(_loads(params, self.path, "review", game), seq) for params, seq in rows]
        except sqlite3.Error as exc:
            raise self._read_error(exc, "review", game) from None

    def _read_error(self, exc: sqlite3.Error, noun: str, game: str) -> StoreError:
        if ran_past(exc):
            return limit_error(self.path)
        return StoreError(f"{self.path}: cannot read the {noun}s of game {game!r} ({exc})")

    def _one(self, table: str, where: str, args: tuple, game: str) -> dict | None:
        noun = _COLUMN[table]
        try:
            if not self._exists(table):
                return None
            row = self.conn.execute(f"SELECT {noun} FROM {table} {where}", args).fetchone()
        except sqlite3.Error as exc:
            raise self._read_error(exc, noun, game) from None
        return None if row is None else _loads(row[0], self.path, noun, game)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> AnalysisStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
