"""Opening the SQLite store's file, and SQLite's refusals in a player's words.

Why opening works as it does (events/sqlite_store.py uses it; the schema is
events/sqlite_schema.py's):

* Opening is safe when many processes open one (new) file at once: the busy timeout is set by
  ``connect`` before any statement; opening reads the schema without a lock and only when
  something is missing takes the write lock first (``BEGIN IMMEDIATE``, which waits its turn)
  and creates it; a ``SQLITE_BUSY`` that SQLite returns without waiting (switching to WAL while
  another connection reads, a lock upgrade that could deadlock) is retried until ``timeout``.
* A file database runs in WAL mode with ``synchronous=NORMAL``: many small commits stay cheap and
  readers do not block the writer.
* A database that can be read but not written opens for reading, whatever stops the writes: its
  file's permissions (SQLite then opens it read-only by itself), a read-only disk, or
  ``readonly=True`` (``?mode=ro``). It keeps the journal mode it has, and a schema it finds
  incomplete is left as it is (create_schema stands in for the missing heads). A WAL file in a
  folder that cannot hold its ``-shm`` file is opened ``immutable`` (nothing can change it
  there), unless a ``-wal`` file beside it holds changes, which is then said in one line. SQLite
  3.40 reports such a folder as SQLITE_READONLY_DIRECTORY (even with ``?mode=ro``), older ones
  as SQLITE_CANTOPEN. Immutable means SQLite assumes nobody writes the file meanwhile: the
  store records it (``immutable``) so that a reading command says so (``IMMUTABLE``).
* Every open checks the schema against what warlog makes (events/sqlite_guard.py) in the same
  catalogue query that finds it complete; a database holding anything else is never completed
  nor written, and its findings go with the connection.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import NamedTuple

from warlog.events.sqlite_guard import Bounded, altered_rows, findings, limit_error, ran_past
from warlog.events.sqlite_shared import SharedConnection
from warlog.events.sqlite_schema import create_schema
from warlog.events.store import StoreError

SQLITE_BUSY, SQLITE_LOCKED, SQLITE_READONLY, SQLITE_IOERR, SQLITE_FULL = 5, 6, 8, 10, 13
SQLITE_CANTOPEN = 14
SQLITE_READONLY_DIRECTORY = SQLITE_READONLY | (6 << 8)  # 1544: a folder that cannot be written
IMMUTABLE = "opened read-only as immutable: warlog assumes nobody writes it meanwhile"
_NOT_WRITTEN = {
    SQLITE_FULL: "the disk is full",
    SQLITE_READONLY: "the database cannot be written (its file, folder or disk is read-only)",
    SQLITE_IOERR: "the disk could not be written (an I/O error)",
    SQLITE_BUSY: "the database is busy (another process holds its lock); try again",
    SQLITE_LOCKED: "the database is busy (another process holds its lock); try again",
}
_MODES = {"ro": "mode=ro", "immutable": "immutable=1"}


def code(exc: sqlite3.Error) -> int | None:
    """The primary result code of a SQLite error (its extended code's low byte)."""
    extended = getattr(exc, "sqlite_errorcode", None)
    return None if extended is None else extended & 0xFF


def busy(exc: sqlite3.Error) -> bool:
    """Another connection holds a lock we need (SQLITE_BUSY / SQLITE_LOCKED, any extended code)."""
    primary = code(exc)
    if primary is not None:
        return primary in (SQLITE_BUSY, SQLITE_LOCKED)
    return "locked" in str(exc) or "busy" in str(exc)


def not_written(exc: sqlite3.Error) -> str:
    """Why SQLite refused a write, in a player's words (the disk is full, ...)."""
    return _NOT_WRITTEN.get(code(exc), f"SQLite refused the write ({exc})")


class Opened(NamedTuple):
    """An open database: the connection, whether it can only be read (opened read-only, or found
    read-only with part of its schema missing), whether it was opened immutable (a WAL file in
    a folder that cannot be written), and what the schema check found (events/sqlite_guard.py:
    one line an object warlog did not make as it is, sorted; empty if none)."""

    conn: sqlite3.Connection
    readonly: bool
    immutable: bool
    altered: list[str]


def open_database(path: str, *, timeout: float, check_same_thread: bool,
                  readonly: bool) -> Opened:
    """A connection to the store at ``path`` with its schema ready and checked (see
    :class:`Opened`). StoreError, naming the file, if it cannot be opened."""
    mode = "ro" if readonly else None
    while True:
        conn = _connect(path, timeout, check_same_thread, mode)
        try:
            complete, rows = _prepare(conn, path, timeout, mode is not None)
            found = findings(rows, missing=False)
            if found and not complete:
                found = findings(rows)
            return Opened(conn, mode is not None or not complete, mode == "immutable", found)
        except sqlite3.DatabaseError as exc:
            conn.close()
            if ran_past(exc):
                raise limit_error(path) from None
            if mode != "immutable" and _unwritable_wal(path, exc):
                mode = "immutable"  # read-only media: nothing can change the file there
                continue
            if busy(exc):
                raise StoreError(f"{path}: cannot open the database: another process kept it "
                                 f"busy for {timeout:g} s; try again") from None
            if code(exc) in (SQLITE_FULL, SQLITE_IOERR):
                raise StoreError(f"{path}: cannot open the database: {not_written(exc)}; "
                                 "nothing was written") from None
            raise StoreError(f"{path}: cannot open as a warlog database ({exc})") from None
        except StoreError as exc:
            conn.close()
            raise StoreError(f"{path}: cannot open the database: {exc}") from None


def _connect(path: str, timeout: float, check_same_thread: bool,
             mode: str | None) -> sqlite3.Connection:
    """A connection to the file: read-write (SQLite falls back to read-only by itself if the file
    cannot be written), or ``mode`` "ro" or "immutable" (read-only, no locks, no -shm). The busy
    timeout is set before any statement runs."""
    target, uri = path, False
    if mode is not None:
        if path == ":memory:":
            raise StoreError("an in-memory database cannot be opened read-only")
        target, uri = f"{Path(path).absolute().as_uri()}?{_MODES[mode]}", True
    try:
        return sqlite3.connect(target, timeout=timeout, check_same_thread=check_same_thread,
                               uri=uri, factory=Bounded if check_same_thread else SharedConnection)
    except sqlite3.Error as exc:  # e.g. its folder does not exist
        raise StoreError(f"{path}: cannot open the database ({exc})") from None


def _prepare(conn: sqlite3.Connection, path: str, timeout: float,
             readonly: bool) -> tuple[bool, list]:
    """WAL mode and the schema, retrying while another connection is busy with the same: whether
    the schema is complete, and sqlite_master's rows (see ``create_schema``).

    The busy timeout makes SQLite itself wait for most locks. It returns SQLITE_BUSY at once
    where waiting could deadlock (a reader upgrading to writer while another writer waits for
    readers to leave) and for a journal-mode switch that finds the file in use: those are
    retried here, with short growing pauses, until ``timeout`` has passed."""
    deadline = time.monotonic() + timeout
    pause = 0.001
    while True:
        try:
            if path != ":memory:" and not readonly:
                _use_wal(conn)
            return create_schema(conn, readonly=readonly, altered=altered_rows)
        except sqlite3.OperationalError as exc:
            conn.rollback()
            if not busy(exc) or time.monotonic() >= deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def _use_wal(conn: sqlite3.Connection) -> None:
    """WAL mode, unless the file cannot be written: then it is read in the mode it has."""
    if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        try:
            conn.execute("PRAGMA journal_mode=WAL").fetchone()
        except sqlite3.OperationalError as exc:
            if code(exc) != SQLITE_READONLY:
                raise
    conn.execute("PRAGMA synchronous=NORMAL")


def _unwritable_wal(path: str, exc: sqlite3.Error) -> bool:
    """A WAL database in a folder or on a disk that cannot be written cannot be read the usual
    way (SQLite needs a -shm file beside it): True if ``exc`` is that and the file may be read
    as immutable. StoreError if a -wal file beside it holds changes (only a -shm reads them).
    SQLite 3.40 says SQLITE_READONLY_DIRECTORY itself; SQLITE_CANTOPEN is taken for it only if
    the folder or the file cannot be written."""
    if not os.path.isfile(path):
        return False
    if getattr(exc, "sqlite_errorcode", None) != SQLITE_READONLY_DIRECTORY:
        if code(exc) != SQLITE_CANTOPEN:
            return False
        folder = os.path.dirname(os.path.abspath(path))
        if os.access(folder, os.W_OK) and os.access(path, os.W_OK):
            return False
    wal = path + "-wal"
    if os.path.exists(wal) and os.path.getsize(wal) > 0:
        raise StoreError(
            f"{path}: cannot read the database: its folder cannot be written, and its "
            f"write-ahead log ({os.path.basename(wal)}) holds changes that SQLite reads only "
            "with a -shm file beside it; copy both files to a folder that can be written"
        )
    return True
