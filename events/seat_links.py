"""Private seat links: who may give orders for a side of a game played from several browsers.

Starting a game for people at different screens issues one link per side (a random token in the
link's address): only its holder orders for that side, while anyone with the game's view link
watches. Why it works this way:

* A token is no fact of the game: it is no event, never in a replay file nor in the hash chain.
  It lives in the ``seat_links`` table beside the log (events/sqlite_schema.py says why that
  table looks as it does), which holds only a SHA-256 of each token: a copy of the database file
  hands out no seat.
* Tokens are made here, at the edge (``secrets``), never in the engine, whose every die comes
  from the game's seed. 16 random bytes (128 bits) cannot be guessed, so a token needs no
  attempt counter.
* :func:`side_of` hashes what it is given and compares it with each side's hash in constant
  time (``hmac.compare_digest``), and answers None, never an exception, for anything that is
  not a token of this game: a link typed wrong, cut short, or made up is no error, only no seat.
* Links can be re-issued: :func:`revoke` (the old link stops working at once), then
  :func:`issue`. The table is append-only: a revocation is a new row without a hash, a
  re-issue another row, and the newest row of a side is the one that counts. :func:`issue`
  refuses a side that has a link, so a second "start" (a page run twice) cannot quietly void
  the links people already hold.
* :func:`has_links`: a game with any seat-link row (even all revoked: revoking never opens a
  game) requires a token to order; a game without (started at the command line, or before seat
  links existed) is open to whoever opens it, as before.
* Writes go through the store's own write transaction (``SQLiteEventStore.writing``), so they are
  refused as an append is: a database altered outside warlog, or one that cannot be written
  (a read-only database made before seat links, which lacks the table, among them), gets
  nothing written. Seat links need the SQLite store: the game's database is what the dashboard's
  processes share.
"""

from __future__ import annotations

import hmac
import secrets
import sqlite3
from collections.abc import Iterable
from contextlib import AbstractContextManager
from hashlib import sha256

import orjson

from warlog.events.sqlite_guard import bounded
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.events.store import GameNotFound, StoreError
from warlog.events.unicode_rules import shown

TOKEN_BYTES = 16  # secrets.token_urlsafe(16): 22 characters, 128 random bits
# A token is 22 characters: anything far longer is no token (and is not hashed).
_MAX_TOKEN = 256

_HAS_TABLE = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'seat_links'"
# The newest row of each side of a game: the link that counts (no hash: revoked).
_CURRENT = ("SELECT side, token_sha256 FROM seat_links AS s WHERE game = ? AND issue = "
            "(SELECT max(issue) FROM seat_links WHERE game = s.game AND side = s.side) "
            "ORDER BY side")
_INSERT = ("INSERT INTO seat_links (game, side, issue, token_sha256) VALUES (?, ?, "
           "(SELECT coalesce(max(issue), 0) + 1 FROM seat_links WHERE game = ? AND side = ?), ?)")
_FIRST = "SELECT body FROM events WHERE game = ? AND seq = 1"


class SeatLinkError(StoreError):
    """A seat link that cannot be issued or revoked; nothing was written."""


class UnknownSide(SeatLinkError):
    """A side the game does not have."""

    def __init__(self, game: str, side: object, sides: Iterable[str]) -> None:
        self.game, self.side = game, side
        known = ", ".join(shown(s) for s in sorted(sides)) or "none"
        super().__init__(f"game {shown(game)} has no side {shown(side)} (its sides: {known}); "
                         "no seat link was issued")


class SeatTaken(SeatLinkError):
    """A side that already has a link: revoke it first to issue a new one."""

    def __init__(self, game: str, side: str) -> None:
        self.game, self.side = game, side
        super().__init__(f"side {shown(side)} of game {shown(game)} already has a seat link; "
                         "revoke it first to issue a new one (no seat link was issued)")


def digest(token: str) -> str:
    """The SHA-256 of a token, as the table stores it (hex)."""
    return sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def issue(store: SQLiteEventStore, game: str, sides: Iterable[str]) -> dict[str, str]:
    """A new private link token for each of ``sides`` of ``game``, all stored in one transaction
    (only their hashes) or none: GameNotFound for a game not stored, UnknownSide for a side it
    does not have, SeatTaken for a side whose link stands, StoreError if the database refuses
    the write (altered, read-only, busy). The tokens are shown once: only their hashes stay."""
    wanted = list(sides)
    if not wanted:
        raise SeatLinkError(f"no side named: no seat link was issued for game {shown(game)}")
    if len(set(wanted)) != len(wanted):
        raise SeatLinkError(f"a side is named twice: no seat link was issued for game "
                            f"{shown(game)}")
    tokens: dict[str, str] = {}
    with _writing(store, f"issue seat links for game {shown(game)}") as conn:
        known = _sides(conn, game)
        current = dict(conn.execute(_CURRENT, (game,)).fetchall())
        for side in wanted:
            if side not in known:
                raise UnknownSide(game, side, known)
            if current.get(side) is not None:
                raise SeatTaken(game, side)
            tokens[side] = secrets.token_urlsafe(TOKEN_BYTES)
            conn.execute(_INSERT, (game, side, game, side, digest(tokens[side])))
    return tokens


def revoke(store: SQLiteEventStore, game: str, side: str) -> bool:
    """Stop the link of ``side`` of ``game`` working (a row without a hash), so that a new one
    may be issued. True if a link stood, False if none did (nothing is written then: a side
    that never had one stays as it was). GameNotFound / UnknownSide as :func:`issue`."""
    with _writing(store, f"revoke the seat link of side {shown(side)} of game "
                  f"{shown(game)}") as conn:
        known = _sides(conn, game)
        if side not in known:
            raise UnknownSide(game, side, known)
        current = dict(conn.execute(_CURRENT, (game,)).fetchall())
        if current.get(side) is None:
            return False
        conn.execute(_INSERT, (game, side, game, side, None))
    return True


def side_of(store: SQLiteEventStore, game: str, token: object) -> str | None:
    """The side whose current link ``token`` is, in ``game``; None for anything else (a wrong,
    revoked, empty or overlong token, another game's, or no token at all), never an error."""
    if not isinstance(token, str) or not token or len(token) > _MAX_TOKEN:
        return None
    mine = digest(token)
    found = None
    for side, held in _current(store, game):
        # Every side is compared (no early exit), each in constant time.
        if held is not None and hmac.compare_digest(mine, held) and found is None:
            found = side
    return found


def has_links(store: SQLiteEventStore, game: str) -> bool:
    """True if ``game`` was ever given seat links (revoked ones too): only a token's holder may
    order for it. False for a game without (open to whoever opens it, as before)."""
    return _any_row(_sqlite(store), game)


# -- helpers --------------------------------------------------------------------------------


def _sqlite(store: object) -> SQLiteEventStore:
    """The store, if it can hold seat links: StoreError naming what it is otherwise."""
    if not isinstance(store, SQLiteEventStore):
        raise StoreError(f"seat links are kept in the game's SQLite database; this store "
                         f"({type(store).__name__}) holds none")
    return store


def _writing(store: SQLiteEventStore, what: str) -> AbstractContextManager[sqlite3.Connection]:
    return _sqlite(store).writing(what)


@bounded
def _table_rows(store: SQLiteEventStore, sql: str, args: tuple) -> list[tuple]:
    """Rows of ``sql`` over seat_links; none if the database has no such table (a read-only
    database made before seat links)."""
    conn = store.conn
    if conn.execute(_HAS_TABLE).fetchone() is None:
        return []
    return conn.execute(sql, args).fetchall()


def _current(store: SQLiteEventStore, game: str) -> list[tuple[str, str | None]]:
    return _table_rows(_sqlite(store), _CURRENT, (game,))


def _any_row(store: SQLiteEventStore, game: str) -> bool:
    return bool(_table_rows(store, "SELECT 1 FROM seat_links WHERE game = ? LIMIT 1", (game,)))


def _sides(conn: sqlite3.Connection, game: str) -> set[str]:
    """The sides of a stored game, from its first event: its scenario's sides and its players'
    (GameNotFound if its first event is not stored)."""
    row = conn.execute(_FIRST, (game,)).fetchone()
    if row is None:
        raise GameNotFound(game)
    try:
        first = orjson.loads(row[0])
    except orjson.JSONDecodeError:
        first = None
    if not isinstance(first, dict):
        raise StoreError(f"game {shown(game)}: its first event is not what warlog writes (the "
                         "database was changed outside warlog); no seat link was issued")
    scenario = first.get("scenario")
    parts = (scenario.get("sides") if isinstance(scenario, dict) else None, first.get("players"))
    return {side for part in parts if isinstance(part, dict) for side in part}  # JSON keys: str
