"""A connection that threads take turns on and that any of them may close at any moment.

Why: Python's sqlite3 lets go of the interpreter lock while SQLite steps a statement, and reads
the connection's handle again when the step returns. A ``close()`` from another thread in that
window leaves the handle empty, and the stepping thread then dereferences it: the whole process
dies of a segmentation fault, with no traceback and nothing in any log. It happened to a Play
server: a browser session ended (dashboard/table_registry.py closes its table's store from
Streamlit's own thread) while that session's last run was still reading the game, and the
server was gone for everyone. A script of 200 closes beside a reading thread crashed the
interpreter every time it ran (tests/events/test_sqlite_shared.py keeps it).

So each step that leaves the interpreter lock (a statement's execution, each row fetched, a
commit or a rollback) holds the connection's turn, and ``close`` waits for the turn: it happens
between two steps, never inside one. After it, a fetch on an old cursor is a plain
``ProgrammingError`` ("Cannot operate on a closed database"), which the code that gets it
already handles as any closed store. A turn is one step, not a whole query, so a close waits
at most for one statement (or the busy timeout of one that waits for a lock).

Only connections opened with ``check_same_thread=False`` are shared (the guard costs a lock a
row): a connection kept to its thread cannot be closed by another.
"""

from __future__ import annotations

import sqlite3
import threading
from typing import Any

from warlog.events.sqlite_guard import Bounded


class SharedConnection(Bounded):
    """A :class:`Bounded` connection whose statements, fetches, commits and close take turns."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.turn = threading.RLock()

    def cursor(self, factory: Any = None) -> sqlite3.Cursor:  # type: ignore[override]
        return super().cursor(factory or SharedCursor)

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:  # type: ignore[override]
        self.ticks = 0  # the step limit counts from each statement (Bounded)
        return self.cursor().execute(sql, parameters)

    def executemany(self, sql: str, parameters: Any, /) -> sqlite3.Cursor:  # type: ignore[override]
        self.ticks = 0
        return self.cursor().executemany(sql, parameters)

    def executescript(self, script: str, /) -> sqlite3.Cursor:  # type: ignore[override]
        self.ticks = 0
        return self.cursor().executescript(script)

    def commit(self) -> None:
        with self.turn:
            super().commit()

    def rollback(self) -> None:
        with self.turn:
            super().rollback()

    def __exit__(self, *exc: Any) -> Any:  # the ``with conn:`` transaction commits or rolls back
        with self.turn:
            return super().__exit__(*exc)

    def close(self) -> None:
        with self.turn:
            super().close()


class SharedCursor(sqlite3.Cursor):
    """A cursor of a :class:`SharedConnection`: each of its steps holds the connection's turn."""

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:  # type: ignore[override]
        with self.connection.turn:
            return super().execute(sql, parameters)

    def executemany(self, sql: str, parameters: Any, /) -> sqlite3.Cursor:  # type: ignore[override]
        with self.connection.turn:
            return super().executemany(sql, parameters)

    def executescript(self, script: str, /) -> sqlite3.Cursor:  # type: ignore[override]
        with self.connection.turn:
            return super().executescript(script)

    def fetchone(self) -> Any:
        with self.connection.turn:
            return super().fetchone()

    def fetchmany(self, size: int | None = None) -> list:
        with self.connection.turn:
            return super().fetchmany(self.arraysize if size is None else size)

    def fetchall(self) -> list:
        with self.connection.turn:
            return super().fetchall()

    def __next__(self) -> Any:
        with self.connection.turn:
            return super().__next__()
