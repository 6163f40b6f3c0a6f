"""Helpers shared by the store fault tests (test_store_guards.py, test_store_processes.py): games
renamed for another id, a plain sqlite3 connection, the heads a database recorded, and taking a
database back to the format an older warlog left. The ``real_games`` fixture is in this folder's
conftest.py."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

Events = list[dict[str, Any]]


def renamed(events: Events, game: str) -> Events:
    return [{**e, "game": game} for e in events]


def opening_length(events: Events) -> int:
    """The events before the first order: what ``start`` appends for a new game."""
    return next(i for i, e in enumerate(events) if e["kind"] == "order_given")


def raw(path: Path) -> sqlite3.Connection:
    """A plain sqlite3 connection, with none of the store's pragmas (recursive_triggers is off)."""
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA recursive_triggers").fetchone()[0] == 0
    return conn


def heads(path: Path, game: str) -> list[int]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT seq FROM heads WHERE game = ? ORDER BY seq", (game,))
        return [seq for (seq,) in rows]
    finally:
        conn.close()


def make_old_format(path: Path) -> None:
    """Take a database back to before heads and the REPLACE guards (as an older warlog left it)."""
    conn = raw(path)
    conn.executescript(
        "DROP TABLE heads; DROP TRIGGER events_no_replace; DROP TRIGGER games_no_replace;"
    )
    conn.close()


def plant(path: Path, *statements: str) -> None:
    """What a hostile file holds: objects made (or changed) with a plain sqlite3 connection."""
    conn = raw(path)
    try:
        for statement in statements:
            conn.execute(statement)
        conn.commit()
    finally:
        conn.close()


def row_counts(path: Path) -> dict[str, int]:
    """How many rows each of warlog's tables holds (read through whatever now has its name)."""
    conn = sqlite3.connect(path)
    try:
        names = {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
        return {table: conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                for table in ("events", "heads", "games", "zz_games_table") if table in names}
    finally:
        conn.close()
