"""Take-back requests between two browsers: a side that wants its orders back asks, the other
seat agrees or refuses (issue 39). A request is access, not history, like a seat link: it is no
event and in no chain. Only what the other seat agrees to becomes a fact (the
``orders_taken_back`` event the table appends then).

Why it looks the way it does:

* **A table of the games' database** (``takeback_requests``), made on its first write as the
  analysis store's tables are (events/sqlite_schema.py lists it as expected, never required:
  a database nobody asked anything of is left as it was), written in the store's own write
  transaction, refused as an append is (the database altered, read-only, busy).
* **Rows only added, the newest counting** (as seat links): a request is a row ``asked``, its
  answer a row ``agreed`` or ``refused`` after it. The rows say who asked for what, at which
  position, and how it was answered.
* **A request is tied to a position** (``at_seq``: the game's last event when it was asked). Once
  the game has moved on (an order, a note, the take-back itself) it is stale and stands no more:
  the other seat never agrees to orders that are no longer the last ones.
* A database without the table holds no request: reading never makes it.
"""

from __future__ import annotations

from dataclasses import dataclass

from warlog.events.sqlite_guard import bounded
from warlog.events.sqlite_schema import TAKEBACK_REQUESTS_CREATE
from warlog.events.sqlite_store import SQLiteEventStore

ASKED, AGREED, REFUSED = "asked", "agreed", "refused"
ANSWERS = (AGREED, REFUSED)
_HAS_TABLE = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'takeback_requests'"
_NEWEST = ("SELECT n, side, orders, at_seq, what FROM takeback_requests WHERE game = ? "
           "ORDER BY n DESC LIMIT 1")
_INSERT = ("INSERT INTO takeback_requests (game, n, side, orders, at_seq, what) VALUES (?, "
           "(SELECT coalesce(max(n), 0) + 1 FROM takeback_requests WHERE game = ?), ?, ?, ?, ?)")


@dataclass(frozen=True)
class Request:
    """The newest row of a game: ``side`` asked to take back ``orders`` orders when the game's
    last event was ``at_seq``; ``what`` is "asked" (standing) or its answer; ``n`` its number
    (a page that saw another number has something new to show)."""

    n: int
    side: str
    orders: int
    at_seq: int
    what: str

    def stands_at(self, last_seq: int) -> bool:
        """Whether this row is about the game as it stands (its last event ``last_seq``)."""
        return self.at_seq == last_seq


@bounded
def newest(store: SQLiteEventStore, game: str) -> Request | None:
    """The newest row of ``game`` (None if none, or a read-only database without the table)."""
    conn = store.conn
    if conn.execute(_HAS_TABLE).fetchone() is None:
        return None
    row = conn.execute(_NEWEST, (game,)).fetchone()
    return None if row is None else Request(*row)


def _write(store: SQLiteEventStore, game: str, side: str, orders: int, at_seq: int,
           what: str) -> Request:
    """One row in the store's write transaction: StoreError (nothing written) as an append's."""
    with store.writing(f"record the take-back {what}") as conn:
        conn.execute(TAKEBACK_REQUESTS_CREATE)
        conn.execute(_INSERT, (game, game, side, orders, at_seq, what))
        row = conn.execute(_NEWEST, (game,)).fetchone()
    return Request(*row)


def ask(store: SQLiteEventStore, game: str, side: str, orders: int, at_seq: int) -> Request:
    """``side`` asks to take back its last ``orders`` orders, the game standing at ``at_seq``
    (a newer request of the game replaces any earlier one). StoreError if it cannot be kept."""
    return _write(store, game, side, orders, at_seq, ASKED)


def answer(store: SQLiteEventStore, request: Request, game: str, what: str) -> Request:
    """The other seat's answer (``what``: "agreed" or "refused") to ``request``."""
    if what not in ANSWERS:
        raise ValueError(f"an answer is one of {ANSWERS}, not {what!r}")
    return _write(store, game, request.side, request.orders, request.at_seq, what)
