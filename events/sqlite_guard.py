"""The database checks itself: its schema against what warlog makes, and every query against a
limit (issue 30). events/sqlite_open.py runs the check on every open, events/sqlite_store.py
and events/analysis_store.py refuse a write to a database that fails it.

Why, and why this way:

* A database is a file people copy and share, and its triggers run inside warlog's own writes.
  Checking the guards by name let a planted ``RAISE(IGNORE)`` trigger swallow an append that
  then reported success, and a no-op guard of the same name beside an ``AFTER INSERT ON heads``
  trigger delete another game during an append. So every table, index, trigger and view in
  sqlite_master (type, name, table, SQL text) is compared with exactly what warlog makes: the
  statements events/sqlite_schema.py runs (and analysis_store's table, kept there), run once on an empty
  in-memory database so that SQLite normalises their text its own way; no second copy. SQLite's
  automatic indexes and ANALYZE's statistics tables come out of that same run. Anything else is
  a finding: writes are refused naming it, reads go on, and ``verify`` fails with it.
* A view over a recursive query, or any query that never ends, is stopped by SQLite's progress
  handler after ``STEP_LIMIT`` virtual-machine steps of one statement (:class:`Bounded`), and
  becomes one line naming the database.
"""

from __future__ import annotations

import functools
import re
import sqlite3
from collections.abc import Callable
from functools import lru_cache
from typing import Any, TypeVar

from warlog.events.sqlite_schema import MASTER, Row, reference
from warlog.events.store import DatabaseAltered, StoreError

# The most virtual-machine steps one statement may take. Measured on SQLite 3.40 (counted every
# 10,000 steps): the biggest game warlog supports, 250,000 events, takes at most 1.0 million
# steps a statement to read back, 2.5 million for the store's verify, 1.25 million for an
# append of all of it at once (its read-back confirmation); a catalogue check or a game list
# far fewer. 100 million is 40 times the biggest (room for a migration's backfill of heads over
# millions of events), and a runaway recursive query reaches it in about 3 s (500 million took
# 17 s, too close to a user's patience).
STEP_LIMIT = 100_000_000
# How often (in steps) SQLite calls the handler: rare enough to cost nothing measurable.
_EVERY = 10_000
SQLITE_INTERRUPT = 9
RAN_PAST = ("a query on this database ran past warlog's limit: it was stopped; the database may "
            "have been altered")


class Bounded(sqlite3.Connection):
    """A connection whose every statement stops after STEP_LIMIT steps (SQLITE_INTERRUPT).

    The count starts again with each ``execute``: the limit is a statement's, so a long session
    of small queries never reaches it. ``stopped`` says the last interruption was ours."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.ticks, self.stopped = 0, False
        self.set_progress_handler(self._tick, _EVERY)

    def _tick(self) -> int:
        self.ticks += 1
        if self.ticks * _EVERY > STEP_LIMIT:
            self.stopped = True
            return 1
        return 0

    def execute(self, *args, **kwargs) -> sqlite3.Cursor:  # type: ignore[override]
        self.ticks = 0
        return super().execute(*args, **kwargs)

    def executemany(self, *args, **kwargs) -> sqlite3.Cursor:  # type: ignore[override]
        self.ticks = 0
        return super().executemany(*args, **kwargs)


def ran_past(exc: BaseException) -> bool:
    """True if ``exc`` is a statement interrupted by the step limit."""
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(exc, sqlite3.OperationalError) and (
        (code is not None and code & 0xFF == SQLITE_INTERRUPT) or str(exc) == "interrupted")


def limit_error(path: str) -> StoreError:
    """The one line for a query the step limit stopped."""
    return StoreError(f"{path}: {RAN_PAST}")


F = TypeVar("F", bound=Callable[..., Any])


def bounded(method: F) -> F:
    """A store method whose statement the step limit stopped raises one line naming the
    database (``self.path``), not SQLite's "interrupted"."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except sqlite3.OperationalError as exc:
            if ran_past(exc):
                raise limit_error(self.path) from None
            raise

    return wrapper  # type: ignore[return-value]


def altered_error(path: str, found: list[str]) -> DatabaseAltered:
    """What ``verify`` reports of an altered database: a game in it proves nothing, since what
    warlog did not make ran inside its writes (or may run inside the next)."""
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    return DatabaseAltered(f"{path}: the database was altered outside warlog: {found[0]}{more}",
                           found)


@lru_cache(maxsize=None)
def _expected() -> tuple[dict[str, Row], dict[str, Row]]:
    """What warlog makes, by name: the objects an open requires (events/sqlite_schema.py's
    SCHEMA), and those a database may also hold (the analysis store's table, what an older
    warlog made, SQLite's statistics tables once ANALYZE ran)."""
    required_rows, every = reference()
    required = {row[1]: row for row in required_rows}
    return required, {row[1]: row for row in every if row[1] not in required}


def _shown(name: str) -> str:
    """A name as a message may show it: plain names as they are, any other quoted, ASCII only,
    and cut short (a planted name is input too)."""
    if re.fullmatch(r"[A-Za-z0-9_]{1,64}", name):
        return name
    text = ascii(name)
    return text if len(text) <= 60 else text[:57] + "..."


def _a(kind: str) -> str:
    return f"an {kind}" if kind[:1] in "aeiou" else f"a {kind}"


def findings(rows: list[Row], *, missing: bool = True) -> list[str]:
    """One line for each object in ``rows`` (sqlite_master's) that warlog did not make as it is,
    sorted by name: an extra one, one of another kind under a name warlog uses, one whose SQL
    differs, and (if ``missing``) one that warlog makes and the database lacks."""
    required, optional = _expected()
    found: list[str] = []
    names = set()
    for row in sorted(rows, key=lambda r: (str(r[1]), str(r[0]))):
        kind, name = str(row[0]), str(row[1])
        names.add(name)
        want = required.get(name) or optional.get(name)
        if want is None:
            found.append(f"this database has {_a(kind)} warlog did not make: {_shown(name)}")
        elif kind != want[0]:
            found.append(f"the {want[0]} {_shown(name)} was replaced by {_a(kind)} outside "
                         "warlog")
        elif tuple(row) != want:
            found.append(f"the {kind} {_shown(name)} was changed outside warlog")
    if missing:
        found += [f"the {required[name][0]} {name} that warlog makes is missing"
                  for name in sorted(required) if name not in names]
    return found


def altered_rows(rows: list[Row]) -> bool:
    """True if ``rows`` hold an object warlog did not make as it is (missing ones aside: an older
    warlog's database lacks some, and opening completes it)."""
    return bool(findings(rows, missing=False))


def refusal(path: str, what: str, found: list[str]) -> DatabaseAltered:
    """The error for a write refused because the database was altered: the first finding, how
    many more, and that nothing was written."""
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    return DatabaseAltered(f"{path}: cannot {what}: {found[0]}{more}; nothing was written",
                           found)


def check(conn: sqlite3.Connection, path: str, what: str) -> None:
    """Refuse a write (DatabaseAltered) if the database, read now inside the writer's
    transaction, holds anything warlog did not make; missing objects are no finding here (a
    file holding only curves, an older layout a read-only open left as it was)."""
    rows = conn.execute(MASTER).fetchall()
    found = findings(rows, missing=False)
    if found:
        raise refusal(path, what, found)


def schema_version(conn: sqlite3.Connection) -> int:
    """SQLite's schema cookie: it changes whenever any object is made, dropped or changed."""
    return conn.execute("PRAGMA schema_version").fetchone()[0]


def recheck(conn: sqlite3.Connection, path: str, what: str, found: list[str],
            version: int | None) -> tuple[list[str], int]:
    """Inside a write's transaction: refuse it (DatabaseAltered) if the database is altered,
    reading the catalogue again unless its schema is the one seen at ``version`` (None: not
    yet seen in a transaction; another process may have planted something since the open).
    Returns the findings and the version now. (Opening does not read the version: every
    command opens, few write.)"""
    now = schema_version(conn)
    if now != version:
        found = findings(conn.execute(MASTER).fetchall(), missing=False)
    if found:
        raise refusal(path, what, found)
    return found, now


_READ_BACK = "SELECT seq, chain FROM events WHERE game = ? AND seq >= ? ORDER BY seq"
_HEAD = "SELECT seq, chain FROM heads WHERE game = ? ORDER BY seq DESC LIMIT 1"


def confirm_append(conn: sqlite3.Connection, game: str, rows: list[tuple], changes: int,
                   games_row: bool) -> bool:
    """True if an append's transaction holds exactly what it wrote, checked before it commits:
    SQLite counts every row changed, triggers' changes included, so the connection's changes
    since ``changes`` must be the batch, its head and (``games_row``) a new game's row, no more
    (a trigger writing elsewhere: another game deleted) and no fewer (a ``RAISE(IGNORE)``
    swallowing a row); the game's rows from the batch's first seq are the batch's (seq, chain),
    and its head is the batch's last. Cheap: a range read of what was just written."""
    if conn.total_changes - changes != len(rows) + 1 + int(games_row):
        return False
    stored = conn.execute(_READ_BACK, (game, rows[0][1])).fetchall()
    if stored != [(row[1], row[7]) for row in rows]:
        return False
    return conn.execute(_HEAD, (game,)).fetchone() == (rows[-1][1], rows[-1][7])


def not_stored(path: str, game: str) -> StoreError:
    """The error for an append whose rows were not all stored as written (rolled back)."""
    return StoreError(f"{path}: cannot append to game {game!r}: the database did not store the "
                      "write (a trigger changed it?); nothing was written")
