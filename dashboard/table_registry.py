"""The Play page's database connections, given back when the browser session that held them ends.

Why this exists: the Play page keeps an open table per browser session (a ``Table`` in
``st.session_state``: an order waiting for its dice lives only there between reruns), and the
table reads and appends through a store with its own SQLite connection (two descriptors: the
database and its WAL). Streamlit never tells a page that its session ended: a closed tab's
session is kept for a possible reconnect (``server.disconnectedSessionTTL``, two minutes), and
it is dropped only when a later disconnect happens to reap it, and freed only when the garbage
collector gets to it. Measured on a server after a soak, every session's connection was still
open minutes after the last page closed, so a server left running for days ran out.

What Streamlit does say is when a session disconnects: its session-scoped resources are
released (``st.cache_resource(scope="session", on_release=...)``). So each table's store is
registered there (``hold``), and released when the session disconnects: its connection is
closed at once, whatever still references the table.

A session may come back (a network blip: Streamlit resumes it, session state and all): the
table must work again, with the order that waits for its dice. So a ``SessionStore`` opens its
connection again when it is next used after being released, and the page holds it again on its
next run. The connection is used by one thread at a time (a session's runs, its callbacks and
its fragment follow one another), but released from the server's own thread, possibly while
the session's last run still reads: the release takes a lock and only ever closes, and the
connection is shared (events/sqlite_shared.py), so the close waits for the statement step in
flight and the run then gets a closed store's error, never a crash of the server.
"""

from __future__ import annotations

import itertools
import sqlite3
import threading

import streamlit as st

from warlog.events.sqlite_store import SQLiteEventStore

_SERIALS = itertools.count(1)
# The attributes SQLiteEventStore.__init__ derives from opening the file (kept when reopened).
_OPENED = ("readonly", "immutable", "note", "altered", "_why_read_only")


class SessionStore(SQLiteEventStore):
    """A store for one browser session's table: closed when the session ends (``close``, which
    may be called from any thread and more than once), opened again if it is used after that."""

    def __init__(self, path: str) -> None:
        self._lock = threading.Lock()
        self._conn = None
        self.serial = next(_SERIALS)  # names it in the session's registry (never reused)
        self.reopened = 0  # times it was opened again after a release (tests look)
        super().__init__(path, check_same_thread=False)

    @property
    def conn(self):
        conn = self._conn
        if conn is None:
            with self._lock:
                if self._conn is None:
                    if _session_gone():
                        raise sqlite3.ProgrammingError(
                            "this page's session has ended: its table is closed")
                    self._reopen()
                conn = self._conn
        return conn

    @conn.setter
    def conn(self, value) -> None:
        self._conn = value

    @property
    def open(self) -> bool:
        """Whether it holds a connection now."""
        return self._conn is not None

    def _reopen(self) -> None:
        fresh = SQLiteEventStore(self.path, check_same_thread=False)
        for name in _OPENED:
            setattr(self, name, getattr(fresh, name))
        self._schema_version, self._db = None, None  # both belonged to the old connection
        self._conn = fresh.conn
        self.reopened += 1

    def close(self) -> None:
        """Give the connection back (idempotent); a later use opens a new one."""
        with self._lock:
            conn, self._conn, self._db = self._conn, None, None
        if conn is not None:
            conn.close()


def _session_gone() -> bool:
    """Whether this thread runs a script of a session that is no longer connected: a run that
    Streamlit is stopping after its tab closed must not open again what the disconnect just
    gave back (nothing would give it back a second time). A resumed session is connected again,
    and its tables open again; outside a server (tests, AppTest) nothing has ended."""
    from streamlit.runtime import Runtime
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None or not Runtime.exists():
        return False
    return not Runtime.instance().is_active_session(ctx.session_id)


def _release(store: SessionStore) -> None:
    store.close()


@st.cache_resource(scope="session", on_release=_release, show_spinner=False)
def _held(serial: int, _store: SessionStore) -> SessionStore:
    return _store


def hold(store: SessionStore) -> None:
    """Register ``store`` with the running session (once per store: later calls are cache
    hits), so that its connection is closed when the session disconnects. Called on every run
    of the page: after a session came back, its released store is registered again."""
    _held(store.serial, store)
