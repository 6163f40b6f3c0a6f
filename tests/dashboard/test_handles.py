"""A Play server gives back its handles when sessions end: ten Play pages opened in chromium and
closed, five at a time, and the server process's file descriptors (read in /proc) come back to
where they were. (Fifty once: the database's descriptors must come back exactly, so one
session's leak shows in two batches as in ten, and ten cost the suite 80 s less.)

Measured before the fix: after a soak a server held a connection (warlog.db and its WAL) for
every Play session there had been, minutes after the last page closed, because Streamlit keeps
a closed tab's session for a possible reconnect and the page's table kept its store open.
dashboard/table_registry.py closes it when the session disconnects.

What Streamlit itself keeps for a disconnected session until it drops it (its script event loop:
an eventpoll and the two sockets of its self-pipe, ``server.disconnectedSessionTTL``, 120 s by
default, dropped only at a later disconnect) is its own, and counted apart: every other
descriptor must come back, the database's exactly."""

from __future__ import annotations

import collections
import os
from pathlib import Path

import pytest
from browser_kit import chromium, new_page, streamlit_process
from waits import wait_until

from warlog.app.seats import Seat
from warlog.app.start import start_game
from warlog.engine.scenario import load_scenario
from warlog.events.sqlite_store import SQLiteEventStore

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SESSIONS = 10
AT_ONCE = 5  # pages open together (each its own browser context: another visitor)
GAMES = 5
MARGIN = 2  # descriptors a server may open or close meanwhile (a log rotated, a watcher)
STREAMLIT_KEEPS = "anon_inode:[eventpoll]"  # one a session Streamlit keeps, with two sockets


def descriptors(pid: int, db: Path) -> collections.Counter:
    """The process's open descriptors by kind: the database's files by name ("db", "db-wal",
    "db-shm"), sockets, eventpolls, and every other target as it is."""
    kinds: collections.Counter = collections.Counter()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:  # closed meanwhile
            continue
        if target.startswith(str(db)):
            target = "db" + target[len(str(db)):]
        elif target.startswith("socket:"):
            target = "socket"
        elif target.startswith("pipe:"):
            target = "pipe"
        kinds[target] += 1
    return kinds


def _database(db: Path) -> list[str]:
    """Games still to be played (no seat links: any page plays them), so the Play page draws
    the board and follows the store with its fragment."""
    with SQLiteEventStore(db) as store:
        return [start_game(store, load_scenario("ancients-river-crossing"), game_id=f"open-{i}",
                           seats={"red": Seat.person("ann"), "blue": Seat.person("bob")}, seed=i)
                for i in range(GAMES)]


def _visit(browser, url: str, games: list[str]) -> None:
    """Open a Play page on each game at once, wait until each shows its table, close them."""
    pages = [new_page(browser, 1200, 900, own_context=True) for _ in games]
    for page, game in zip(pages, games):
        page.goto(f"{url}/play?play={game}")
    for page in pages:
        page.get_by_text("to act:", exact=False).first.wait_for()
    for page in pages:
        page.context.close()


def test_ten_play_sessions_leave_no_descriptor_behind(tmp_path):
    db = tmp_path / "handles.db"
    games = _database(db)
    with streamlit_process(db, tmp_path) as (proc, url):
        with chromium(tmp_path) as browser:
            _visit(browser, url, games[:1])  # the server's own first-use files, then measured
            wait_until(lambda: not any(k.startswith("db") and k != "db-shm"
                                       for k in descriptors(proc.pid, db)),
                       lambda: f"the first session kept {descriptors(proc.pid, db)}")
            before = descriptors(proc.pid, db)
            for batch in range(SESSIONS // AT_ONCE):
                _visit(browser, url, [games[(batch + i) % GAMES] for i in range(AT_ONCE)])
            during = descriptors(proc.pid, db)

            def back() -> bool:
                now = descriptors(proc.pid, db)
                kept = now[STREAMLIT_KEEPS] - before[STREAMLIT_KEEPS]
                others = {k: n for k, n in now.items() if k not in (STREAMLIT_KEEPS, "socket")}
                was = {k: n for k, n in before.items() if k not in (STREAMLIT_KEEPS, "socket")}
                return (now["db"] <= before["db"] and now["db-wal"] <= before["db-wal"]
                        and sum(others.values()) <= sum(was.values()) + MARGIN
                        and now["socket"] <= before["socket"] + 2 * kept + MARGIN)

            wait_until(back, lambda: f"the server's descriptors did not come back after "
                                     f"{SESSIONS} sessions: before {dict(before)}, during "
                                     f"{dict(during)}, now {dict(descriptors(proc.pid, db))}")
    log = (tmp_path / "streamlit.log").read_text()
    assert "Traceback" not in log, log
