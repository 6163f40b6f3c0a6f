"""A store shared by threads may be closed by any of them while another reads (events/sqlite_shared.py).

Before: a Play server died of a segmentation fault (the kernel's log: ``segfault at 38 ...
in libsqlite3``) when a browser session ended while its last run still read the game: Python's
sqlite3 reads the connection's handle again after each step it ran without the interpreter lock,
and the close from Streamlit's thread had emptied it. The race below crashed every run of it
(200 closes) before the fix. Each round runs in a forked child, so a crash is an exit status
(-11) and not the end of the test process."""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
from pathlib import Path

from warlog.events.replay_file import import_replay
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.events.store import StoreError

from waits import LIMIT

FORK = multiprocessing.get_context("fork")
FIXTURE = Path(__file__).parent / "fixtures" / "v2-portable-issus-aggressive-cautious-s2.jsonl"
ROUNDS = 200


def _closes_while_reading(path: str, game: str) -> None:
    """ROUNDS times: a thread reads the game over and over, and this thread closes the store
    once the reader is under way. A closed store may only ever raise, never crash."""
    for _ in range(ROUNDS):
        store = SQLiteEventStore(path, check_same_thread=False)
        reading = threading.Event()

        def read() -> None:
            try:
                while True:
                    store.read(game)
                    store.games()
                    reading.set()
            except (sqlite3.ProgrammingError, StoreError):
                reading.set()  # the store is closed: what the reader of a closed store sees

        reader = threading.Thread(target=read)
        reader.start()
        assert reading.wait(LIMIT)
        store.close()
        reader.join(LIMIT)
        assert not reader.is_alive()


def test_a_close_from_another_thread_never_crashes_a_reader(tmp_path):
    path = str(tmp_path / "shared.db")
    with SQLiteEventStore(path) as store:
        game = import_replay(store, FIXTURE)
    child = FORK.Process(target=_closes_while_reading, args=(path, game))
    child.start()
    child.join(LIMIT * 4)
    assert child.exitcode == 0, f"the process ended with {child.exitcode} (-11: a segfault)"


def test_a_shared_store_still_reads_writes_and_refuses_after_close(tmp_path):
    path = str(tmp_path / "after.db")
    store = SQLiteEventStore(path, check_same_thread=False)
    game = import_replay(store, FIXTURE)
    events = store.read(game)
    assert events and store.verify(game) == len(events)
    assert [g.id for g in store.games()] == [game]
    store.close()
    store.close()  # twice is harmless
    try:
        store.read(game)
    except (sqlite3.ProgrammingError, StoreError) as exc:
        assert "closed" in str(exc)
    else:
        raise AssertionError("a closed store read a game")
