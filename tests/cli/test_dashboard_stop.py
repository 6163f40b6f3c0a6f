"""Stopping `warlog dashboard` stops the Streamlit server it started (issue 19).

Before: the command Popen()ed Streamlit and handled only KeyboardInterrupt, so a SIGTERM (kill,
a service manager) or a SIGHUP (a closed terminal) ended warlog and left the server running on
its port, an orphan. A real `warlog dashboard` process, a real server, a real signal."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import psutil
import pytest

from waits import LIMIT, wait_until

from warlog.events.replay_file import import_replay
from warlog.events.sqlite_store import SQLiteEventStore

FIXTURE = Path(__file__).resolve().parents[1] / "events" / "fixtures" / "v1-ancients-melee.jsonl"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://localhost:{port}/_stcore/health", timeout=LIMIT):
            return True
    except OSError:
        return False


def _gone(proc: psutil.Process) -> bool:
    try:
        return proc.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_stop_signal_stops_the_server_it_started(tmp_path, sig):
    db = tmp_path / "w.db"
    with SQLiteEventStore(db) as store:  # a game already: no demo games to seed first
        import_replay(store, FIXTURE)
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "WARLOG_DB"}
    command = subprocess.Popen(
        [sys.executable, "-m", "warlog.cli", "dashboard", "--no-open", "--port", str(port),
         "--db", str(db)], env=env, cwd=tmp_path, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, start_new_session=True)
    started: list[psutil.Process] = []
    try:
        wait_until(lambda: _answers(port), "the dashboard did not answer")
        started = psutil.Process(command.pid).children(recursive=True)
        assert started, "no server process under warlog dashboard"
        os.kill(command.pid, sig)  # warlog alone, as `kill` or a service manager does
        assert command.wait(timeout=LIMIT) == 0
        wait_until(lambda: all(_gone(p) for p in started), "the server outlived warlog")
        assert not _answers(port)
    finally:  # whatever is left (the old behaviour: the server) is taken down
        if command.poll() is None:
            command.kill()
            command.wait(timeout=LIMIT)
        for proc in started:
            if not _gone(proc):
                proc.kill()
